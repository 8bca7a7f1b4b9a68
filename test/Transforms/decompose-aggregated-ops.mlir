// RUN: pit-opt %s -split-input-file --pit-decompose-aggregated-ops -verify-diagnostics | FileCheck %s

// linalg.softmax on tensors becomes the max, the exponentials, their sum
// and the division that the loop lowerings take.
// CHECK-LABEL: func @softmax
// CHECK-NOT: linalg.softmax
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK: arith.maxnumf
// CHECK: math.exp
// CHECK: arith.divf
func.func @softmax(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%y : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// On buffers upstream has no decomposition: left alone, and the pipelines'
// last pass names it.
// CHECK-LABEL: func @on_buffers
// CHECK: linalg.softmax
func.func @on_buffers(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  // expected-remark @+1 {{left alone: aggregated ops are decomposed on tensors only}}
  linalg.softmax dimension(1) ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>)
  return
}
