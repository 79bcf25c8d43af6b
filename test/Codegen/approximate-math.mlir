// RUN: oneflow-opt %s --oneflow-approximate-math -split-input-file | FileCheck %s

// f32 transcendentals become polynomials (no libm call remains); f64 ones
// keep their math op.
// CHECK-LABEL: func @transcendentals
// CHECK-NOT:     math.exp {{.*}} : f32
// CHECK-NOT:     math.erf {{.*}} : f32
// CHECK:         math.exp %{{.*}} : f64
func.func @transcendentals(%x: f32, %y: f64) -> (f32, f32, f64) {
  %0 = math.exp %x : f32
  %1 = math.erf %x : f32
  %2 = math.exp %y : f64
  return %0, %1, %2 : f32, f32, f64
}

// -----

// Dividing by an f32 constant multiplies by its reciprocal; divisors that
// are not constants, or whose reciprocal is not a normal number (zero,
// infinity, huge values), and f64 divisions stay divides.
// CHECK-LABEL: func @divide_by_constant
// CHECK-DAG:     %[[INV:.*]] = arith.constant 0.707106769 : f32
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[HUGE:.*]] = arith.constant 3.000000e+38 : f32
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2.000000e+00 : f64
// CHECK:         %[[A:.*]] = arith.mulf %arg0, %[[INV]] : f32
// CHECK:         %[[B:.*]] = arith.divf %arg0, %arg1 : f32
// CHECK:         %[[C:.*]] = arith.divf %arg0, %[[ZERO]] : f32
// CHECK:         %[[D:.*]] = arith.divf %arg0, %[[HUGE]] : f32
// CHECK:         %[[E:.*]] = arith.divf %arg2, %[[TWO]] : f64
// CHECK:         return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]]
func.func @divide_by_constant(%x: f32, %y: f32, %z: f64) -> (f32, f32, f32, f32, f64) {
  %sqrt2 = arith.constant 1.41421354 : f32
  %zero = arith.constant 0.0 : f32
  %huge = arith.constant 3.0e38 : f32
  %two = arith.constant 2.0 : f64
  %0 = arith.divf %x, %sqrt2 : f32
  %1 = arith.divf %x, %y : f32
  %2 = arith.divf %x, %zero : f32
  %3 = arith.divf %x, %huge : f32
  %4 = arith.divf %z, %two : f64
  return %0, %1, %2, %3, %4 : f32, f32, f32, f32, f64
}
