// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../Inputs/latency-table.json" -verify-diagnostics | FileCheck %s
// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../Inputs/latency-table.json" --convert-pit-to-gpu --pit-gpu-coalesce-allocations 2>/dev/null | FileCheck %s --check-prefix=GPU
// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../Inputs/latency-table.json variant=2" 2>/dev/null | FileCheck %s --check-prefix=FORCED

// Variants of one micro-tile that name their dense tile: they share one
// count and one detection, which runs where either is chosen, and their
// STiles keep the tile they were measured with. A tile
// that does not fit the op is left out with the reason; so is a variant
// never more than 5% and 3 us cheaper than dense and the variants kept (its kernel
// would launch on every call): here 32x64x64, within 2% of 32x128x64
// everywhere, and the untiled one, which dense always beats.
// CHECK-LABEL: func @matmul
// CHECK: pit.count %{{.+}} micro_tile [32, 1] axis 1 every 1 into %[[SAMPLE:[^ ]+]] :
// CHECK-NOT: pit.count
// CHECK: %[[CHOICE:.+]] = pit.select %[[SAMPLE]], %[[SAMPLE]] capacities [256, 256]
// CHECK-SAME: latencies [array<f64: 1.000000e+02, 6.000000e+02, 1.200000e+03>, array<f64: 1.200000e+02, 5.000000e+02, 1.100000e+03>]
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[CHOICE]], %c0
// CHECK: %[[SECOND:.+]] = arith.cmpi eq, %[[CHOICE]], %c1
// CHECK: %[[EITHER:.+]] = arith.ori %[[FIRST]], %[[SECOND]]
// CHECK-NEXT: scf.if %[[EITHER]] {
// CHECK-NEXT: pit.detect %{{.+}} micro_tile [32, 1] axis 1 into %[[INDEX:[^,]+]],
// CHECK-NOT: pit.detect
// CHECK: scf.index_switch %[[CHOICE]]
// CHECK: case 0 {
// CHECK: pit.stile {{.*}} counts(%[[INDEX]] : {{.*}} tile [32, 128, 64] micro_tile [32, 1] pit_axis 2 {{.*}} attributes {keep_tile}
// CHECK: case 1 {
// CHECK: pit.stile {{.*}} tile [32, 64, 32] micro_tile [32, 1] pit_axis 2 {{.*}} attributes {keep_tile}
// CHECK: default {
// CHECK-NEXT: linalg.matmul

// The tensor-core lowering runs the kept tiles as they are: 128 and 64
// columns of C a block (not the 256 of mma-block-columns), chunks of 64 and
// 32 of k (A's 32x1 micro-tiles come k-major from the compacted copy). Both
// read the one compacted copy that their shared detection writes.
// GPU: memref.view {{.+}} to memref<8x256x32xf16>
// GPU-NOT: memref.view {{.+}} to memref<8x256x32xf16>
// GPU: gpu.launch {{.+}} workgroup(%{{.+}} : memref<2x64x32xf16, #gpu.address_space<workgroup>>, %{{.+}} : memref<2x64x128xf16, #gpu.address_space<workgroup>>)
// GPU: gpu.launch {{.+}} workgroup(%{{.+}} : memref<2x32x32xf16, #gpu.address_space<workgroup>>, %{{.+}} : memref<2x32x64xf16, #gpu.address_space<workgroup>>)

// Forced to a variant, the variants that fit count in the table's order
// (here its third, which selection would drop), and none is dropped. It
// runs alone, as a fixed rule does: its detection, then its STile, with no
// switch (the GPU lowering then gives its buffers the call's one
// allocation, cleared by the call's first memset).
// FORCED-NOT: scf.index_switch
// FORCED: pit.detect
// FORCED-NOT: scf.index_switch
// FORCED: pit.stile {{.*}} tile [32, 64, 64] micro_tile [32, 1]
// FORCED-NOT: scf.index_switch
func.func @matmul(%a: memref<256x256xf16>, %b: memref<256x512xf16>, %c: memref<256x512xf32>) {
  // expected-remark @+5 {{pit-sparsify: variant 3 of the latency table left out: tile extent 16 of loop 0 is not its micro-tile extent 32}}
  // expected-remark @+4 {{pit-sparsify: variant 4 of the latency table left out: tile extent 96 of loop 1 does not divide its extent 512}}
  // expected-remark @+3 {{pit-sparsify: variant (32x1 along loop 2, tile 32x64x64) left out: never more than 5% and 3 us cheaper than dense and the variants kept}}
  // expected-remark @+2 {{pit-sparsify: variant (32x1 along loop 2, default tile 32x64x32) left out: never more than 5% and 3 us cheaper than dense and the variants kept}}
  // expected-remark @+1 {{pit-sparsify: chooses at run time among variant 0 (32x1 along loop 2, tile 32x128x64), variant 1 (32x1 along loop 2, tile 32x64x32) and dense (2)}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<256x256xf16>, memref<256x512xf16>) outs(%c : memref<256x512xf32>)
  return
}

