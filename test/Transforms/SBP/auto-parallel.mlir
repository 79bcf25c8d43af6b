// --auto-parallel --devices=N: the search over data x tensor x stages,
// micro-batches, schedule, ZeRO stage and recomputation prices every
// configuration with its step model, checks the best layouts with the
// simulator (each with the SBP solve and with the Megatron template),
// prints its choice, and compiles it.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../../../python/models/gpt_config.py --layers 2 --hidden 32 --heads 4 --seq 8 --vocab 64 --batch 8 --seed 3 -o %t/gpt.mlir

// 8 A100s, a 2-layer GPT of 8 sequences: 165 configurations (18 forward
// solves: one per tensor size, data ranks and micro-batch count); the two
// blocks are solved once. The simulator checks the 3 best layouts; data
// parallel with the solve's SBP is the fastest of the 6 plans.
// RUN: oneflow-opt %t/gpt.mlir --train --optimizer=adamw --auto-parallel --devices=8 --simulate=%S/../../../clusters/a100-80gb-sxm.json --emit=plan -o %t/plan 2>&1 | FileCheck %s
// CHECK: auto-parallel: 8 devices of 8x A100-80GB {{.*}} (8 per node): 165 configurations priced from 18 SBP solves of the forward graph (105 ops) in {{[0-9.]+}} s; 165 fit in 80.00 GiB
// CHECK: auto-parallel: chosen: data 8 x tensor 1 x stages 1, 1 micro-batch(es), 1f1b, ZeRO-1, recompute none
// CHECK: auto-parallel: predicted step 0.001293 s = compute 0.001264 + tensor-axis communication 0 + bubble 0 + stage transfers 0 + gradient reduction 2.891e-05 + optimizer 6.14e-08 + recomputation 0;
// CHECK: auto-parallel: the tensor-axis SBP solve: 59 nodes, 0 left after eliminations, 1 of 2 layers repeat one of 1 (solved once), exact
// CHECK: auto-parallel: runners-up:  data tensor stages micro schedule zero recompute   step (s)  memory (GiB)
// CHECK: auto-parallel: check: data 8 x tensor 1 x stages 1, 1 micro-batch(es), 1f1b, ZeRO-1, recompute none, solve SBP: simulated step 0.0006889 s (model 0.001293 s)
// CHECK-NEXT: auto-parallel: check: data 8 x tensor 1 x stages 1, 1 micro-batch(es), 1f1b, ZeRO-1, recompute none, megatron SBP: simulated step 0.000837 s
// CHECK-NEXT: auto-parallel: check: data 4 x tensor 2 x stages 1, 1 micro-batch(es), 1f1b, ZeRO-1, recompute none, solve SBP: simulated step 0.0009564 s
// CHECK-NEXT: auto-parallel: check: data 4 x tensor 2 x stages 1, 1 micro-batch(es), 1f1b, ZeRO-1, recompute none, megatron SBP: simulated step 0.001736 s
// CHECK-NEXT: auto-parallel: check: data 2 x tensor 4 x stages 1, 1 micro-batch(es), 1f1b, ZeRO-1, recompute none, solve SBP: simulated step 0.0009567 s
// CHECK-NEXT: auto-parallel: check: data 2 x tensor 4 x stages 1, 1 micro-batch(es), 1f1b, ZeRO-1, recompute none, megatron SBP: simulated step 0.001941 s
// CHECK-NEXT: auto-parallel: simulator's check: 6 plan(s) replayed in {{[0-9.]+}} s; chosen: data 8 x tensor 1 x stages 1, 1 micro-batch(es), 1f1b, ZeRO-1, recompute none, solve SBP, simulated step 0.0006889 s
// CHECK-NEXT: auto-parallel: compiling --mesh=8 --sbp-strategy=auto --stages=1 --microbatches=1 --schedule=1f1b --recompute=none --zero=1
// CHECK: sbp-auto: mesh [8]: {{.*}} 1 of 2 layers repeat one of 1 (solved once)
// CHECK: simulate: {{.*}}, 8 ranks {{.*}}: step 688.868 us
// CHECK: fits in 80.00 GiB

