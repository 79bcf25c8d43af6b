// The cost of each collective kind and link level on a hand-localized
// 3-rank program, on Inputs/test-cluster.json: pairs of ranks {0, 1}
// share a link of alpha 1 us and 1e9 bytes/s, ranks 0 and 2 only the outer
// one of alpha 10 us and 1e8 bytes/s; copies run at 1e12 bytes/s. Every
// tensor is 250000 f32 (B = 1e6 bytes) unless split.

// RUN: rm -rf %t && mkdir -p %t
// RUN: oneflow-opt %s --emit=plan -o %t/plan --simulate=%S/Inputs/test-cluster.json --simulate-json=%t/report.json --simulate-trace=%t/trace.json 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s --input-file=%t/trace.json
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t/report.json
// RUN: %python %{report} split %t/report.json | FileCheck %s --check-prefix=SPLIT
// RUN: %python %{report} get %t/report.json step_seconds | FileCheck %s --check-prefix=STEP

// The input copy (1 us) first, then on the pair link:
// all_reduce 2 (n-1) alpha + 2 (n-1)/n B / beta = 2 + 1000 us.
// CHECK-DAG: {"name": "all_reduce", "ph": "X", "ts": 1.000, "dur": 1002.000, "pid": 0, "tid": "comm"
// reduce_scatter, all_gather (B its output), all_to_all: (n-1) alpha +
// (n-1)/n B / beta = 1 + 500 us.
// CHECK-DAG: {"name": "reduce_scatter", "ph": "X", "ts": 1003.000, "dur": 501.000, "pid": 0, "tid": "comm"
// CHECK-DAG: {"name": "all_gather", "ph": "X", "ts": 1504.000, "dur": 501.000, "pid": 0, "tid": "comm"
// CHECK-DAG: {"name": "all_to_all", "ph": "X", "ts": 2005.000, "dur": 501.000, "pid": 0, "tid": "comm"
// Ranks 0 and 2 on the outer link: 2 * 10 + 1e6 / 1e8 s = 10020 us; rank 2
// was ready at 1 us and waits for rank 0.
// CHECK-DAG: {"name": "all_reduce", "ph": "X", "ts": 2506.000, "dur": 10020.000, "pid": 0, "tid": "comm"
// CHECK-DAG: {"name": "all_reduce", "ph": "X", "ts": 1.000, "dur": 12525.000, "pid": 2, "tid": "comm"
// Transfers, alpha + B / beta, both posted at once (sends do not block):
// CHECK-DAG: {"name": "send to rank 1 (tag 5)", "ph": "X", "ts": 12526.000, "dur": 1001.000, "pid": 0, "tid": "comm"
// CHECK-DAG: {"name": "send to rank 2 (tag 6)", "ph": "X", "ts": 12526.000, "dur": 10010.000, "pid": 0, "tid": "comm"
// A receive waits from when its stream reached it.
// CHECK-DAG: {"name": "recv from rank 0 (tag 5)", "ph": "X", "ts": 2506.000, "dur": 11021.000, "pid": 1, "tid": "comm"
// CHECK-DAG: {"name": "recv from rank 0 (tag 6)", "ph": "X", "ts": 12526.000, "dur": 10010.000, "pid": 2, "tid": "comm"
// Rank 2's add reads and writes 3e6 bytes: 3 us.
// CHECK-DAG: "ts": 22536.000, "dur": 3.000, "pid": 2, "tid": "compute"

// Rank 2 ends last; its compute stream is busy 3 us, the rest it waits for
// the all-reduce and the transfer. The add's 250000 FLOPs over 3 ranks and
// 22.539 ms: 3.7e-6 TFLOP/s.
// REPORT: simulate: test cluster, 3 ranks: step 22.539 ms = compute 3.000 us + exposed communication 22.536 ms + pipeline bubble 0.000 s (rank 2); 3.7e-06 TFLOP/s per device
// REPORT: simulate: rank 0 memory: parameters 0 bytes + gradients 0 bytes + optimizer state 0 bytes + buffers 0 bytes + activations 3.81 MiB = 3.81 MiB: fits in 953.67 MiB
// REPORT: simulate: rank 1 memory:
// REPORT: simulate: rank 2 memory:

