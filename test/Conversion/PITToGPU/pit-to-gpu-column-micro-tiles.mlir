// Single-column micro-tiles taller than 32 rows (64x1, 128x1): the
// detection splits a band's vector column among 8 or 16 lanes (a vector's
// worth of rows each, as for 32x1's 4) and writes the compacted copy of A
// (segments x k x rows), which the STile copies into its shared tile
// stored k by k. With chunks of 64 on sm_90a, 64 rows multiply with wgmma
// reading that tile m-major (A's layout "col": transposed); 128 rows keep
// mma.sync, with chunks of 64 too (that tile's rows hold all 128 rows, not
// wgmma's blocks of 64) and with the default chunks of 32, its A fragments
// from transposed ldmatrix.
// The input is what pit-sparsify gives (pit IR):
// each run starts at the strategy or the conversion.
// RUN: pit-opt %s --pit-gpu-strategy="chip=sm_90a mma-chunk=64" --convert-pit-to-gpu=chip=sm_90a --pit-gpu-coalesce-allocations | FileCheck %s
// RUN: pit-opt %s --convert-pit-to-gpu=chip=sm_90a --pit-gpu-coalesce-allocations | FileCheck %s --check-prefix=TALL

// CHECK-LABEL: func.func @column_micro_tiles
// CHECK:   %[[COPY:.+]] = memref.view {{.+}} to memref<4x256x64xf16>
// CHECK:   gpu.launch
// CHECK:     vector.store {{.+}}, %[[COPY]][{{.+}}] {alignment = 16 : i64} : memref<4x256x64xf16>, vector<8xf16>
// CHECK:   gpu.launch {{.+}} dynamic_shared_memory_size
// CHECK:     %[[TILE_A:.+]] = memref.view {{.+}} to memref<4x64x64xf16, #gpu.address_space<workgroup>>
// CHECK:     nvgpu.device_async_copy %[[COPY]][{{.+}}], %[[TILE_A]][{{.+}}], 8
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.+}} <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <col>], B[<f16>, <one>, <row>]
// CHECK-LABEL: func.func @tall_column_micro_tiles
// CHECK-NOT: wgmma
// CHECK: memref.view {{.+}} to memref<2x64x128xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: wgmma
// CHECK: nvgpu.mma.sync
// CHECK-NOT: wgmma
// TALL-LABEL: func.func @tall_column_micro_tiles
// TALL:   %[[COPY:.+]] = memref.view {{.+}} to memref<2x256x128xf16>
// TALL:   gpu.launch
// TALL:     vector.store {{.+}}, %[[COPY]][{{.+}}] {alignment = 16 : i64} : memref<2x256x128xf16>, vector<8xf16>
// TALL:   gpu.launch {{.+}} workgroup(%[[TILE_A:.+]] : memref<2x32x128xf16, #gpu.address_space<workgroup>>
// TALL:     nvgpu.device_async_copy %[[COPY]][{{.+}}], %[[TILE_A]][{{.+}}], 8
// TALL:     nvgpu.ldmatrix %[[TILE_A]][{{.+}}] {numTiles = 4 : i32, transpose = true}
// TALL-NOT: wgmma

#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @column_micro_tiles(%arg0: memref<256x256xf16>, %arg1: memref<256x256xf16>, %arg2: memref<256x256xf32>) {
    %alloc = memref.alloc() : memref<4xi32>
    %alloc_0 = memref.alloc() : memref<4x256xi32>
    pit.detect %arg0 micro_tile [64, 1] axis 1 into %alloc, %alloc_0 : memref<256x256xf16>, memref<4xi32>, memref<4x256xi32>
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<4xi32>) domain [256, 256, 256] tile [64, 64, 32] micro_tile [64, 1] pit_axis 2 sparse_map #map {
      %0 = memref.load %alloc[%arg6] : memref<4xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<64x32xf16>
      %alloca_1 = memref.alloca() : memref<32x64xf16>
      %alloca_2 = memref.alloca() : memref<64x64xf32>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %1 axis 1 micro 1 : memref<256x256xf16> to memref<64x32xf16>, memref<4x256xi32>
      pit.sread %arg1[%arg5, %arg4] into %alloca_1 gather %alloc_0[%arg6] count %1 axis 0 micro 1 : memref<256x256xf16> to memref<32x64xf16>, memref<4x256xi32>
      %cst = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst : f32) outs(%alloca_2 : memref<64x64xf32>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1 : memref<64x32xf16>, memref<32x64xf16>) outs(%alloca_2 : memref<64x64xf32>) {
      ^bb0(%in: f16, %in_3: f16, %out: f32):
        %2 = arith.extf %in : f16 to f32
        %3 = arith.extf %in_3 : f16 to f32
        %4 = arith.mulf %2, %3 : f32
        %5 = arith.addf %out, %4 : f32
        linalg.yield %5 : f32
      }
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] combine <add> : memref<64x64xf32> to memref<256x256xf32>
    }
    memref.dealloc %alloc_0 : memref<4x256xi32>
    memref.dealloc %alloc : memref<4xi32>
    return
  }
  func.func @tall_column_micro_tiles(%arg0: memref<256x256xf16>, %arg1: memref<256x256xf16>, %arg2: memref<256x256xf32>) {
    %alloc = memref.alloc() : memref<2xi32>
    %alloc_0 = memref.alloc() : memref<2x256xi32>
    pit.detect %arg0 micro_tile [128, 1] axis 1 into %alloc, %alloc_0 : memref<256x256xf16>, memref<2xi32>, memref<2x256xi32>
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<2xi32>) domain [256, 256, 256] tile [128, 64, 32] micro_tile [128, 1] pit_axis 2 sparse_map #map {
      %0 = memref.load %alloc[%arg6] : memref<2xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<128x32xf16>
      %alloca_1 = memref.alloca() : memref<32x64xf16>
      %alloca_2 = memref.alloca() : memref<128x64xf32>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %1 axis 1 micro 1 : memref<256x256xf16> to memref<128x32xf16>, memref<2x256xi32>
      pit.sread %arg1[%arg5, %arg4] into %alloca_1 gather %alloc_0[%arg6] count %1 axis 0 micro 1 : memref<256x256xf16> to memref<32x64xf16>, memref<2x256xi32>
      %cst = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst : f32) outs(%alloca_2 : memref<128x64xf32>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1 : memref<128x32xf16>, memref<32x64xf16>) outs(%alloca_2 : memref<128x64xf32>) {
      ^bb0(%in: f16, %in_3: f16, %out: f32):
        %2 = arith.extf %in : f16 to f32
        %3 = arith.extf %in_3 : f16 to f32
        %4 = arith.mulf %2, %3 : f32
        %5 = arith.addf %out, %4 : f32
        linalg.yield %5 : f32
      }
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] combine <add> : memref<128x64xf32> to memref<256x256xf32>
    }
    memref.dealloc %alloc_0 : memref<2x256xi32>
    memref.dealloc %alloc : memref<2xi32>
    return
  }
}
