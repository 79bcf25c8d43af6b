// RUN: oneflow-opt %s --oneflow-autodiff --oneflow-optimizer="optimizer=sgd lr=0.5" | FileCheck %s --check-prefix=SGD
// RUN: oneflow-opt %s --oneflow-autodiff --oneflow-optimizer="optimizer=sgd lr=0.5 momentum=0.9 weight-decay=0.01 nesterov=true" | FileCheck %s --check-prefix=MOMENTUM
// RUN: oneflow-opt %s --oneflow-autodiff --oneflow-optimizer="optimizer=adamw lr=0.001" | FileCheck %s --check-prefix=ADAMW
// RUN: not oneflow-opt %s --oneflow-autodiff --oneflow-optimizer="optimizer=lamb" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not oneflow-opt %s --oneflow-autodiff --oneflow-optimizer="lr=0" 2>&1 | FileCheck %s --check-prefix=LR
// UNKNOWN: error: unknown optimizer 'lamb' (expected sgd or adamw)
// LR: error: the learning rate must be positive, got 0

// Plain SGD (w -= lr * g), stored with assign; the gradient results are
// consumed.
// SGD-LABEL: func.func @main(
// SGD-SAME: -> tensor<f32> {
// SGD: %[[W:.*]] = oneflow.variable @w
// SGD: %[[G:.*]] = oneflow.mul %{{.*}}, %arg0
// SGD: %[[STEP:.*]] = oneflow.mul %[[G]], %[[RATE:.*]] : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
// SGD: %[[NEW:.*]] = oneflow.sub %[[W]], %[[STEP]]
// SGD: oneflow.assign @w, %[[NEW]] : tensor<8xf32>
// SGD: return %{{.*}} : tensor<f32>

// Momentum (PyTorch's buffer, Nesterov) and L2 weight decay: the buffer is a
// zero-initialized variable laid out like its parameter.
// MOMENTUM: %[[BUF:.*]] = oneflow.variable @w.momentum_buffer {initial_value = dense<0.000000e+00> : tensor<8xf32>, oneflow.state_of = @w}
// MOMENTUM: %[[W:.*]] = oneflow.variable @w
// MOMENTUM: %[[DECAY:.*]] = oneflow.mul %[[W]], %{{.*}}
// MOMENTUM: %[[G:.*]] = oneflow.add %{{.*}}, %[[DECAY]]
// MOMENTUM: %[[SCALED:.*]] = oneflow.mul %[[BUF]], %{{.*}}
// MOMENTUM: %[[NEXT:.*]] = oneflow.add %[[SCALED]], %[[G]]
// MOMENTUM: oneflow.assign @w.momentum_buffer, %[[NEXT]]
// MOMENTUM: oneflow.add %[[G]], %{{.*}}
// MOMENTUM: oneflow.assign @w, %{{.*}}

// AdamW keeps exp_avg / exp_avg_sq per parameter, one step counter, bias
// corrections in f64.
// ADAMW-DAG: oneflow.variable @optimizer.step {initial_value = dense<0.000000e+00> : tensor<f32>} : tensor<f32>
// ADAMW-DAG: oneflow.variable @w.exp_avg {initial_value = dense<0.000000e+00> : tensor<8xf32>, oneflow.state_of = @w}
// ADAMW-DAG: oneflow.variable @w.exp_avg_sq {initial_value = dense<0.000000e+00> : tensor<8xf32>, oneflow.state_of = @w}
// ADAMW: %[[T:.*]] = oneflow.add %{{.*}}, %{{.*}} : (tensor<f32>, tensor<f32>) -> tensor<f32>
// ADAMW: oneflow.assign @optimizer.step, %[[T]] : tensor<f32>
// ADAMW: oneflow.pow %{{.*}}, %{{.*}} : (tensor<f64>, tensor<f64>) -> tensor<f64>
// ADAMW: oneflow.assign @w.exp_avg, %{{.*}}
// ADAMW: oneflow.assign @w.exp_avg_sq, %{{.*}}
// ADAMW: oneflow.sqrt
// ADAMW: oneflow.assign @w, %{{.*}} : tensor<8xf32>
func.func @main(%x: tensor<8xf32> {onnx.name = "x"}) -> tensor<f32> {
  %w = oneflow.variable @w {initial_value = dense<1.0> : tensor<8xf32>} : tensor<8xf32>
  %y = oneflow.mul %x, %w : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %l = oneflow.reduce_sum %y {axes = array<i64: 0>} : tensor<8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