// Every key of the report.
// JSON:      "cluster": "test cluster",
// JSON-NEXT: "num_ranks": 3,
// JSON-NEXT: "simulated_ranks": 3,
// JSON-NEXT: "step_seconds":
// JSON-NEXT: "compute_seconds":
// JSON-NEXT: "exposed_communication_seconds":
// JSON-NEXT: "bubble_seconds": 0,
// JSON-NEXT: "last_rank": 2,
// JSON-NEXT: "tflops_per_device":
// JSON-NEXT: "peak_memory_bytes":
// JSON-NEXT: "memory_capacity_bytes": 1000000000,
// JSON-NEXT: "fits": true,
// JSON-NEXT: "roles": [
// JSON-NEXT:   {
// JSON-NEXT:     "members": 1,
// JSON-NEXT:     "representative": 0,
// JSON-NEXT:     "peak_memory_bytes":
// JSON-NEXT:     "parameters_bytes": 0,
// JSON-NEXT:     "gradients_bytes": 0,
// JSON-NEXT:     "optimizer_state_bytes": 0,
// JSON-NEXT:     "buffers_bytes": 0,
// JSON-NEXT:     "activations_bytes":
// JSON-NEXT:     "fits": true
// JSON-NEXT:   },

// SPLIT: split sums to step
// STEP: step_seconds=0.022539

module attributes {sbp.num_ranks = 3 : i64} {
  func.func @main_rank0(%x: tensor<250000xf32> {onnx.name = "x"})
      -> (tensor<250000xf32> {onnx.name = "y"}) {
    %a = sbp.collective "all_reduce" %x group = [0, 1] {tag = 0} : tensor<250000xf32> -> tensor<250000xf32>
    %b = sbp.collective "reduce_scatter" %a group = [0, 1] {tag = 1} : tensor<250000xf32> -> tensor<125000xf32>
    %c = sbp.collective "all_gather" %b group = [0, 1] {tag = 2} : tensor<125000xf32> -> tensor<250000xf32>
    %d = sbp.collective "all_to_all" %c group = [0, 1] {tag = 3} : tensor<250000xf32> -> tensor<250000xf32>
    %e = sbp.collective "all_reduce" %d group = [0, 2] {tag = 4} : tensor<250000xf32> -> tensor<250000xf32>
    sbp.send %e to 1 {tag = 5} : tensor<250000xf32>
    sbp.send %e to 2 {tag = 6} : tensor<250000xf32>
    return %e : tensor<250000xf32>
  }

  func.func @main_rank1(%x: tensor<250000xf32> {onnx.name = "x"})
      -> (tensor<250000xf32>, tensor<250000xf32>) {
    %a = sbp.collective "all_reduce" %x group = [0, 1] {tag = 0} : tensor<250000xf32> -> tensor<250000xf32>
    %b = sbp.collective "reduce_scatter" %a group = [0, 1] {tag = 1} : tensor<250000xf32> -> tensor<125000xf32>
    %c = sbp.collective "all_gather" %b group = [0, 1] {tag = 2} : tensor<125000xf32> -> tensor<250000xf32>
    %d = sbp.collective "all_to_all" %c group = [0, 1] {tag = 3} : tensor<250000xf32> -> tensor<250000xf32>
    %r = sbp.recv from 0 {tag = 5} : tensor<250000xf32>
    return %d, %r : tensor<250000xf32>, tensor<250000xf32>
  }

  func.func @main_rank2(%x: tensor<250000xf32> {onnx.name = "x"})
      -> tensor<250000xf32> {
    %e = sbp.collective "all_reduce" %x group = [0, 2] {tag = 4} : tensor<250000xf32> -> tensor<250000xf32>
    %r = sbp.recv from 0 {tag = 6} : tensor<250000xf32>
    %s = oneflow.add %e, %r : (tensor<250000xf32>, tensor<250000xf32>) -> tensor<250000xf32>
    return %s : tensor<250000xf32>
  }
}
