// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../Inputs/latency-table.json" -verify-diagnostics | FileCheck %s

// Dense beats every variant by more than 5% at every coverage point: the
// operation stays dense, unmarked, with no detection.
// CHECK-LABEL: func @dense_always
// CHECK-NOT: pit.detect
// CHECK: linalg.matmul ins(
// CHECK-NOT: pit.sparse
func.func @dense_always(%a: memref<128x128xf16>, %b: memref<128x128xf16>, %c: memref<128x128xf32>) {
  // expected-remark @+2 {{pit-sparsify: variant (32x1 along loop 2, default tile 32x64x32) left out: never more than 5% and 3 us cheaper than dense and the variants kept}}
  // expected-remark @+1 {{pit-sparsify: dense is never beaten by more than 5% and 3 us in the latency table; the operation stays dense}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<128x128xf16>, memref<128x128xf16>) outs(%c : memref<128x128xf32>)
  return
}
