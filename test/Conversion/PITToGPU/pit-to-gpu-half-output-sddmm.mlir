// An SDDMM whose C has the inputs' type (f16): the body's f16 arithmetic
// runs on the tensor cores in f32, and each masked sum is added into C
// widened and stored rounded, once.
// The input is what pit-sparsify and pit-gpu-strategy give
// (its configs included): the conversion runs alone.
// RUN: pit-opt %s --convert-pit-to-gpu=chip=sm_90a --pit-gpu-coalesce-allocations | FileCheck %s

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
#map = affine_map<(d0, d1, d2) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
module {
  func.func @sddmm(%arg0: memref<256x64xf16>, %arg1: memref<64x256xf16>, %arg2: memref<256x256xf16>, %arg3: memref<256x256xf16>) {
    %alloc = memref.alloc() : memref<8xi32>
    %alloc_0 = memref.alloc() : memref<8x256xi32>
    pit.detect %arg2 micro_tile [32, 1] axis 1 into %alloc, %alloc_0 : memref<256x256xf16>, memref<8xi32>, memref<8x256xi32>
    pit.stile (%arg4, %arg5, %arg6) segment(%arg7) counts(%alloc : memref<8xi32>) domain [256, 256, 64] tile [32, 32, 64] micro_tile [32, 1] pit_axis 1 sparse_map #map {
      %0 = memref.load %alloc[%arg7] : memref<8xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<32x64xf16>
      %alloca_1 = memref.alloca() : memref<64x32xf16>
      %alloca_2 = memref.alloca() : memref<32x32xf16>
      %alloca_3 = memref.alloca() : memref<32x32xf16>
      pit.sread %arg0[%arg4, %arg6] into %alloca : memref<256x64xf16> to memref<32x64xf16>
      pit.sread %arg1[%arg6, %arg5] into %alloca_1 gather %alloc_0[%arg7] count %1 axis 1 micro 1 : memref<64x256xf16> to memref<64x32xf16>, memref<8x256xi32>
      pit.sread %arg2[%arg4, %arg5] into %alloca_2 gather %alloc_0[%arg7] count %1 axis 1 micro 1 : memref<256x256xf16> to memref<32x32xf16>, memref<8x256xi32>
      %cst = arith.constant 0.000000e+00 : f16
      linalg.fill ins(%cst : f16) outs(%alloca_3 : memref<32x32xf16>)
      linalg.generic {indexing_maps = [#map1, #map2, #map, #map], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1, %alloca_2 : memref<32x64xf16>, memref<64x32xf16>, memref<32x32xf16>) outs(%alloca_3 : memref<32x32xf16>) {
      ^bb0(%in: f16, %in_4: f16, %in_5: f16, %out: f16):
        %2 = arith.mulf %in, %in_4 : f16
        %3 = arith.mulf %2, %in_5 : f16
        %4 = arith.addf %out, %3 : f16
        linalg.yield %4 : f16
      }
      pit.swrite %alloca_3 into %arg3[%arg4, %arg5] scatter %alloc_0[%arg7] count %1 axis 1 micro 1 combine <add> : memref<32x32xf16> to memref<256x256xf16>, memref<8x256xi32>
    }
    memref.dealloc %alloc_0 : memref<8x256xi32>
    memref.dealloc %alloc : memref<8xi32>
    return
  }
}
