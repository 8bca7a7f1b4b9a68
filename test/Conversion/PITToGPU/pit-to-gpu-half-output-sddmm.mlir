// An SDDMM whose C has the inputs' type (f16): the body's f16 arithmetic
// runs on the tensor cores in f32, and each masked sum is added into C
// widened and stored rounded, once.
// RUN: pit-opt %s --pit-sparsify --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations | FileCheck %s

// CHECK-LABEL: func @sddmm
// CHECK: %[[WEIGHT:.+]] = memref.load %arg2[{{.+}}] : memref<256x256xf16>
// CHECK: nvgpu.mma.sync({{.+}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK: %[[OLD:.+]] = memref.load %arg3[{{.+}}] : memref<256x256xf16>
// CHECK: %[[WIDE_WEIGHT:.+]] = arith.extf %[[WEIGHT]] : f16 to f32
// CHECK-NEXT: %[[SCALED:.+]] = arith.mulf %{{.+}}, %[[WIDE_WEIGHT]] : f32
// CHECK-NEXT: %[[WIDE:.+]] = arith.extf %[[OLD]] : f16 to f32
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[WIDE]], %[[SCALED]] : f32
// CHECK-NEXT: %[[ROUNDED:.+]] = arith.truncf %[[SUM]] : f32 to f16
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[ROUNDED]], %arg3[{{.+}}] : memref<256x256xf16>
func.func @sddmm(%a: memref<256x64xf16>, %b: memref<64x256xf16>, %mask: memref<256x256xf16>, %c: memref<256x256xf16>) {
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
