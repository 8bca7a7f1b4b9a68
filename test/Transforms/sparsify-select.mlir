// RUN: pit-opt %s -split-input-file --pit-sparsify="latency-table=%S/../Inputs/latency-table.json" -verify-diagnostics | FileCheck %s
// RUN: pit-opt %s -split-input-file --pit-sparsify="latency-table=%S/../Inputs/latency-table.json sample-every=0" 2>/dev/null | FileCheck %s --check-prefix=FULL
// RUN: not pit-opt %s --pit-sparsify="latency-table=%S/no-such-table.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: echo '{"coverage": [0.0, 1.0], "ops": [{"op": "x", "dense_us": 1.0, "variants": [{"micro_tile": [8, 1], "pit_loop": 2, "latency_us": [1.0, 2.0], "dense_latency_us": [1.0]}]}]}' > %t.json
// RUN: not pit-opt %s --pit-sparsify="latency-table=%t.json" 2>&1 | FileCheck %s --check-prefix=BAD-DENSE
// RUN: pit-opt %s -split-input-file --pit-sparsify="latency-table=%S/../Inputs/latency-table.json variant=3" 2>/dev/null | FileCheck %s --check-prefix=FORCED
// RUN: not pit-opt %s -split-input-file --pit-sparsify="latency-table=%S/../Inputs/latency-table.json variant=4" 2>&1 | FileCheck %s --check-prefix=NO-VARIANT

// With an STile database, every variant the table has for the mark's
// micro-tiles is built: pit.select over a count of each distinct index's
// micro-tiles, and a switch whose default is the unmarked op (dense
// fallback). The fill of C moves into every case. The table's 4x4 variant
// is not a candidate of the mark, and is left out. The counts sample every
// 16th segment where that leaves 8 or more; A has 8 segments, so every one
// is counted here. Each index is detected only where a variant that reads
// it is chosen.
// CHECK-LABEL: func @matmul
// CHECK-SAME: (%[[A:.+]]: memref<64x64xf32>, %[[B:.+]]: memref<64x64xf32>, %[[C:.+]]: memref<64x64xf32>)
// CHECK-NOT: linalg.fill
// CHECK: pit.count %[[A]] micro_tile [8, 1] axis 1 every 1 into %[[FINE_SAMPLE:[^ ]+]] :
// CHECK: pit.count %[[A]] micro_tile [8, 16] axis 1 every 1 into %[[K_SAMPLE:[^ ]+]] :
// CHECK: pit.count %[[A]] micro_tile [8, 16] axis 0 every 1 into %[[M_SAMPLE:[^ ]+]] :
// CHECK-NOT: pit.detect
// CHECK: %[[CHOICE:.+]] = pit.select %[[FINE_SAMPLE]], %[[K_SAMPLE]], %[[M_SAMPLE]] capacities [64, 4, 8]
// CHECK-SAME: coverage [0.000000e+00, 5.000000e-01, 1.000000e+00]
// CHECK-SAME: latencies [array<f64: 1.000000e+02, 1.200000e+03, 2.400000e+03>, array<f64: 5.000000e+01, 6.000000e+02, 1.200000e+03>, array<f64: 5.000000e+01, 7.000000e+02, 1.400000e+03>]
// CHECK-SAME: dense 1.000000e+03
// CHECK: %[[IS_FINE:.+]] = arith.cmpi eq, %[[CHOICE]], %c0
// CHECK-NEXT: scf.if %[[IS_FINE]] {
// CHECK-NEXT: pit.detect %[[A]] micro_tile [8, 1] axis 1 into %[[FINE:[^,]+]],
// CHECK: %[[IS_K:.+]] = arith.cmpi eq, %[[CHOICE]], %c1
// CHECK-NEXT: scf.if %[[IS_K]] {
// CHECK-NEXT: pit.detect %[[A]] micro_tile [8, 16] axis 1 into %[[ALONG_K:[^,]+]],
// CHECK: %[[IS_M:.+]] = arith.cmpi eq, %[[CHOICE]], %c2
// CHECK-NEXT: scf.if %[[IS_M]] {
// CHECK-NEXT: pit.detect %[[A]] micro_tile [8, 16] axis 0 into %[[ALONG_M:[^,]+]],
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
// CHECK-COUNT-9: memref.dealloc
// CHECK-NEXT: return
// Without a sample (sample-every=0), the detections run first and the
// choice reads their counts.
// FULL-LABEL: func @matmul
// FULL-NOT: pit.count
// FULL: pit.detect %{{.+}} micro_tile [8, 1] axis 1 into %[[FINE:[^,]+]],
// FULL: pit.detect %{{.+}} micro_tile [8, 16] axis 1 into %[[ALONG_K:[^,]+]],
// FULL: pit.detect %{{.+}} micro_tile [8, 16] axis 0 into %[[ALONG_M:[^,]+]],
// FULL: pit.select %[[FINE]], %[[ALONG_K]], %[[ALONG_M]] capacities [64, 4, 8]
// FULL-NOT: scf.if
// FULL: scf.index_switch
// FULL-NOT: pit.count
// FULL-COUNT-6: memref.dealloc
// FULL-NEXT: return
// MISSING: pit-sparsify: latency-table: cannot read '{{.*}}no-such-table.json'
// BAD-DENSE: a variant of 'x' has a 'dense_latency_us' that is not a list of 2 numbers
// Forced to a variant (3 = dense here): the operation stays as it was,
// without its mark: no count, no detection, no choice, no switch.
// FORCED-LABEL: func @matmul
// FORCED-NOT: pit.
// FORCED-NOT: scf.
// FORCED: linalg.fill
// FORCED-NEXT: linalg.matmul ins
// FORCED-NEXT: return
// NO-VARIANT: error: 'linalg.matmul' op pit-sparsify: there is no variant 4; the latency table gives 3 and dense (3)
func.func @matmul(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  // expected-remark @+1 {{pit-sparsify: chooses at run time among variant 0 (8x1 along loop 2, default tile 8x64x32), variant 1 (8x16 along loop 2, default tile 8x64x32), variant 2 (8x16 along loop 0, default tile 32x64x16) and dense (3)}}
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

