// Single-column micro-tiles taller than 32 rows (64x1, 128x1): the
// detection splits a band's vector column among 8 or 16 lanes (a vector's
// worth of rows each, as for 32x1's 4) and writes the compacted copy of A
// (segments x k x rows), which the STile copies into its shared tile
// stored k by k. With chunks of 64 on sm_90a, 64 rows multiply with wgmma
// reading that tile m-major (A's layout "col": transposed); 128 rows keep
// mma.sync, with chunks of 64 too (that tile's rows hold all 128 rows, not
// wgmma's blocks of 64) and with the default chunks of 32, its A fragments
// from transposed ldmatrix.
// RUN: pit-opt %s --pit-sparsify="pit-loop=2" --pit-gpu-strategy="chip=sm_90a mma-chunk=64" --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations | FileCheck %s
// RUN: pit-opt %s --pit-sparsify="pit-loop=2" --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations | FileCheck %s --check-prefix=TALL

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
func.func @column_micro_tiles(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [64x1]>}
      ins(%a, %b : memref<256x256xf16>, memref<256x256xf16>) outs(%c : memref<256x256xf32>)
  return
}

// TALL-LABEL: func.func @tall_column_micro_tiles
// TALL:   %[[COPY:.+]] = memref.view {{.+}} to memref<2x256x128xf16>
// TALL:   gpu.launch
// TALL:     vector.store {{.+}}, %[[COPY]][{{.+}}] {alignment = 16 : i64} : memref<2x256x128xf16>, vector<8xf16>
// TALL:   gpu.launch {{.+}} workgroup(%[[TILE_A:.+]] : memref<2x32x128xf16, #gpu.address_space<workgroup>>
// TALL:     nvgpu.device_async_copy %[[COPY]][{{.+}}], %[[TILE_A]][{{.+}}], 8
// TALL:     nvgpu.ldmatrix %[[TILE_A]][{{.+}}] {numTiles = 4 : i32, transpose = true}
// TALL-NOT: wgmma
func.func @tall_column_micro_tiles(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [128x1]>}
      ins(%a, %b : memref<256x256xf16>, memref<256x256xf16>) outs(%c : memref<256x256xf32>)
  return
}
