// RUN: oneflow-opt %s | oneflow-opt | FileCheck %s
// RUN: oneflow-opt %s -emit-bytecode | oneflow-opt | FileCheck %s

// The oneflow enum attributes outside of ops: every case of each, the
// verbose #oneflow<...> spelling, a quoted case name and an alias all print
// in the pretty form.

#sum = #oneflow.reduction<sum>

// CHECK-LABEL: func @enum_attrs()
// CHECK-SAME:    gelu = [#oneflow.gelu_approximation<none>, #oneflow.gelu_approximation<tanh>]
// CHECK-SAME:    pad = [#oneflow.pad_mode<constant>, #oneflow.pad_mode<reflect>, #oneflow.pad_mode<edge>]
// CHECK-SAME:    reduction = [#oneflow.reduction<none>, #oneflow.reduction<mean>, #oneflow.reduction<sum>]
// CHECK-SAME:    verbose = #oneflow.reduction<mean>
func.func @enum_attrs() attributes {
    gelu = [#oneflow.gelu_approximation<none>, #oneflow.gelu_approximation<tanh>],
    pad = [#oneflow.pad_mode<constant>, #oneflow.pad_mode<"reflect">, #oneflow.pad_mode<edge>],
    reduction = [#oneflow.reduction<none>, #oneflow<reduction<mean>>, #sum],
    verbose = #oneflow<reduction<mean>>} {
  return
}
