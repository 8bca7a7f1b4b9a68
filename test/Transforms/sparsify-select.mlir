// RUN: pit-opt %s -split-input-file --pit-sparsify="latency-table=%S/../Inputs/latency-table.json" -verify-diagnostics | FileCheck %s
// RUN: not pit-opt %s --pit-sparsify="latency-table=%S/no-such-table.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: pit-opt %s -split-input-file --pit-sparsify="latency-table=%S/../Inputs/latency-table.json variant=3" 2>/dev/null | FileCheck %s --check-prefix=FORCED
// RUN: not pit-opt %s -split-input-file --pit-sparsify="latency-table=%S/../Inputs/latency-table.json variant=4" 2>&1 | FileCheck %s --check-prefix=NO-VARIANT

// With an STile database, every variant the table has for the mark's
// micro-tiles is built: one detection per index, pit.select over their
// counts, and a switch whose default is the unmarked op (dense fallback).
// The fill of C moves into every case. The table's 4x4 variant is not a
// candidate of the mark, and is left out.
// CHECK-LABEL: func @matmul
// CHECK-SAME: (%[[A:.+]]: memref<64x64xf32>, %[[B:.+]]: memref<64x64xf32>, %[[C:.+]]: memref<64x64xf32>)
// CHECK-NOT: linalg.fill
// CHECK: pit.detect %[[A]] micro_tile [8, 1] axis 1 into %[[FINE:[^,]+]],
// CHECK: pit.detect %[[A]] micro_tile [8, 16] axis 1 into %[[ALONG_K:[^,]+]],
// CHECK: pit.detect %[[A]] micro_tile [8, 16] axis 0 into %[[ALONG_M:[^,]+]],
// CHECK: %[[CHOICE:.+]] = pit.select %[[FINE]], %[[ALONG_K]], %[[ALONG_M]] capacities [64, 4, 8]
// CHECK-SAME: coverage [0.000000e+00, 5.000000e-01, 1.000000e+00]
// CHECK-SAME: latencies [array<f64: 1.000000e+02, 1.200000e+03, 2.400000e+03>, array<f64: 5.000000e+01, 6.000000e+02, 1.200000e+03>, array<f64: 5.000000e+01, 7.000000e+02, 1.400000e+03>]
// CHECK-SAME: dense 1.000000e+03
// CHECK: scf.index_switch %[[CHOICE]]
// CHECK: case 0 {
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[C]]
// CHECK-NEXT: pit.stile {{.*}} counts(%[[FINE]] : memref<8xi32>) {{.*}} micro_tile [8, 1] pit_axis 2
// CHECK: case 1 {
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[C]]
// CHECK-NEXT: pit.stile {{.*}} counts(%[[ALONG_K]] : memref<8xi32>) {{.*}} micro_tile [8, 16] pit_axis 2
// CHECK: case 2 {
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[C]]
// CHECK-NEXT: pit.stile {{.*}} counts(%[[ALONG_M]] : memref<4xi32>) {{.*}} micro_tile [8, 16] pit_axis 0
// CHECK: default {
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[C]]
// CHECK-NEXT: linalg.matmul ins(%[[A]], %[[B]] : {{.*}}) outs(%[[C]] : {{.*}})
// CHECK-NOT: pit.sparse
// CHECK: memref.dealloc
// MISSING: pit-sparsify: latency-table: cannot read '{{.*}}no-such-table.json'
// Forced to a variant (3 = dense here): the detections still run, the
// switch is on a constant.
// FORCED-LABEL: func @matmul
// FORCED-COUNT-3: pit.detect
// FORCED-NOT: pit.select
// FORCED: %[[DENSE:.+]] = arith.constant 3 : index
// FORCED: scf.index_switch %[[DENSE]]
// NO-VARIANT: error: 'linalg.matmul' op pit-sparsify: there is no variant 4; the latency table gives 3 and dense (3)
func.func @matmul(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [8x1, 8x16]>}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// An op the table has not measured is sparsified with its fixed candidate.
// CHECK-LABEL: func @unmeasured
// CHECK-NOT: pit.select
// CHECK: pit.stile {{.*}} micro_tile [8, 1]
func.func @unmeasured(%a: memref<64x128xf32>, %b: memref<128x64xf32>, %c: memref<64x64xf32>) {
  // expected-remark @below {{pit-sparsify: the latency table has no entry for 'linalg.matmul 64x64x128 f32,f32,f32'; candidate 0 without run-time selection}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [8x1]>}
      ins(%a, %b : memref<64x128xf32>, memref<128x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// Measured, but for none of the mark's micro-tiles.
// CHECK-LABEL: func @other_micro_tiles
// CHECK-NOT: pit.select
// CHECK: pit.stile {{.*}} micro_tile [2, 2]
func.func @other_micro_tiles(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-remark @below {{pit-sparsify: the latency table has no variant for the mark's micro-tiles; candidate 0 without run-time selection}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [2x2]>}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
