// RUN: oneflow-opt %s --oneflow-gpu-launches-to-runtime-calls -split-input-file -verify-diagnostics

// Library calls without a device version are reported, all of them.
module attributes {gpu.container_module} {
  func.func private @oneflow_cumsum_f32(i64, i64, i64, i64, i64, i64, i64)
  func.func private @oneflow_topk_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64)
  func.func @kernel_0_body(%x: i64) {
    // expected-error @below {{kernel 'kernel_0_body' calls 'oneflow_cumsum_f32', which has no CUDA version}}
    func.call @oneflow_cumsum_f32(%x, %x, %x, %x, %x, %x, %x) : (i64, i64, i64, i64, i64, i64, i64) -> ()
    // expected-error @below {{kernel 'kernel_0_body' calls 'oneflow_topk_f32', which has no CUDA version}}
    func.call @oneflow_topk_f32(%x, %x, %x, %x, %x, %x, %x, %x, %x) : (i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
    return
  }
}
