// RUN: pit-opt %s -split-input-file --pit-sparsify | FileCheck %s
// RUN: pit-opt %s -split-input-file --pit-sparsify="pit-loop=0" | FileCheck %s --check-prefix=ALONG-M

// A sparse in 32x1 micro-tiles: detect, then gather along k; the output tile
// starts at zero and is added into C.
// CHECK-LABEL: func @matmul
// CHECK-SAME: (%[[A:.+]]: memref<128x256xf32>, %[[B:.+]]: memref<256x64xf32>, %[[C:.+]]: memref<128x64xf32>)
// CHECK: %[[COUNTS:.+]] = memref.alloc() : memref<4xi32>
// CHECK: %[[POS:.+]] = memref.alloc() : memref<4x256xi32>
// CHECK: pit.detect %[[A]] micro_tile [32, 1] axis 1 into %[[COUNTS]], %[[POS]]
// CHECK: pit.stile (%[[M:.+]], %[[N:.+]], %[[K:.+]]) segment(%[[S:.+]]) counts(%[[COUNTS]] : memref<4xi32>) domain [128, 64, 256] tile [32, 64, 32] micro_tile [32, 1] pit_axis 2
// CHECK:   %[[CNT32:.+]] = memref.load %[[COUNTS]][%[[S]]]
// CHECK:   %[[CNT:.+]] = arith.index_cast %[[CNT32]]
// CHECK:   %[[TA:.+]] = memref.alloca() : memref<32x32xf32>
// CHECK:   %[[TB:.+]] = memref.alloca() : memref<32x64xf32>
// CHECK:   %[[TC:.+]] = memref.alloca() : memref<32x64xf32>
// CHECK:   pit.sread %[[A]][%[[M]], %[[K]]] into %[[TA]] gather %[[POS]][%[[S]]] count %[[CNT]] axis 1 micro 1
// CHECK:   pit.sread %[[B]][%[[K]], %[[N]]] into %[[TB]] gather %[[POS]][%[[S]]] count %[[CNT]] axis 0 micro 1
// CHECK:   linalg.fill ins(%{{.+}} : f32) outs(%[[TC]] : memref<32x64xf32>)
// CHECK:   linalg.generic {{.*}} ins(%[[TA]], %[[TB]] : {{.*}}) outs(%[[TC]] : memref<32x64xf32>)
// CHECK:     arith.mulf
// CHECK:     arith.addf
// CHECK:   pit.swrite %[[TC]] into %[[C]][%[[M]], %[[N]]] combine <add>
// CHECK: memref.dealloc %[[POS]]
// CHECK: memref.dealloc %[[COUNTS]]
// CHECK-NOT: linalg.matmul

// Along m instead: A's rows are gathered, and the result scattered back.
// ALONG-M-LABEL: func @matmul
// ALONG-M: pit.detect %{{.+}} micro_tile [32, 1] axis 0 into %{{.+}}, %{{.+}} : memref<128x256xf32>, memref<256xi32>, memref<256x4xi32>
// ALONG-M: pit.stile {{.+}} tile [32, 64, 1] micro_tile [32, 1] pit_axis 0
// ALONG-M:   pit.sread %{{.+}} gather {{.+}} axis 0 micro 32
// ALONG-M:   pit.sread %{{.+}} into %{{.+}} : memref<256x64xf32> to memref<1x64xf32>
// ALONG-M:   pit.swrite {{.+}} scatter {{.+}} axis 0 micro 32 combine <add>
func.func @matmul(%a: memref<128x256xf32>, %b: memref<256x64xf32>, %c: memref<128x64xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<128x256xf32>, memref<256x64xf32>) outs(%c : memref<128x64xf32>)
  return
}

// -----

// An elementwise product is zero outside the non-zero micro-tiles: the
// output is cleared, then each gathered tile is computed and scattered.
// CHECK-LABEL: func @elementwise_mul
// CHECK: pit.detect
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%[[OUT:.+]] : memref<128x64xf32>)
// CHECK: pit.stile
// CHECK:   pit.sread %[[OUT]]{{.+}} gather
// CHECK:   linalg.generic
// CHECK:   pit.swrite %{{.+}} into %[[OUT]]{{.+}} scatter %{{.+}} axis 0 micro 1 : memref<32x64xf32> to memref<128x64xf32>, memref<1x128xi32>
// ALONG-M-LABEL: func @elementwise_mul
func.func @elementwise_mul(%a: memref<128x64xf32>, %b: memref<128x64xf32>, %c: memref<128x64xf32>) {
  linalg.mul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x64]>}
      ins(%a, %b : memref<128x64xf32>, memref<128x64xf32>) outs(%c : memref<128x64xf32>)
  return
}

// -----

// SDDMM: the mask is sparse; the reduction loop k is tiled densely, and the
// tiles are scattered back and added.
// CHECK-LABEL: func @sddmm
// CHECK: pit.detect %{{.+}} micro_tile [32, 1] axis 1
// CHECK: pit.stile {{.+}} domain [128, 128, 64] tile [32, 32, 64] micro_tile [32, 1] pit_axis 1
// CHECK:   pit.swrite {{.+}} scatter {{.+}} axis 1 micro 1 combine <add>
// ALONG-M-LABEL: func @sddmm
func.func @sddmm(%a: memref<128x64xf32>, %b: memref<64x128xf32>, %mask: memref<128x128xf32>,
                 %c: memref<128x128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                   affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b, %mask : memref<128x64xf32>, memref<64x128xf32>, memref<128x128xf32>)
      outs(%c : memref<128x128xf32>)
      attrs = {pit.sparse = #pit.sparse<operand = 2, micro_tiles = [32x1]>} {
  ^bb0(%x: f32, %y: f32, %m: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %q = arith.mulf %p, %m : f32
    %s = arith.addf %acc, %q : f32
    linalg.yield %s : f32
  }
  return
}
