// pit-sparsify's run-time selection for an SDDMM (the lit tests' table,
// which has dense's latency on the STile's patterns too): the STile and the
// dense SDDMM, each a case of the switch on the choice.
// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../Inputs/latency-table.json" 2>/dev/null | FileCheck %s

// CHECK-LABEL: func @sddmm_selected
// CHECK: pit.select {{.+}} dense 4.000000e+01 dense_latencies [array<f64: 3.600000e+01, 3.800000e+01, 4.000000e+01>]
// CHECK: scf.index_switch
// CHECK: pit.stile
// CHECK: default {
// CHECK-NEXT: linalg.generic
func.func @sddmm_selected(%a: memref<256x64xf16>, %b: memref<64x256xf16>, %mask: memref<256x256xf16>, %c: memref<256x256xf16>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b, %mask : memref<256x64xf16>, memref<64x256xf16>, memref<256x256xf16>)
      outs(%c : memref<256x256xf16>)
      attrs = {pit.sparse = #pit.sparse<operand = 2, micro_tiles = [32x1]>} {
  ^bb0(%x: f16, %y: f16, %w: f16, %acc: f16):
    %p = arith.mulf %x, %y : f16
    %q = arith.mulf %p, %w : f16
    %s = arith.addf %acc, %q : f16
    linalg.yield %s : f16
  }
  return
}
