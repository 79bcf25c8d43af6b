// bf16 products with f32 inputs and bf16 outputs (written as f32 .npy):
// a 2-D matmul with a transposed operand, and a batch_matmul. CUDA plans
// run them as cuBLASLt bf16 GEMMs (f32 accumulation), CPU plans widen
// them to f32 GEMMs; both round once. Also scripts/gpu-check.sh's
// numerics check of the bf16 products on a GPU.
func.func @main(%a: tensor<64x256xf32> {onnx.name = "a"}, %b: tensor<96x256xf32> {onnx.name = "b"}, %p: tensor<4x32x64xf32> {onnx.name = "p"}, %q: tensor<4x64x48xf32> {onnx.name = "q"}) -> (tensor<64x96xbf16> {onnx.name = "y"}, tensor<4x32x48xbf16> {onnx.name = "z"}) {
  %al = oneflow.cast %a : tensor<64x256xf32> to tensor<64x256xbf16>
  %bl = oneflow.cast %b : tensor<96x256xf32> to tensor<96x256xbf16>
  %pl = oneflow.cast %p : tensor<4x32x64xf32> to tensor<4x32x64xbf16>
  %ql = oneflow.cast %q : tensor<4x64x48xf32> to tensor<4x64x48xbf16>
  %y = oneflow.matmul %al, %bl {transpose_b} : (tensor<64x256xbf16>, tensor<96x256xbf16>) -> tensor<64x96xbf16>
  %z = oneflow.batch_matmul %pl, %ql : (tensor<4x32x64xbf16>, tensor<4x64x48xbf16>) -> tensor<4x32x48xbf16>
  return %y, %z : tensor<64x96xbf16>, tensor<4x32x48xbf16>
}
