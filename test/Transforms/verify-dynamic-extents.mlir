// RUN: pit-opt %s -split-input-file --pit-verify-dynamic-extents | FileCheck %s

// A matmul of dynamic rows: A's rows and C's rows must agree at the call,
// and so must A's columns and B's rows; the checks come before the op.
// CHECK-LABEL: func @dynamic_rows
// CHECK: memref.dim
// CHECK: cf.assert {{.*}}"PIT: 'linalg.matmul' at
// CHECK-SAME: was called with extents that do not agree
// CHECK: linalg.matmul
func.func @dynamic_rows(%a: memref<?x64xf32>, %b: memref<64x32xf32>,
                        %c: memref<?x32xf32>) {
  linalg.matmul ins(%a, %b : memref<?x64xf32>, memref<64x32xf32>)
                outs(%c : memref<?x32xf32>)
  return
}

// -----

// A statically shaped op was checked when the IR was verified: unchanged.
// CHECK-LABEL: func @static_shapes
// CHECK-NOT: cf.assert
// CHECK-NOT: memref.dim
// CHECK: linalg.matmul
func.func @static_shapes(%a: memref<16x64xf32>, %b: memref<64x32xf32>,
                         %c: memref<16x32xf32>) {
  linalg.matmul ins(%a, %b : memref<16x64xf32>, memref<64x32xf32>)
                outs(%c : memref<16x32xf32>)
  return
}
