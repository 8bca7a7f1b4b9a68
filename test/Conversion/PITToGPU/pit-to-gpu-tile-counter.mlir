// The input is what pit-sparsify and pit-gpu-strategy give
// (its configs included): the conversion runs alone.
// RUN: pit-opt %s --convert-pit-to-gpu=chip=sm_90a --pit-gpu-coalesce-allocations | FileCheck %s

// An STile with more tiles than a tensor-core kernel launches blocks
// (4096: 256 segments of 16 rows x 16 tiles of 256 columns) takes them in
// turn from a counter: the call's one memset clears it with the index's
// counts (it is a view of the call's allocation too); the grid is as many
// blocks as the multiprocessors hold, by shared memory (two stages of
// 16x32 A and 32x256 B, 17 KiB each, and 1 KiB the driver keeps: 6 in
// 228 KiB) and threads (16);
// each block starts at its own tile, and thread 0 takes the next one from
// the counter (plus the grid) as the tile starts, hands it over in shared
// memory (two slots, in turn) after the tile, behind a barrier.
// CHECK-LABEL: func.func @many_tiles
// CHECK: %[[SMS:.+]] = call @pitCudaMultiprocessorCount() : () -> i64
// CHECK-NEXT: %[[PER_SM:.+]] = arith.index_cast %[[SMS]] : i64 to index
// CHECK: %[[ARENA:.+]] = gpu.alloc  () : memref<{{[0-9]+}}xi8>
// CHECK: %[[COUNTER:.+]] = memref.view %[[ARENA]][%{{.+}}][] : memref<{{[0-9]+}}xi8> to memref<1xi32>
// CHECK: gpu.memset
// CHECK: gpu.launch
// CHECK: %[[HELD:.+]] = arith.muli %[[PER_SM]], %c6 : index
// CHECK: %[[GRID:.+]] = arith.minui %c4096, %[[HELD]] : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{.+}} = %[[GRID]], {{.*}} workgroup({{.*}}, %[[SLOTS:.+]] : memref<2xi32, #gpu.address_space<workgroup>>)
// CHECK: scf.while (%[[TILE:.+]] = %{{.+}}, %[[SLOT:.+]] = %c0{{.*}}) : (index, index) -> (index, index)
// CHECK: arith.cmpi ult, %[[TILE]], %c4096
// CHECK: } do {
// CHECK: %[[TAKEN:.+]] = scf.if
// CHECK: memref.atomic_rmw addi %{{.+}}, %[[COUNTER]][%{{.+}}] : (i32, memref<1xi32>) -> i32
// CHECK: mma.sync
// CHECK: arith.addi %[[TAKEN]], %{{.+}} : i32
// CHECK: memref.store %{{.+}}, %[[SLOTS]][%{{.+}}] : memref<2xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.load %[[SLOTS]][%{{.+}}] : memref<2xi32, #gpu.address_space<workgroup>>
// CHECK: scf.yield
// An STile whose tiles are no more than the blocks it may launch (2048) keeps
// a block a tile, launched by the hardware's scheduler as blocks finish: no
// counter. The tiles go n tile by n tile: block b takes segment b mod 128
// and the columns from (b / 128) x 256, so that the blocks running at once
// share B's columns.
// CHECK-LABEL: func.func @block_a_tile
// CHECK-NOT: scf.while
// CHECK: gpu.launch blocks(%[[BLOCK:[^,]+]], {{.*}}) in (%{{.+}} = %c2048
// CHECK: %[[SEGMENT:.+]] = arith.remui %[[BLOCK]], %c128{{.*}} : index
// CHECK: %[[NTILE:.+]] = arith.divui %[[BLOCK]], %c128{{.*}} : index
// CHECK: arith.muli %[[NTILE]], %c256 : index
// CHECK: memref.load %{{.+}}[%[[SEGMENT]]] : memref<128xi32>
// CHECK-NOT: memref<2xi32, #gpu.address_space<workgroup>>
// CHECK: return

