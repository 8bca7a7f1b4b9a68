// What pit-sparsify cannot handle stays as it is, with a remark saying why.
// RUN: pit-opt %s -split-input-file --pit-sparsify -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func @on_tensors
// CHECK: linalg.matmul {pit.sparse
func.func @on_tensors(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-remark @below {{pit-sparsify: left alone, it works on buffers; bufferize first (one-shot-bufferize)}}
  %0 = linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// CHECK-LABEL: func @no_rule
// CHECK: linalg.add {pit.sparse
func.func @no_rule(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-remark @below {{pit-sparsify: left alone, no rule, because skipping a zero micro-tile would change the result}}
  linalg.add {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x64]>}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// CHECK-LABEL: func @dynamic
// CHECK: linalg.matmul {pit.sparse
func.func @dynamic(%a: memref<?x64xf32>, %b: memref<64x64xf32>, %c: memref<?x64xf32>) {
  // expected-remark @below {{pit-sparsify: left alone, no rule, because its loop ranges are not static}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<?x64xf32>, memref<64x64xf32>) outs(%c : memref<?x64xf32>)
  return
}
