// RUN: pit-opt %s --pit-strip-sparse-marks | FileCheck %s

// CHECK-LABEL: func @strips
// CHECK-NOT: pit.sparse
func.func @strips(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // CHECK: linalg.matmul ins
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  // CHECK: linalg.copy {keep}
  linalg.copy {keep, pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x1]>}
      ins(%a : memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