#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @many_tiles(%arg0: memref<4096x256xf16>, %arg1: memref<256x4096xf16>, %arg2: memref<4096x4096xf32>) {
    %alloc = memref.alloc() : memref<256xi32>
    %alloc_0 = memref.alloc() : memref<256x16xi32>
    pit.detect %arg0 micro_tile [16, 16] axis 1 into %alloc, %alloc_0 : memref<4096x256xf16>, memref<256xi32>, memref<256x16xi32>
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<256xi32>) domain [4096, 4096, 256] tile [16, 64, 32] micro_tile [16, 16] pit_axis 2 sparse_map #map attributes {pit.mma_config = #pit.mma_config<block = [16, 256, 32], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 2>} {
      %0 = memref.load %alloc[%arg6] : memref<256xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<16x32xf16>
      %alloca_1 = memref.alloca() : memref<32x64xf16>
      %alloca_2 = memref.alloca() : memref<16x64xf32>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %1 axis 1 micro 16 : memref<4096x256xf16> to memref<16x32xf16>, memref<256x16xi32>
      pit.sread %arg1[%arg5, %arg4] into %alloca_1 gather %alloc_0[%arg6] count %1 axis 0 micro 16 : memref<256x4096xf16> to memref<32x64xf16>, memref<256x16xi32>
      %cst = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst : f32) outs(%alloca_2 : memref<16x64xf32>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1 : memref<16x32xf16>, memref<32x64xf16>) outs(%alloca_2 : memref<16x64xf32>) {
      ^bb0(%in: f16, %in_3: f16, %out: f32):
        %2 = arith.extf %in : f16 to f32
        %3 = arith.extf %in_3 : f16 to f32
        %4 = arith.mulf %2, %3 : f32
        %5 = arith.addf %out, %4 : f32
        linalg.yield %5 : f32
      }
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] combine <add> : memref<16x64xf32> to memref<4096x4096xf32>
    }
    memref.dealloc %alloc_0 : memref<256x16xi32>
    memref.dealloc %alloc : memref<256xi32>
    return
  }
  func.func @block_a_tile(%arg0: memref<2048x256xf16>, %arg1: memref<256x4096xf16>, %arg2: memref<2048x4096xf32>) {
    %alloc = memref.alloc() : memref<128xi32>
    %alloc_0 = memref.alloc() : memref<128x16xi32>
    pit.detect %arg0 micro_tile [16, 16] axis 1 into %alloc, %alloc_0 : memref<2048x256xf16>, memref<128xi32>, memref<128x16xi32>
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<128xi32>) domain [2048, 4096, 256] tile [16, 64, 32] micro_tile [16, 16] pit_axis 2 sparse_map #map attributes {pit.mma_config = #pit.mma_config<block = [16, 256, 32], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 2>} {
      %0 = memref.load %alloc[%arg6] : memref<128xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<16x32xf16>
      %alloca_1 = memref.alloca() : memref<32x64xf16>
      %alloca_2 = memref.alloca() : memref<16x64xf32>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %1 axis 1 micro 16 : memref<2048x256xf16> to memref<16x32xf16>, memref<128x16xi32>
      pit.sread %arg1[%arg5, %arg4] into %alloca_1 gather %alloc_0[%arg6] count %1 axis 0 micro 16 : memref<256x4096xf16> to memref<32x64xf16>, memref<128x16xi32>
      %cst = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst : f32) outs(%alloca_2 : memref<16x64xf32>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1 : memref<16x32xf16>, memref<32x64xf16>) outs(%alloca_2 : memref<16x64xf32>) {
      ^bb0(%in: f16, %in_3: f16, %out: f32):
        %2 = arith.extf %in : f16 to f32
        %3 = arith.extf %in_3 : f16 to f32
        %4 = arith.mulf %2, %3 : f32
        %5 = arith.addf %out, %4 : f32
        linalg.yield %5 : f32
      }
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] combine <add> : memref<16x64xf32> to memref<2048x4096xf32>
    }
    memref.dealloc %alloc_0 : memref<128x16xi32>
    memref.dealloc %alloc : memref<128xi32>
    return
  }
}
