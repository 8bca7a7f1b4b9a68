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

// On buffers (upstream decomposes on tensors only) the same steps as
// generics on buffers: the maximum and the sum into temporaries of the
// reduced shape, which the pipelines free; y = exp(x - max), then y / sum.
// CHECK-LABEL: func @on_buffers
// CHECK-NOT: linalg.softmax
// CHECK-DAG: %[[MAX:.+]] = memref.alloc() : memref<4xf32>
// CHECK-DAG: %[[SUM:.+]] = memref.alloc() : memref<4xf32>
// CHECK-DAG: %[[LOWEST:.+]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[LOWEST]] : f32) outs(%[[MAX]] : memref<4xf32>)
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%arg0 : memref<4x8xf32>) outs(%[[MAX]] : memref<4xf32>)
// CHECK: arith.maxnumf
// CHECK: linalg.generic {{.+}} ins(%arg0, %[[MAX]] : memref<4x8xf32>, memref<4xf32>) outs(%arg1 : memref<4x8xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: linalg.generic {{.+}} ins(%arg1 : memref<4x8xf32>) outs(%[[SUM]] : memref<4xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic {{.+}} ins(%[[SUM]] : memref<4xf32>) outs(%arg1 : memref<4x8xf32>)
// CHECK: arith.divf
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @on_buffers(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  linalg.softmax dimension(1) ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>)
  return
}

// -----

// Along a dynamic dimension of a 3-D buffer: the temporaries take the
// other dimensions' extents, a dynamic one read from the input.
// CHECK-LABEL: func @dynamic_rows
// CHECK: %[[ROWS:.+]] = memref.dim %arg0, %c0
// CHECK: memref.alloc(%[[ROWS]]) : memref<?x16xf16>
// CHECK-NOT: linalg.softmax
func.func @dynamic_rows(%x: memref<?x8x16xf16>, %y: memref<?x8x16xf16>) {
  linalg.softmax dimension(1) ins(%x : memref<?x8x16xf16>) outs(%y : memref<?x8x16xf16>)
  return
}
