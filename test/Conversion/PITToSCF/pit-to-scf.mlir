// RUN: pit-opt %s -split-input-file --convert-pit-to-scf | FileCheck %s

// CHECK-LABEL: func @detect
// CHECK-SAME: (%[[A:.+]]: memref<64x8xf32>, %[[COUNTS:.+]]: memref<2xi32>, %[[POS:.+]]: memref<2x8xi32>)
// Every count starts at zero.
// CHECK: scf.for %[[S:.+]] =
// CHECK:   memref.store %{{.+}}, %[[COUNTS]][%[[S]]]
// The grid of micro-tiles; candidates are walked in descending order.
// CHECK: scf.for %[[G0:.+]] =
// CHECK:   scf.for %[[G1:.+]] =
// CHECK:     %[[LAST:.+]] = arith.subi %{{.+}}, %{{.+}} : index
// CHECK:     %[[J:.+]] = arith.subi %[[LAST]], %[[G1]] : index
// One micro-tile's elements, or-reduced into "any non-zero".
// CHECK:     %[[ANY:.+]] = scf.for {{.+}} iter_args(%{{.+}} = %false) -> (i1)
// CHECK:       scf.for {{.+}} -> (i1)
// CHECK:         memref.load %[[A]]
// CHECK:         arith.cmpf une
// CHECK:         arith.ori
// CHECK:     scf.if %[[ANY]] {
// CHECK:       %[[C:.+]] = memref.load %[[COUNTS]]
// CHECK:       memref.store %{{.+}}, %[[POS]]
// CHECK:       arith.addi %[[C]]
// CHECK:       memref.store %{{.+}}, %[[COUNTS]]
// CHECK-NOT: pit.detect
func.func @detect(%a: memref<64x8xf32>, %counts: memref<2xi32>, %positions: memref<2x8xi32>) {
  pit.detect %a micro_tile [32, 1] axis 1 into %counts, %positions
      : memref<64x8xf32>, memref<2xi32>, memref<2x8xi32>
  return
}

// -----

// A count of every 4th segment: the sampled segments' micro-tiles only,
// into counts[i] for segment 4 i, and no positions.
// CHECK-LABEL: func @count
// CHECK-SAME: (%[[A:.+]]: memref<256x8xf32>, %[[COUNTS:.+]]: memref<2xi32>)
// CHECK: scf.for %[[S:.+]] =
// CHECK:   memref.store %{{.+}}, %[[COUNTS]][%[[S]]]
// CHECK: scf.for %[[I:.+]] =
// CHECK:   scf.for %[[P:.+]] =
// CHECK:     %[[SEGMENT:.+]] = arith.muli %[[I]], %c4
// CHECK:     arith.remui %[[SEGMENT]]
// CHECK:     scf.if
// CHECK:       %[[C:.+]] = memref.load %[[COUNTS]][%[[I]]]
// CHECK-NOT:   memref.store %{{.+}}, %{{.+}}[%[[SEGMENT]]
// CHECK:       %[[NEXT:.+]] = arith.addi %[[C]]
// CHECK-NEXT:  memref.store %[[NEXT]], %[[COUNTS]][%[[I]]]
// CHECK-NOT: pit.count
func.func @count(%a: memref<256x8xf32>, %counts: memref<2xi32>) {
  pit.count %a micro_tile [32, 1] axis 1 every 4 into %counts
      : memref<256x8xf32>, memref<2xi32>
  return
}

// -----

// CHECK-LABEL: func @stile
// The tile buffers are allocated once, before the loops.
// CHECK: %[[TA:.+]] = memref.alloca() : memref<32x32xf32>
// CHECK: %[[TC:.+]] = memref.alloca() : memref<32x16xf32>
// One loop over the segments, reading each one's count ...
// CHECK: scf.for %[[S:.+]] = %{{.+}} to %c2
// CHECK:   %[[CNT32:.+]] = memref.load %{{.+}}[%[[S]]] : memref<2xi32>
// CHECK:   %[[CNT:.+]] = arith.index_cast %[[CNT32]]
// ... whose coordinate gives the origin along m.
// CHECK:   %[[M:.+]] = arith.muli %{{.+}}, %c32
// ... then the tiles of n, and of the compacted k.
// CHECK:   %[[KEND:.+]] = arith.muli %[[CNT]], %c1{{.*}} : index
// CHECK:   scf.for %[[N:.+]] = %{{.+}} to %c16{{.*}} step %c16
// CHECK:     scf.for %[[K:.+]] = %{{.+}} to %[[KEND]] step %c32{{.*}} {
// The gathered read: padding past the count reads as zero.
// CHECK:       %[[SLOT:.+]] = arith.divui
// CHECK:       %[[VALID:.+]] = arith.cmpi ult, %[[SLOT]], %{{.+}} : index
// CHECK:       scf.if %[[VALID]] -> (f32) {
// CHECK:         memref.load %{{.+}}[%[[S]], %[[SLOT]]] : memref<2x64xi32>
// CHECK:       } else {
// CHECK:         %[[ZERO:.+]] = arith.constant 0.0
// CHECK:         scf.yield %[[ZERO]]
// The combined write.
// CHECK:       memref.load %[[TC]]
// CHECK:       %[[OLD:.+]] = memref.load %{{.+}} : memref<64x16xf32>
// CHECK:       arith.addf %[[OLD]]
// CHECK-NOT: pit.
func.func @stile(%a: memref<64x64xf32>, %c: memref<64x16xf32>,
                 %counts: memref<2xi32>, %positions: memref<2x64xi32>) {
  pit.stile (%m, %n, %k) segment(%s) counts(%counts : memref<2xi32>)
      domain [64, 16, 64] tile [32, 16, 32] micro_tile [32, 1] pit_axis 2
      sparse_map affine_map<(m, n, k) -> (m, k)> {
    %ta = memref.alloca() : memref<32x32xf32>
    %tc = memref.alloca() : memref<32x16xf32>
    %count32 = memref.load %counts[%s] : memref<2xi32>
    %count = arith.index_cast %count32 : i32 to index
    pit.sread %a[%m, %k] into %ta gather %positions[%s] count %count axis 1 micro 1
        : memref<64x64xf32> to memref<32x32xf32>, memref<2x64xi32>
    pit.swrite %tc into %c[%m, %n] combine <add> : memref<32x16xf32> to memref<64x16xf32>
  }
  return
}

// -----

// A scattered write skips the padding and writes at the gathered position.
// CHECK-LABEL: func @scatter
// CHECK: scf.for
// CHECK:   scf.for
// CHECK:     %[[V:.+]] = memref.load %{{.+}} : memref<4x8xi32>
// CHECK:     %[[VALID:.+]] = arith.cmpi ult
// CHECK:     scf.if %[[VALID]] {
// CHECK:       %[[P:.+]] = memref.load %{{.+}} : memref<1x16xi32>
// CHECK:       %[[OLD:.+]] = memref.load
// CHECK:       %[[NEW:.+]] = arith.maxsi %[[OLD]], %[[V]]
// CHECK:       memref.store %[[NEW]]
// CHECK-NOT: else
func.func @scatter(%tile: memref<4x8xi32>, %dest: memref<16x8xi32>, %positions: memref<1x16xi32>,
                   %s: index, %count: index, %i: index, %j: index) {
  pit.swrite %tile into %dest[%i, %j] scatter %positions[%s] count %count axis 0 micro 1
      combine <maxsi> : memref<4x8xi32> to memref<16x8xi32>, memref<1x16xi32>
  return
}
