// Round trip of every pit op, through the custom form and the generic form.
// RUN: pit-opt %s -split-input-file | pit-opt -split-input-file | FileCheck %s
// RUN: pit-opt %s -split-input-file -mlir-print-op-generic | pit-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @detect
// CHECK-SAME: (%[[A:.+]]: memref<128x256xf16>, %[[C:.+]]: memref<4xi32>, %[[P:.+]]: memref<4x256xi32>)
func.func @detect(%a: memref<128x256xf16>, %counts: memref<4xi32>,
                  %positions: memref<4x256xi32>) {
  // CHECK: pit.detect %[[A]] micro_tile [32, 1] axis 1 into %[[C]], %[[P]] : memref<128x256xf16>, memref<4xi32>, memref<4x256xi32>
  pit.detect %a micro_tile [32, 1] axis 1 into %counts, %positions
      : memref<128x256xf16>, memref<4xi32>, memref<4x256xi32>
  return
}

// -----

// A rank-3 operand (batch matmul, one pattern per batch): 2 x 128/32 segments.
// CHECK-LABEL: func @detect_batched
func.func @detect_batched(%a: memref<2x128x64xi8>, %counts: memref<8xi32>,
                          %positions: memref<8x64xi32>) {
  // CHECK: pit.detect %{{.+}} micro_tile [1, 32, 1] axis 2 into
  pit.detect %a micro_tile [1, 32, 1] axis 2 into %counts, %positions
      : memref<2x128x64xi8>, memref<8xi32>, memref<8x64xi32>
  return
}

// -----

// Dynamic extents are checked at run time, not by the verifier.
// CHECK-LABEL: func @detect_dynamic
func.func @detect_dynamic(%a: memref<?x64xf32>, %counts: memref<?xi32>,
                          %positions: memref<?x1xi32>) {
  // CHECK: pit.detect %{{.+}} micro_tile [1, 64] axis 0 into
  pit.detect %a micro_tile [1, 64] axis 0 into %counts, %positions
      : memref<?x64xf32>, memref<?xi32>, memref<?x1xi32>
  return
}

// -----

// A count of every 16th segment of 128 (8 counts); the last sample of 100
// segments every 16 is segment 96 (7 counts).
// CHECK-LABEL: func @count
// CHECK: pit.count %{{.+}} micro_tile [32, 1] axis 1 every 16 into %{{.+}} : memref<4096x4096xf16>, memref<8xi32>
// CHECK: pit.count %{{.+}} micro_tile [1, 64] axis 0 every 16 into %{{.+}} : memref<64x6400xf16>, memref<7xi32>
func.func @count(%a: memref<4096x4096xf16>, %counts: memref<8xi32>,
                 %b: memref<64x6400xf16>, %partial: memref<7xi32>) {
  pit.count %a micro_tile [32, 1] axis 1 every 16 into %counts
      : memref<4096x4096xf16>, memref<8xi32>
  pit.count %b micro_tile [1, 64] axis 0 every 16 into %partial
      : memref<64x6400xf16>, memref<7xi32>
  return
}

// -----

// C += A x B with A sparse in 32x1 micro-tiles gathered along k.
// CHECK-LABEL: func @stile_matmul_k
// CHECK-SAME: %[[A:[^:]+]]: memref<128x128xf16>, %[[B:[^:]+]]: memref<128x128xf16>, %[[C:[^:]+]]: memref<128x128xf32>, %[[CNT:[^:]+]]: memref<4xi32>, %[[POS:[^:]+]]: memref<4x128xi32>
func.func @stile_matmul_k(%a: memref<128x128xf16>, %b: memref<128x128xf16>,
                          %c: memref<128x128xf32>, %counts: memref<4xi32>,
                          %positions: memref<4x128xi32>) {
  // CHECK: pit.stile (%[[M:.+]], %[[N:.+]], %[[K:.+]]) segment(%[[S:.+]]) counts(%[[CNT]] : memref<4xi32>)
  // CHECK-SAME: domain [128, 128, 128] tile [32, 64, 32] micro_tile [32, 1] pit_axis 2
  // CHECK-SAME: sparse_map #{{.+}} {
  pit.stile (%m, %n, %k) segment(%s) counts(%counts : memref<4xi32>)
      domain [128, 128, 128] tile [32, 64, 32] micro_tile [32, 1] pit_axis 2
      sparse_map affine_map<(d0, d1, d2) -> (d0, d2)> {
    // CHECK: %[[TA:.+]] = memref.alloca
    %ta = memref.alloca() : memref<32x32xf16>
    %tb = memref.alloca() : memref<32x64xf16>
    %tc = memref.alloca() : memref<32x64xf32>
    %count32 = memref.load %counts[%s] : memref<4xi32>
    // CHECK: %[[CNT_I:.+]] = arith.index_cast
    %count = arith.index_cast %count32 : i32 to index
    // CHECK: pit.sread %[[A]][%[[M]], %[[K]]] into %[[TA]] gather %[[POS]][%[[S]]] count %[[CNT_I]] axis 1 micro 1 : memref<128x128xf16> to memref<32x32xf16>, memref<4x128xi32>
    pit.sread %a[%m, %k] into %ta gather %positions[%s] count %count axis 1 micro 1
        : memref<128x128xf16> to memref<32x32xf16>, memref<4x128xi32>
    // CHECK: pit.sread %[[B]][%[[K]], %[[N]]] into %{{.+}} gather %[[POS]][%[[S]]] count %[[CNT_I]] axis 0 micro 1
    pit.sread %b[%k, %n] into %tb gather %positions[%s] count %count axis 0 micro 1
        : memref<128x128xf16> to memref<32x64xf16>, memref<4x128xi32>
    linalg.matmul ins(%ta, %tb : memref<32x32xf16>, memref<32x64xf16>)
                  outs(%tc : memref<32x64xf32>)
    // CHECK: pit.swrite %{{.+}} into %[[C]][%[[M]], %[[N]]] combine <add> : memref<32x64xf32> to memref<128x128xf32>
    pit.swrite %tc into %c[%m, %n] combine <add>
        : memref<32x64xf32> to memref<128x128xf32>
    // CHECK-NOT: pit.yield
    // CHECK: }
  }
  return
}

