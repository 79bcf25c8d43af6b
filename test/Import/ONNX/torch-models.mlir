// The PyTorch exports (python/models/export_models.py) import at opsets 13
// and 17.
// RUN: oneflow-opt %S/Inputs/torch/mlp_opset13.onnx | FileCheck %s --check-prefix=MLP
// RUN: oneflow-opt %S/Inputs/torch/mlp_opset17.onnx | FileCheck %s --check-prefix=MLP
// RUN: oneflow-opt %S/Inputs/torch/gpt_opset13.onnx | FileCheck %s --check-prefixes=GPT,GPT13
// RUN: oneflow-opt %S/Inputs/torch/gpt_opset17.onnx | FileCheck %s --check-prefixes=GPT,GPT17
// RUN: oneflow-opt %S/Inputs/torch/resnet_opset13.onnx | FileCheck %s --check-prefix=RESNET
// RUN: oneflow-opt %S/Inputs/torch/resnet_opset17.onnx | FileCheck %s --check-prefix=RESNET

// Graph inputs/outputs keep their ONNX names; initializers are parameters
// whose data is a resource blob (elided when printed).
// MLP-LABEL: func.func @main(%arg0: tensor<8x64xf32> {onnx.name = "x"}) -> (tensor<8x10xf32> {onnx.name = "logits"})
// MLP:      %[[W1:.*]] = oneflow.variable @fc1.weight {initial_value = dense_resource<fc1.weight> : tensor<128x64xf32>} : tensor<128x64xf32>
// MLP:      %[[B1:.*]] = oneflow.variable @fc1.bias
// MLP:      %[[H:.*]] = oneflow.matmul %arg0, %[[W1]] {transpose_b} : (tensor<8x64xf32>, tensor<128x64xf32>) -> tensor<8x128xf32>
// MLP-NEXT: %[[HB:.*]] = oneflow.add %[[H]], %[[B1]]
// MLP-NEXT: oneflow.relu %[[HB]] : tensor<8x128xf32>
// MLP-COUNT-2: oneflow.matmul
// MLP:      return {{.*}} : tensor<8x10xf32>

// GPT-LABEL: func.func @main(%arg0: tensor<2x16xi64> {onnx.name = "tokens"}) -> (tensor<2x16x128xf32> {onnx.name = "logits"})
// GPT:       oneflow.gather %{{.*}}, %arg0 : (tensor<128x64xf32>, tensor<2x16xi64>) -> tensor<2x16x64xf32>
// Opset 17 exports LayerNormalization; opset 13 spells it out.
// GPT17:     oneflow.layer_norm
// GPT13-NOT: oneflow.layer_norm
// GPT13:     oneflow.reduce_mean
// Attention: heads split by reshape/transpose, scores by batched matmul,
// the causal mask by where, then softmax.
// GPT:       oneflow.batch_matmul {{.*}} -> tensor<2x4x16x16xf32>
// GPT:       oneflow.where
// GPT:       oneflow.softmax {{.*}}axis = 3
// GPT:       oneflow.erf
// GPT:       return {{.*}} : tensor<2x16x128xf32>

// RESNET-LABEL: func.func @main(%arg0: tensor<2x3x16x16xf32> {onnx.name = "x"}) -> (tensor<2x10xf32> {onnx.name = "logits"})
// RESNET:       oneflow.conv2d %arg0, {{.*}} -> tensor<2x16x16x16xf32>
// RESNET-NEXT:  oneflow.batch_norm
// RESNET-NEXT:  oneflow.relu
// RESNET:       oneflow.conv2d {{.*}}strides = array<i64: 2, 2>
// RESNET:       oneflow.global_avg_pool2d {{.*}} -> tensor<2x32x1x1xf32>
// RESNET-NEXT:  oneflow.flatten {{.*}} -> tensor<2x32xf32>
// RESNET:       oneflow.matmul {{.*}}{transpose_b}
