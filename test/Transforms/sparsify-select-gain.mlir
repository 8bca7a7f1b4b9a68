// RUN: pit-opt %s -split-input-file --pit-sparsify="latency-table=%S/../Inputs/latency-table.json" -verify-diagnostics | FileCheck %s

// Every variant kept launches its kernels on every call, and they take a
// few microseconds of the calls where another variant is chosen: a variant
// stays only where it is more than 5% and more than 3 us cheaper than dense
// and the variants kept. 32x64x32 is the cheapest only at coverage 0, by 5%
// but 2 us: left out. 32x128x64 beats dense at coverage 1 (900 against
// 1000 us) and 32x64x64 beats 32x128x64 at 0.5 (540 against 600), each by
// 11%: both kept.
// CHECK-LABEL: func @matmul
// CHECK: pit.select
// CHECK-SAME: latencies [array<f64: 4.000000e+01, 6.000000e+02, 9.000000e+02>, array<f64: 1.000000e+02, 5.400000e+02, 1.300000e+03>]
// CHECK: case 0 {
// CHECK: pit.stile {{.*}} tile [32, 128, 64]
// CHECK: case 1 {
// CHECK: pit.stile {{.*}} tile [32, 64, 64]
// CHECK: default {
// CHECK-NEXT: linalg.matmul
func.func @matmul(%a: memref<128x256xf16>, %b: memref<256x256xf16>, %c: memref<128x256xf32>) {
  // expected-remark @+2 {{pit-sparsify: variant (32x1 along loop 2, tile 32x64x32) left out: never more than 5% and 3 us cheaper than dense and the variants kept}}
  // expected-remark @+1 {{pit-sparsify: chooses at run time among variant 0 (32x1 along loop 2, tile 32x128x64), variant 1 (32x1 along loop 2, tile 32x64x64) and dense (2)}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<128x256xf16>, memref<256x256xf16>) outs(%c : memref<128x256xf32>)
  return
}

// -----

// A variant must also save more where it is the cheapest than its launches
// cost (3 us a table point) where it is not. Dense costs 100 us.
// 32x128x64 saves 5 us (5%) at coverage 0 and loses at 0.5 and 1: its 5 us
// do not pay for its launches there, and it is left out. 32x64x64 saves 10
// us at 0.5 and loses at 0 and 1: kept (10 against 6).
// CHECK-LABEL: func @matmul_saves_little
// CHECK: pit.select
// CHECK-SAME: latencies [array<f64: 1.000000e+02, 9.000000e+01, 4.000000e+02>]
// CHECK: case 0 {
// CHECK: pit.stile {{.*}} tile [32, 64, 64]
// CHECK: default {
// CHECK-NEXT: linalg.matmul
func.func @matmul_saves_little(%a: memref<128x256xf16>, %b: memref<256x512xf16>, %c: memref<128x512xf32>) {
  // expected-remark @+2 {{pit-sparsify: variant (32x1 along loop 2, tile 32x128x64) left out: never more than 5% and 3 us cheaper than dense and the variants kept, or saving less where it is cheaper than its launches cost elsewhere}}
  // expected-remark @+1 {{pit-sparsify: chooses at run time among variant 0 (32x1 along loop 2, tile 32x64x64) and dense (1)}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<128x256xf16>, memref<256x512xf16>) outs(%c : memref<128x512xf32>)
  return
}

// -----

// Near-twins: each is within 3 us of the other wherever it is the cheaper
// (20 against 21 us at coverage 0, 49 against 50 at 0.5), so either makes
// the other worthless. The one dearer over the table (32x64x64: 490 us
// against 470) is left out, and the other kept.
// CHECK-LABEL: func @matmul_twins
// CHECK: pit.select
// CHECK-SAME: latencies [array<f64: 2.000000e+01, 5.000000e+01, 4.000000e+02>]
// CHECK: case 0 {
// CHECK: pit.stile {{.*}} tile [32, 128, 64]
func.func @matmul_twins(%a: memref<128x256xf16>, %b: memref<256x1024xf16>, %c: memref<128x1024xf32>) {
  // expected-remark @+2 {{pit-sparsify: variant (32x1 along loop 2, tile 32x64x64) left out}}
  // expected-remark @+1 {{pit-sparsify: chooses at run time among variant 0 (32x1 along loop 2, tile 32x128x64) and dense (1)}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<128x256xf16>, memref<256x1024xf16>) outs(%c : memref<128x1024xf32>)
  return
}
