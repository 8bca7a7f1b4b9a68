// RUN: pit-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pit-mark-sparse="op-name=linalg.matmul operand=0 micro-tiles=32x1,1x64" | FileCheck %s
// RUN: not pit-opt %s --pit-mark-sparse="micro-tiles=32y1" 2>&1 | FileCheck %s --check-prefix=BAD-SHAPE
// RUN: not pit-opt %s --pit-mark-sparse="op-name=linalg.matmul" 2>&1 | FileCheck %s --check-prefix=NO-SHAPE
// An operand the op does not have leaves it alone with a remark (op-name
// may name ops of different arities, so the option itself is not wrong).
// RUN: pit-opt %s -split-input-file --pit-mark-sparse="operand=3 micro-tiles=16x16" 2>&1 | FileCheck %s --check-prefix=NO-OPERAND

// BAD-SHAPE: error: pit-mark-sparse: micro-tile '32y1' is not a shape of positive extents such as 32x1
// NO-SHAPE: error: pit-mark-sparse needs at least one shape in 'micro-tiles'
// NO-OPERAND: remark: pit-mark-sparse: left alone, it has no operand 3
// NO-OPERAND-NOT: #pit.sparse<operand = 3

// CHECK-LABEL: func @marks_matmul
func.func @marks_matmul(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // CHECK: linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1, 1x64]>}
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  // Other operations are not touched.
  // CHECK: linalg.copy ins
  linalg.copy ins(%a : memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// CHECK-LABEL: func @keeps_existing_mark
func.func @keeps_existing_mark(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // CHECK: linalg.matmul {pit.sparse = #pit.sparse<operand = 1, micro_tiles = [1x1]>}
  // expected-remark @+1 {{pit-mark-sparse: left alone, already marked}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 1, micro_tiles = [1x1]>}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