// 2 devices, every layout checked (--auto-parallel-verify=100): the
// simulator's check enumerates the layouts (data 2, tensor 2, 2 stages;
// on one device per stage both SBP sources are the same). The step model
// ranks the pipeline last, the simulator first: 2 stages of 2
// micro-batches (0.34 ms) beat tensor parallelism (0.52 ms) and data
// parallelism (0.57 ms), and that is what is compiled.
// RUN: oneflow-opt %t/gpt.mlir --train --optimizer=adamw --auto-parallel --devices=2 --auto-parallel-verify=100 --simulate=%S/../../../clusters/a100-80gb-sxm.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=ENUM
// ENUM: auto-parallel: chosen: data 2 x tensor 1 x stages 1, 1 micro-batch(es), 1f1b, ZeRO-1, recompute none
// ENUM: auto-parallel: check: data 2 x tensor 1 x stages 1, {{.*}}, solve SBP: simulated step [[DATA:[0-9.e-]+]] s
// ENUM-NEXT: auto-parallel: check: data 2 x tensor 1 x stages 1, {{.*}}, megatron SBP: simulated step
// ENUM-NEXT: auto-parallel: check: data 1 x tensor 2 x stages 1, {{.*}}, solve SBP: simulated step
// ENUM-NEXT: auto-parallel: check: data 1 x tensor 2 x stages 1, {{.*}}, megatron SBP: simulated step
// ENUM-NEXT: auto-parallel: check: data 1 x tensor 1 x stages 2, 2 micro-batch(es), 1f1b, ZeRO-0, recompute none, solve SBP: simulated step [[PIPE:[0-9.e-]+]] s
// ENUM-NEXT: auto-parallel: simulator's check: 5 plan(s) replayed in {{[0-9.]+}} s; chosen: data 1 x tensor 1 x stages 2, 2 micro-batch(es), 1f1b, ZeRO-0, recompute none, solve SBP, simulated step [[PIPE]] s
// ENUM-NEXT: auto-parallel: compiling --mesh=1 --sbp-strategy=auto --stages=2 --microbatches=2 --schedule=1f1b --recompute=none

// A simulated gain within --auto-parallel-margin does not displace the step
// model's layout: with a margin of 90%, the pipeline's 40% is not enough.
// Nor does it displace the hand templates' SBP on that layout: the solved
// SBP's 23% is not enough either, so the layout compiles with the data
// template.
// RUN: oneflow-opt %t/gpt.mlir --train --optimizer=adamw --auto-parallel --devices=2 --auto-parallel-verify=100 --auto-parallel-margin=0.9 --simulate=%S/../../../clusters/a100-80gb-sxm.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=MARGIN
// MARGIN: auto-parallel: simulator's check: 5 plan(s) replayed in {{[0-9.]+}} s; chosen: data 2 x tensor 1 x stages 1, {{.*}}, megatron SBP, {{.*}} (the step model's layout: no other is faster by more than the margin)
// MARGIN-NEXT: auto-parallel: compiling --mesh=2 --sbp-strategy=data

// Without the check (--auto-parallel-verify=0) the step model's choice is
// compiled.
// RUN: oneflow-opt %t/gpt.mlir --train --optimizer=adamw --auto-parallel --devices=2 --auto-parallel-verify=0 --simulate=%S/../../../clusters/a100-80gb-sxm.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOCHECK
// NOCHECK-NOT: auto-parallel: check:
// NOCHECK: auto-parallel: compiling --mesh=2 --sbp-strategy=auto --stages=1 --microbatches=1 --schedule=1f1b --recompute=none --zero=1

// Memory: an 8-layer GPT on one device of 15 MB. Nothing fits without
// recomputation; selective recomputation saves too little; full
// recomputation (each block's input kept) fits, and is compiled.
// RUN: %python %S/../../../python/models/gpt_config.py --layers 8 --hidden 64 --heads 4 --seq 64 --vocab 64 --batch 8 --seed 3 -o %t/deep.mlir
// RUN: oneflow-opt %t/deep.mlir --train --optimizer=adamw --auto-parallel --devices=1 --auto-parallel-verify=0 --simulate=%S/Inputs/a100-15mb.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=RECOMPUTE
// RECOMPUTE: auto-parallel: chosen: data 1 x tensor 1 x stages 1, 1 micro-batch(es), 1f1b, ZeRO-0, recompute full
// RECOMPUTE: auto-parallel: the tensor-axis SBP solve: {{.*}} 7 of 8 layers repeat one of 1 (solved once), exact
// RECOMPUTE: auto-parallel: compiling --mesh=1 --sbp-strategy=auto --stages=1 --microbatches=1 --schedule=1f1b --recompute=full

// --zero and --recompute fix their dimension of the search, and the
// compile applies them: ZeRO-3 splits the parameters over the data axis.
// RUN: oneflow-opt %t/gpt.mlir --train --optimizer=adamw --auto-parallel --devices=2 --zero=3 --recompute=selective --auto-parallel-verify=0 --simulate=%S/../../../clusters/a100-80gb-sxm.json -o - 2>&1 | FileCheck %s --check-prefix=FIXED
// FIXED: auto-parallel: chosen: data 2 x tensor 1 x stages 1, 1 micro-batch(es), 1f1b, ZeRO-3, recompute selective
// FIXED: auto-parallel: compiling --mesh=2 --sbp-strategy=auto --stages=1 --microbatches=1 --schedule=1f1b --recompute=selective --zero=3
// FIXED: oneflow.variable @blocks.0.mlp.fc.weight {{.*}}sbp.sig = #sbp.sig<() -> (S<{{[01]}}>)>

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
// RUN: not oneflow-opt %t/gpt.mlir --train --auto-parallel --devices=2 --shard-optimizer-state=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=SHARD
// SHARD: error: --auto-parallel: use --zero to fix the ZeRO stage
