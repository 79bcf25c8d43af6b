// --auto-parallel --devices=N: the search over data x tensor x stages,
// micro-batches, schedule and ZeRO-1 prints its choice, its predicted
// figures and the runners-up, then compiles the choice.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../../../python/models/gpt_config.py --layers 2 --hidden 32 --heads 4 --seq 8 --vocab 64 --batch 8 --seed 3 -o %t/gpt.mlir
// RUN: oneflow-opt %t/gpt.mlir --train --optimizer=adamw --auto-parallel --devices=8 --simulate=%S/../../../clusters/a100-80gb-sxm.json --emit=plan -o %t/plan 2>&1 | FileCheck %s
// CHECK: auto-parallel: 8 devices of 8x A100-80GB {{.*}} (8 per node): {{[0-9]+}} configurations priced from {{[0-9]+}} SBP solves of the forward graph ({{[0-9]+}} ops) in {{[0-9.]+}} s; {{[0-9]+}} fit in 80.00 GiB
// CHECK: auto-parallel: chosen: data {{[0-9]+}} x tensor {{[0-9]+}} x stages {{[0-9]+}}, {{[0-9]+}} micro-batch(es), {{1f1b|gpipe}}, ZeRO-1 {{on|off}}
// CHECK: auto-parallel: predicted step {{[0-9.e-]+}} s = compute
// CHECK: auto-parallel: memory per device
// CHECK: auto-parallel: runners-up:  data tensor stages micro schedule zero   step (s)  memory (GiB)
// CHECK: auto-parallel: compiling --mesh={{[0-9x]+}} --sbp-strategy=auto --stages={{[0-9]+}} --microbatches={{[0-9]+}}
// CHECK: sbp-auto: mesh
// CHECK: simulate: {{.*}}, 8 ranks
// CHECK: fits in 80.00 GiB

// A cluster of 100 MiB per device cannot hold a 76M-parameter model's
// AdamW state on 2 devices, whatever the layout: a clear error.
// RUN: %python %S/../../../python/models/gpt_config.py --layers 2 --hidden 1024 --heads 8 --seq 16 --vocab 50304 --batch 8 -o %t/big.mlir
// RUN: not oneflow-opt %t/big.mlir --train --optimizer=adamw --auto-parallel --devices=2 --simulate=%S/Inputs/a100-100mib.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFIT
// NOFIT: error: --auto-parallel: no configuration of 2 devices fits in 0.10 GiB per device (the least needs {{[0-9.]+}} GiB)

// The search chooses the layout itself, and needs the device count.
// RUN: not oneflow-opt %t/gpt.mlir --train --auto-parallel -o /dev/null 2>&1 | FileCheck %s --check-prefix=NODEVICES
// NODEVICES: error: --auto-parallel needs --devices=N (N >= 1)
// RUN: not oneflow-opt %t/gpt.mlir --train --auto-parallel --devices=4 --mesh=2 -o /dev/null 2>&1 | FileCheck %s --check-prefix=CONFLICT
// CONFLICT: error: --auto-parallel chooses --mesh, --sbp-strategy, --stages, --microbatches and --schedule itself