// -----

// C = A x B with A sparse in whole rows (1x128 micro-tiles) gathered along m:
// rows are gathered, computed densely and scattered back, with no combiner.
// CHECK-LABEL: func @stile_matmul_m
func.func @stile_matmul_m(%a: memref<128x128xf32>, %b: memref<128x64xf32>,
                          %c: memref<128x64xf32>, %counts: memref<1xi32>,
                          %positions: memref<1x128xi32>,
                          %ta: memref<16x128xf32>, %tc: memref<16x64xf32>) {
  // CHECK: pit.stile ({{.+}}) segment({{.+}}) counts({{.+}} : memref<1xi32>) domain [128, 64, 128] tile [16, 64, 128] micro_tile [1, 128] pit_axis 0
  pit.stile (%m, %n, %k) segment(%s) counts(%counts : memref<1xi32>)
      domain [128, 64, 128] tile [16, 64, 128] micro_tile [1, 128] pit_axis 0
      sparse_map affine_map<(d0, d1, d2) -> (d0, d2)> {
    %c7 = arith.constant 7 : index
    // CHECK: pit.sread {{.+}} gather {{.+}} axis 0 micro 1 : memref<128x128xf32> to memref<16x128xf32>, memref<1x128xi32>
    pit.sread %a[%m, %k] into %ta gather %positions[%s] count %c7 axis 0 micro 1
        : memref<128x128xf32> to memref<16x128xf32>, memref<1x128xi32>
    // CHECK: pit.swrite {{.+}} scatter {{.+}} axis 0 micro 1 : memref<16x64xf32> to memref<128x64xf32>, memref<1x128xi32>
    pit.swrite %tc into %c[%m, %n] scatter %positions[%s] count %c7 axis 0 micro 1
        : memref<16x64xf32> to memref<128x64xf32>, memref<1x128xi32>
  }
  return
}

// -----

// A plain dense tile load and store: no index clause.
// CHECK-LABEL: func @dense_transfer
func.func @dense_transfer(%src: memref<64x64xi32>, %tile: memref<16x16xi32>,
                          %i: index, %j: index) {
  // CHECK: pit.sread %{{.+}}[%{{.+}}, %{{.+}}] into %{{.+}} : memref<64x64xi32> to memref<16x16xi32>
  pit.sread %src[%i, %j] into %tile : memref<64x64xi32> to memref<16x16xi32>
  // CHECK: pit.swrite %{{.+}} into %{{.+}}[%{{.+}}, %{{.+}}] combine <maxsi> : memref<16x16xi32> to memref<64x64xi32>
  pit.swrite %tile into %src[%i, %j] combine <maxsi> : memref<16x16xi32> to memref<64x64xi32>
  // CHECK: pit.swrite %{{.+}} into %{{.+}}[%{{.+}}, %{{.+}}] : memref<16x16xi32> to memref<64x64xi32>
  pit.swrite %tile into %src[%i, %j] : memref<16x16xi32> to memref<64x64xi32>
  return
}

// -----

// Run-time selection between two variants (sharing one index) and dense.
// CHECK-LABEL: func @select
func.func @select(%counts: memref<128xi32>) -> index {
  // CHECK: %{{.+}} = pit.select %{{.+}}, %{{.+}} capacities [4096, 4096] coverage [0.000000e+00, 1.000000e+00] latencies [array<f64: 1.000000e+00, 2.000000e+02>, array<f64: 2.000000e+00, 1.500000e+02>] dense 1.800000e+02 : memref<128xi32>, memref<128xi32>
  %variant = pit.select %counts, %counts capacities [4096, 4096] coverage [0.0, 1.0]
      latencies [array<f64: 1.0, 200.0>, array<f64: 2.0, 150.0>] dense 180.0
      : memref<128xi32>, memref<128xi32>
  return %variant : index
}

// Dense's latency by each variant's pattern.
// CHECK-LABEL: func @select_dense_by_pattern
func.func @select_dense_by_pattern(%counts: memref<128xi32>) -> index {
  // CHECK: pit.select {{.+}} dense 1.800000e+02 dense_latencies [array<f64: 3.000000e+01, 1.800000e+02>, array<f64: 1.500000e+02, 1.800000e+02>] : memref<128xi32>, memref<128xi32>
  %variant = pit.select %counts, %counts capacities [4096, 4096] coverage [0.0, 1.0]
      latencies [array<f64: 1.0, 200.0>, array<f64: 2.0, 150.0>] dense 180.0
      dense_latencies [array<f64: 30.0, 180.0>, array<f64: 150.0, 180.0>]
      : memref<128xi32>, memref<128xi32>
  return %variant : index
}
