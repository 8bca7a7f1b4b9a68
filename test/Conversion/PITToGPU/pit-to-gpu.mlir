// The input is what pit-sparsify gives (pit IR):
// each run starts at the strategy or the conversion.
// RUN: pit-opt %s -split-input-file --convert-pit-to-gpu --pit-gpu-coalesce-allocations | FileCheck %s
// RUN: pit-opt %s -split-input-file --convert-pit-to-gpu=threads-per-block=256 --pit-gpu-coalesce-allocations | FileCheck %s --check-prefix=THREADS
// RUN: pit-opt %s -split-input-file --convert-pit-to-gpu=tensor-cores=false --pit-gpu-coalesce-allocations | FileCheck %s --check-prefix=NO-TC

// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func @matmul
// The index lives on the device, in one allocation for the call (its
// buffers 256-byte aligned), freed at the end.
// CHECK: %[[ARENA:.+]] = gpu.alloc () : memref<4352xi8>
// CHECK: %[[COUNTS:.+]] = memref.view %[[ARENA]][%{{.+}}][] : memref<4352xi8> to memref<4xi32>
// CHECK: %[[POS:.+]] = memref.view %[[ARENA]][%c256][] : memref<4352xi8> to memref<4x256xi32>
// Detection: clear the counts (a memset), then a thread per column of
// 16-byte vectors of a band of 32 rows (4 bands x 64 vectors: 2 blocks of
// 128 threads) loads its 32 vectors streaming (A is read once) and ORs them
// into the flags of its 4 micro-tiles (one per lane). A warp lies in one
// band: a prefix sum of the lanes' counts (shuffles up), one atomic add by
// lane 0 for the warp's total, broadcast; each lane then fills its slots in
// turn.
// CHECK: gpu.memset %[[COUNTS]], %{{.+}} : memref<4xi32>, i32
// CHECK: gpu.launch blocks({{.+}}) in ({{.+}} = %c2{{.*}}, {{.+}}) threads({{.+}}) in ({{.+}} = %c128
// CHECK-COUNT-32: llvm.inline_asm has_side_effects "ld.global.cs.v4.b32
// CHECK:   vector.extract
// CHECK-COUNT-5: gpu.shuffle  up
// CHECK:   gpu.shuffle  idx
// CHECK:   scf.if
// CHECK:     memref.atomic_rmw addi %{{.+}}, %[[COUNTS]]
// CHECK:   gpu.shuffle  idx
// CHECK:   scf.if
// CHECK:     %[[SLOT_INDEX:.+]] = arith.index_cast
// CHECK:     scf.if
// CHECK:       memref.store %{{.+}}, %[[POS]][%{{.+}}, %[[SLOT_INDEX]]]
// The STile: a block per tile, the tiles in shared memory.
// CHECK: gpu.launch {{.+}} workgroup(%[[TA:.+]] : memref<32x32xf32, #gpu.address_space<workgroup>>, %[[TB:.+]] : memref<32x64xf32, #gpu.address_space<workgroup>>, %[[TC:.+]] : memref<32x64xf32, #gpu.address_space<workgroup>>)
// Blocks past their segment's count do nothing.
// CHECK:   %[[CNT:.+]] = memref.load %[[COUNTS]]
// CHECK:   scf.if
// The gathered load, spread over the threads, then a barrier.
// CHECK:     scf.for
// CHECK:       memref.load %[[POS]]
// CHECK:       memref.store %{{.+}}, %[[TA]]
// CHECK:     gpu.barrier
// CHECK:     memref.store %{{.+}}, %[[TB]]
// CHECK:     gpu.barrier
// The dense tile: each thread owns output elements and reduces over k.
// CHECK:     scf.for
// CHECK:       scf.for {{.+}} iter_args
// CHECK:         arith.mulf
// CHECK:         arith.addf
// CHECK:     gpu.barrier
// The write back, combined atomically.
// CHECK:     scf.for
// CHECK:       memref.atomic_rmw addf
// CHECK:     gpu.barrier
// CHECK-NOT: gpu.dealloc
// CHECK: gpu.dealloc %[[ARENA]]
// CHECK-NEXT: return
// THREADS-LABEL: func @matmul
// THREADS: threads({{.+}}) in ({{.+}} = %c256
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @matmul(%arg0: memref<128x256xf32>, %arg1: memref<256x64xf32>, %arg2: memref<128x64xf32>) {
    %alloc = memref.alloc() : memref<4xi32>
    %alloc_0 = memref.alloc() : memref<4x256xi32>
    pit.detect %arg0 micro_tile [32, 1] axis 1 into %alloc, %alloc_0 : memref<128x256xf32>, memref<4xi32>, memref<4x256xi32>
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<4xi32>) domain [128, 64, 256] tile [32, 64, 32] micro_tile [32, 1] pit_axis 2 sparse_map #map {
      %0 = memref.load %alloc[%arg6] : memref<4xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<32x32xf32>
      %alloca_1 = memref.alloca() : memref<32x64xf32>
      %alloca_2 = memref.alloca() : memref<32x64xf32>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %1 axis 1 micro 1 : memref<128x256xf32> to memref<32x32xf32>, memref<4x256xi32>
      pit.sread %arg1[%arg5, %arg4] into %alloca_1 gather %alloc_0[%arg6] count %1 axis 0 micro 1 : memref<256x64xf32> to memref<32x64xf32>, memref<4x256xi32>
      %cst = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst : f32) outs(%alloca_2 : memref<32x64xf32>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1 : memref<32x32xf32>, memref<32x64xf32>) outs(%alloca_2 : memref<32x64xf32>) {
      ^bb0(%in: f32, %in_3: f32, %out: f32):
        %2 = arith.mulf %in, %in_3 : f32
        %3 = arith.addf %out, %2 : f32
        linalg.yield %3 : f32
      }
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] combine <add> : memref<32x64xf32> to memref<128x64xf32>
    }
    memref.dealloc %alloc_0 : memref<4x256xi32>
    memref.dealloc %alloc : memref<4xi32>
    return
  }
}

// -----

// The output is cleared on the device (a memset) before the gathered tiles
// are scattered back (each element once: no atomics).
// CHECK-LABEL: func @elementwise_mul
// CHECK: gpu.memset %{{.+}}, %{{.+}} : memref<128x64xf32>, f32
// CHECK: gpu.launch
// CHECK-NOT: atomic_rmw
// CHECK: return
// THREADS-LABEL: func @elementwise_mul
#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @elementwise_mul(%arg0: memref<128x64xf32>, %arg1: memref<128x64xf32>, %arg2: memref<128x64xf32>) {
    %alloc = memref.alloc() : memref<1xi32>
    %alloc_0 = memref.alloc() : memref<1x128xi32>
    pit.detect %arg0 micro_tile [1, 64] axis 0 into %alloc, %alloc_0 : memref<128x64xf32>, memref<1xi32>, memref<1x128xi32>
    %cst = arith.constant 0.000000e+00 : f32
    linalg.fill ins(%cst : f32) outs(%arg2 : memref<128x64xf32>)
    pit.stile (%arg3, %arg4) segment(%arg5) counts(%alloc : memref<1xi32>) domain [128, 64] tile [32, 64] micro_tile [1, 64] pit_axis 0 sparse_map #map {
      %0 = memref.load %alloc[%arg5] : memref<1xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<32x64xf32>
      %alloca_1 = memref.alloca() : memref<32x64xf32>
      %alloca_2 = memref.alloca() : memref<32x64xf32>
      pit.sread %arg0[%arg3, %arg4] into %alloca gather %alloc_0[%arg5] count %1 axis 0 micro 1 : memref<128x64xf32> to memref<32x64xf32>, memref<1x128xi32>
      pit.sread %arg1[%arg3, %arg4] into %alloca_1 gather %alloc_0[%arg5] count %1 axis 0 micro 1 : memref<128x64xf32> to memref<32x64xf32>, memref<1x128xi32>
      pit.sread %arg2[%arg3, %arg4] into %alloca_2 gather %alloc_0[%arg5] count %1 axis 0 micro 1 : memref<128x64xf32> to memref<32x64xf32>, memref<1x128xi32>
      linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%alloca, %alloca_1 : memref<32x64xf32>, memref<32x64xf32>) outs(%alloca_2 : memref<32x64xf32>) {
      ^bb0(%in: f32, %in_3: f32, %out: f32):
        %2 = arith.mulf %in, %in_3 : f32
        linalg.yield %2 : f32
      }
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] scatter %alloc_0[%arg5] count %1 axis 0 micro 1 : memref<32x64xf32> to memref<128x64xf32>, memref<1x128xi32>
    }
    memref.dealloc %alloc_0 : memref<1x128xi32>
    memref.dealloc %alloc : memref<1xi32>
    return
  }
}

// -----

// An f16 matmul tile gathered along k runs on tensor cores: one block per
// 32x256 output tile (8 of the STile's 32x32 tiles along n) loops over the
// compacted k in chunks of 32, two stages deep: B's gathered rows come with
// 16-byte cp.async copies into swizzled shared memory. A's 32x1 micro-tiles
// are single columns: the detection scan, which loads them anyway, writes
// the non-zero ones contiguously into a compacted copy (segments x slots x
// 32 rows), and the STile copies A from there, 16 bytes at a time, into a
// k-major tile read with transposed ldmatrix.
// CHECK-LABEL: func @matmul_f16
// CHECK: %[[ARENA:.+]] = gpu.alloc () : memref<139520xi8>
// CHECK: %[[COPY:.+]] = memref.view %[[ARENA]][%c8448][] : memref<139520xi8> to memref<8x256x32xf16>
// CHECK: gpu.launch
// CHECK:   vector.store %{{.+}}, %[[COPY]][%{{.+}}, %{{.+}}, %{{.+}}] {alignment = 16 : i64} : memref<8x256x32xf16>, vector<8xf16>
// CHECK: gpu.launch blocks({{.+}}) in ({{.+}} = %c16{{.*}}, {{.+}}) threads({{.+}}) in ({{.+}} = %c128{{.*}}) workgroup(%[[SA:.+]] : memref<2x32x32xf16, #gpu.address_space<workgroup>>, %[[SB:.+]] : memref<2x32x256xf16, #gpu.address_space<workgroup>>)
// Chunk 0 into stage 0, when the segment has one.
// CHECK:   scf.if
// CHECK:     nvgpu.device_async_copy %{{.+}}, %[[SB]][%c0{{.*}}, %{{.+}}, %{{.+}}], 8, %{{.+}} : memref<256x512xf16> to memref<2x32x256xf16, #gpu.address_space<workgroup>>
// CHECK:     nvgpu.device_async_copy %[[COPY]][{{.+}}], %[[SA]][%c0{{.*}}, %{{.+}}, %{{.+}}], 8, %{{.+}} : memref<8x256x32xf16> to memref<2x32x32xf16, #gpu.address_space<workgroup>>
// CHECK:   nvvm.cp.async.commit.group
// The index entries that the copies of chunk 1 read (one for each of the 8
// rows of B a thread copies), loaded before the loop, which carries them.
// CHECK-COUNT-8: memref.load %[[ENTRIES:.+]][%{{.+}}, %{{.+}}] : memref<8x256xi32>
// CHECK:   %[[CHUNKS:.+]]:24 = scf.for {{.+}} iter_args({{.+}}) -> (vector<2x2xf32>, {{.+}}, vector<2x2xf32>, i32, {{.+}}, i32)
// The next chunk's copies, from the carried entries; the entries of the
// chunk after it, whose loads are in flight while this chunk is multiplied;
// then this chunk: wait for all groups but the newest.
// CHECK:     scf.if
// CHECK-NOT:   memref.load
// CHECK:       nvgpu.device_async_copy
// CHECK:     nvvm.cp.async.commit.group
// CHECK-COUNT-8: memref.load %[[ENTRIES]]
// CHECK:     nvvm.cp.async.wait.group 1
// CHECK:     gpu.barrier
// CHECK:     nvgpu.ldmatrix %[[SB]][{{.+}}] {numTiles = 4 : i32, transpose = true}
// CHECK:     nvgpu.ldmatrix %[[SA]][{{.+}}] {numTiles = 4 : i32, transpose = true}
// CHECK-COUNT-8: nvgpu.mma.sync({{.+}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK:     gpu.barrier
// No atomics: the block owns its output tile.
// CHECK-NOT: atomic_rmw
// CHECK: gpu.dealloc %[[ARENA]]
// CHECK: return
// THREADS-LABEL: func @matmul_f16
// NO-TC-LABEL: func @matmul_f16
// NO-TC-NOT: nvgpu.mma.sync
// NO-TC: memref.atomic_rmw addf
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @matmul_f16(%arg0: memref<256x256xf16>, %arg1: memref<256x512xf16>, %arg2: memref<256x512xf32>) {
    %alloc = memref.alloc() : memref<8xi32>
    %alloc_0 = memref.alloc() : memref<8x256xi32>
    pit.detect %arg0 micro_tile [32, 1] axis 1 into %alloc, %alloc_0 : memref<256x256xf16>, memref<8xi32>, memref<8x256xi32>
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<8xi32>) domain [256, 512, 256] tile [32, 64, 32] micro_tile [32, 1] pit_axis 2 sparse_map #map {
      %0 = memref.load %alloc[%arg6] : memref<8xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<32x32xf16>
      %alloca_1 = memref.alloca() : memref<32x64xf16>
      %alloca_2 = memref.alloca() : memref<32x64xf32>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %1 axis 1 micro 1 : memref<256x256xf16> to memref<32x32xf16>, memref<8x256xi32>
      pit.sread %arg1[%arg5, %arg4] into %alloca_1 gather %alloc_0[%arg6] count %1 axis 0 micro 1 : memref<256x512xf16> to memref<32x64xf16>, memref<8x256xi32>
      %cst = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst : f32) outs(%alloca_2 : memref<32x64xf32>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1 : memref<32x32xf16>, memref<32x64xf16>) outs(%alloca_2 : memref<32x64xf32>) {
      ^bb0(%in: f16, %in_3: f16, %out: f32):
        %2 = arith.extf %in : f16 to f32
        %3 = arith.extf %in_3 : f16 to f32
        %4 = arith.mulf %2, %3 : f32
        %5 = arith.addf %out, %4 : f32
        linalg.yield %5 : f32
      }
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] combine <add> : memref<32x64xf32> to memref<256x512xf32>
    }
    memref.dealloc %alloc_0 : memref<8x256xi32>
    memref.dealloc %alloc : memref<8xi32>
    return
  }
}

// -----

// 16x16 micro-tiles: A's gathered rows are 16 elements, so A's 16x32 chunk
// comes in 64 cp.async copies, a partial round of the 128 threads. The loop
// carries the index entries of the chunk it issues next: 8 for B's rows and
// 1 for A's partial round, which every thread loads outside the round's
// guard (a thread past it loads an entry that no copy uses).
// CHECK-LABEL: func @matmul_f16_16x16
// CHECK: nvgpu.device_async_copy %{{.+}}, %{{.+}}, 8, %{{.+}} : memref<256x512xf16> to memref<2x32x256xf16, #gpu.address_space<workgroup>>
// CHECK: scf.if
// CHECK:   nvgpu.device_async_copy %{{.+}}, %{{.+}}, 8, %{{.+}} : memref<256x256xf16> to memref<2x16x32xf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for {{.+}} -> (vector<2x2xf32>, {{.+}}, vector<2x2xf32>, i32, i32, i32, i32, i32, i32, i32, i32, i32)
// CHECK: nvvm.cp.async.commit.group
// CHECK-COUNT-9: memref.load %{{.+}} : memref<16x16xi32>
// CHECK-NOT: scf.if
// CHECK: nvvm.cp.async.wait.group 1
// CHECK: nvgpu.mma.sync
// THREADS-LABEL: func @matmul_f16_16x16
// NO-TC-LABEL: func @matmul_f16_16x16
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @matmul_f16_16x16(%arg0: memref<256x256xf16>, %arg1: memref<256x512xf16>, %arg2: memref<256x512xf32>) {
    %alloc = memref.alloc() : memref<16xi32>
    %alloc_0 = memref.alloc() : memref<16x16xi32>
    pit.detect %arg0 micro_tile [16, 16] axis 1 into %alloc, %alloc_0 : memref<256x256xf16>, memref<16xi32>, memref<16x16xi32>
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<16xi32>) domain [256, 512, 256] tile [16, 64, 32] micro_tile [16, 16] pit_axis 2 sparse_map #map {
      %0 = memref.load %alloc[%arg6] : memref<16xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<16x32xf16>
      %alloca_1 = memref.alloca() : memref<32x64xf16>
      %alloca_2 = memref.alloca() : memref<16x64xf32>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %1 axis 1 micro 16 : memref<256x256xf16> to memref<16x32xf16>, memref<16x16xi32>
      pit.sread %arg1[%arg5, %arg4] into %alloca_1 gather %alloc_0[%arg6] count %1 axis 0 micro 16 : memref<256x512xf16> to memref<32x64xf16>, memref<16x16xi32>
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
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] combine <add> : memref<16x64xf32> to memref<256x512xf32>
    }
    memref.dealloc %alloc_0 : memref<16x16xi32>
    memref.dealloc %alloc : memref<16xi32>
    return
  }
}

// -----

// Batch matmul with per-batch patterns: segments are (batch, row block), and
// the tile runs on tensor cores as well (n = 64: one block column tile).
// CHECK-LABEL: func @batch_matmul_f16
// CHECK: gpu.launch blocks({{.+}}) in ({{.+}} = %c8{{.*}}, {{.+}}) threads
// CHECK: nvgpu.device_async_copy %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}], %{{.+}}, 8, %{{.+}} : memref<2x128x64xf16> to memref<2x32x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.mma.sync
// CHECK: vector.store %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}] {alignment = 8 : i64} : memref<2x128x64xf32>, vector<2xf32>
// THREADS-LABEL: func @batch_matmul_f16
// NO-TC-LABEL: func @batch_matmul_f16
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
module {
  func.func @batch_matmul_f16(%arg0: memref<2x128x128xf16>, %arg1: memref<2x128x64xf16>, %arg2: memref<2x128x64xf32>) {
    %alloc = memref.alloc() : memref<8xi32>
    %alloc_0 = memref.alloc() : memref<8x128xi32>
    pit.detect %arg0 micro_tile [1, 32, 1] axis 2 into %alloc, %alloc_0 : memref<2x128x128xf16>, memref<8xi32>, memref<8x128xi32>
    pit.stile (%arg3, %arg4, %arg5, %arg6) segment(%arg7) counts(%alloc : memref<8xi32>) domain [2, 128, 64, 128] tile [1, 32, 64, 32] micro_tile [1, 32, 1] pit_axis 3 sparse_map #map {
      %0 = memref.load %alloc[%arg7] : memref<8xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<1x32x32xf16>
      %alloca_1 = memref.alloca() : memref<1x32x64xf16>
      %alloca_2 = memref.alloca() : memref<1x32x64xf32>
      pit.sread %arg0[%arg3, %arg4, %arg6] into %alloca gather %alloc_0[%arg7] count %1 axis 2 micro 1 : memref<2x128x128xf16> to memref<1x32x32xf16>, memref<8x128xi32>
      pit.sread %arg1[%arg3, %arg6, %arg5] into %alloca_1 gather %alloc_0[%arg7] count %1 axis 1 micro 1 : memref<2x128x64xf16> to memref<1x32x64xf16>, memref<8x128xi32>
      %cst = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst : f32) outs(%alloca_2 : memref<1x32x64xf32>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1 : memref<1x32x32xf16>, memref<1x32x64xf16>) outs(%alloca_2 : memref<1x32x64xf32>) {
      ^bb0(%in: f16, %in_3: f16, %out: f32):
        %2 = arith.extf %in : f16 to f32
        %3 = arith.extf %in_3 : f16 to f32
        %4 = arith.mulf %2, %3 : f32
        %5 = arith.addf %out, %4 : f32
        linalg.yield %5 : f32
      }
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4, %arg5] combine <add> : memref<1x32x64xf32> to memref<2x128x64xf32>
    }
    memref.dealloc %alloc_0 : memref<8x128xi32>
    memref.dealloc %alloc : memref<8xi32>
    return
  }
}

// -----

// Rows of A gathered along m (1x64 micro-tiles): a block per tile of 32
// gathered rows, k segment and 64 columns (256 do not divide n); cp.async
// for A's rows and B's
// dense chunk, mma.sync, and the rows scattered back into C with atomic
// adds.
// CHECK-LABEL: func @matmul_f16_rows
// CHECK: gpu.launch blocks({{.+}}) in ({{.+}} = %c64{{.*}}, {{.+}}) threads
// CHECK: scf.if
// CHECK:   nvgpu.device_async_copy %{{.+}}, %{{.+}}, 8, %{{.+}} : memref<256x256xf16> to memref<1x32x64xf16, #gpu.address_space<workgroup>>
// CHECK:   nvgpu.device_async_copy %{{.+}}, %{{.+}}, 8, %{{.+}} : memref<256x128xf16> to memref<1x64x64xf16, #gpu.address_space<workgroup>>
// CHECK:   nvvm.cp.async.wait.group 0
// CHECK:   nvgpu.mma.sync
// CHECK:   scf.if
// CHECK:     memref.atomic_rmw addf %{{.+}}, %{{.+}} : (f32, memref<256x128xf32>) -> f32
// THREADS-LABEL: func @matmul_f16_rows
// NO-TC-LABEL: func @matmul_f16_rows
// NO-TC-NOT: nvgpu.mma.sync
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @matmul_f16_rows(%arg0: memref<256x256xf16>, %arg1: memref<256x128xf16>, %arg2: memref<256x128xf32>) {
    %alloc = memref.alloc() : memref<4xi32>
    %alloc_0 = memref.alloc() : memref<4x256xi32>
    pit.detect %arg0 micro_tile [1, 64] axis 0 into %alloc, %alloc_0 : memref<256x256xf16>, memref<4xi32>, memref<4x256xi32>
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<4xi32>) domain [256, 128, 256] tile [32, 64, 64] micro_tile [1, 64] pit_axis 0 sparse_map #map {
      %0 = memref.load %alloc[%arg6] : memref<4xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<32x64xf16>
      %alloca_1 = memref.alloca() : memref<64x64xf16>
      %alloca_2 = memref.alloca() : memref<32x64xf32>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %1 axis 0 micro 1 : memref<256x256xf16> to memref<32x64xf16>, memref<4x256xi32>
      pit.sread %arg1[%arg5, %arg4] into %alloca_1 : memref<256x128xf16> to memref<64x64xf16>
      %cst = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst : f32) outs(%alloca_2 : memref<32x64xf32>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1 : memref<32x64xf16>, memref<64x64xf16>) outs(%alloca_2 : memref<32x64xf32>) {
      ^bb0(%in: f16, %in_3: f16, %out: f32):
        %2 = arith.extf %in : f16 to f32
        %3 = arith.extf %in_3 : f16 to f32
        %4 = arith.mulf %2, %3 : f32
        %5 = arith.addf %out, %4 : f32
        linalg.yield %5 : f32
      }
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] scatter %alloc_0[%arg6] count %1 axis 0 micro 1 combine <add> : memref<32x64xf32> to memref<256x128xf32>, memref<4x256xi32>
    }
    memref.dealloc %alloc_0 : memref<4x256xi32>
    memref.dealloc %alloc : memref<4xi32>
    return
  }
}

// -----

// SDDMM with 32x1 mask micro-tiles: B's columns are gathered with the mask's,
// one column at a time (narrower than a 16-byte copy, so through registers,
// in 16-byte pieces); A's 32 dense rows come with cp.async. mma.sync over
// the whole of k, then the epilogue scales each sum by its mask element and
// adds it into C: the block owns its gathered columns, so no atomics. A
// thread's 8 mask weights are loaded before the product, and its 8 old
// values of C before its first store (a store could alias a later load,
// which would then wait for it), padding included (clamped into bounds);
// only the stores are guarded.
// CHECK-LABEL: func @sddmm_columns
// CHECK: gpu.launch blocks({{.+}}) in ({{.+}} = %c64{{.*}}, {{.+}}) threads({{.+}}) in ({{.+}} = %c128{{.*}}) workgroup(%{{.+}} : memref<1x32x64xf16, #gpu.address_space<workgroup>>, %[[SB:.+]] : memref<1x64x32xf16, #gpu.address_space<workgroup>>)
// CHECK:   scf.if
// CHECK:     %[[W:.+]] = memref.load %{{.+}} : memref<256x256xf16>
// CHECK:     nvgpu.device_async_copy %{{.+}}, %{{.+}}, 8, %{{.+}} : memref<256x64xf16> to memref<1x32x64xf16, #gpu.address_space<workgroup>>
// CHECK:     vector.store %{{.+}}, %[[SB]]
// CHECK:     nvvm.cp.async.wait.group 0
// CHECK:     nvgpu.mma.sync
// CHECK-NOT: memref.store
// CHECK:     %[[OLD:.+]] = memref.load %{{.+}} : memref<256x256xf32>
// CHECK-NOT: memref.store
// CHECK:     memref.load %{{.+}} : memref<256x256xf32>
// CHECK-NOT: memref.store
// CHECK:     memref.load %{{.+}} : memref<256x256xf32>
// CHECK-NOT: memref.store
// CHECK:     memref.load %{{.+}} : memref<256x256xf32>
// CHECK-NOT: memref.store
// CHECK:     memref.load %{{.+}} : memref<256x256xf32>
// CHECK-NOT: memref.store
// CHECK:     memref.load %{{.+}} : memref<256x256xf32>
// CHECK-NOT: memref.store
// CHECK:     memref.load %{{.+}} : memref<256x256xf32>
// CHECK-NOT: memref.store
// CHECK:     memref.load %{{.+}} : memref<256x256xf32>
// CHECK-NOT: memref.load %{{.+}} : memref<256x256xf32>
// CHECK:     %[[W32:.+]] = arith.extf %[[W]]
// CHECK:     %[[SCALED:.+]] = arith.mulf %{{.+}}, %[[W32]]
// CHECK:     %[[SUM:.+]] = arith.addf %[[OLD]], %[[SCALED]]
// CHECK:     scf.if
// CHECK-NEXT:  memref.store %[[SUM]], %{{.+}} : memref<256x256xf32>
// CHECK-NOT: atomic_rmw addf
// CHECK: return
// THREADS-LABEL: func @sddmm_columns
// NO-TC-LABEL: func @sddmm_columns
// NO-TC-NOT: nvgpu.mma.sync
// NO-TC: return
#map = affine_map<(d0, d1, d2) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
module {
  func.func @sddmm_columns(%arg0: memref<256x64xf16>, %arg1: memref<64x256xf16>, %arg2: memref<256x256xf16>, %arg3: memref<256x256xf32>) {
    %alloc = memref.alloc() : memref<8xi32>
    %alloc_0 = memref.alloc() : memref<8x256xi32>
    pit.detect %arg2 micro_tile [32, 1] axis 1 into %alloc, %alloc_0 : memref<256x256xf16>, memref<8xi32>, memref<8x256xi32>
    pit.stile (%arg4, %arg5, %arg6) segment(%arg7) counts(%alloc : memref<8xi32>) domain [256, 256, 64] tile [32, 32, 64] micro_tile [32, 1] pit_axis 1 sparse_map #map {
      %0 = memref.load %alloc[%arg7] : memref<8xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<32x64xf16>
      %alloca_1 = memref.alloca() : memref<64x32xf16>
      %alloca_2 = memref.alloca() : memref<32x32xf16>
      %alloca_3 = memref.alloca() : memref<32x32xf32>
      pit.sread %arg0[%arg4, %arg6] into %alloca : memref<256x64xf16> to memref<32x64xf16>
      pit.sread %arg1[%arg6, %arg5] into %alloca_1 gather %alloc_0[%arg7] count %1 axis 1 micro 1 : memref<64x256xf16> to memref<64x32xf16>, memref<8x256xi32>
      pit.sread %arg2[%arg4, %arg5] into %alloca_2 gather %alloc_0[%arg7] count %1 axis 1 micro 1 : memref<256x256xf16> to memref<32x32xf16>, memref<8x256xi32>
      %cst = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst : f32) outs(%alloca_3 : memref<32x32xf32>)
      linalg.generic {indexing_maps = [#map1, #map2, #map, #map], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1, %alloca_2 : memref<32x64xf16>, memref<64x32xf16>, memref<32x32xf16>) outs(%alloca_3 : memref<32x32xf32>) {
      ^bb0(%in: f16, %in_4: f16, %in_5: f16, %out: f32):
        %2 = arith.extf %in : f16 to f32
        %3 = arith.extf %in_4 : f16 to f32
        %4 = arith.extf %in_5 : f16 to f32
        %5 = arith.mulf %2, %3 : f32
        %6 = arith.mulf %5, %4 : f32
        %7 = arith.addf %out, %6 : f32
        linalg.yield %7 : f32
      }
      pit.swrite %alloca_3 into %arg3[%arg4, %arg5] scatter %alloc_0[%arg7] count %1 axis 1 micro 1 combine <add> : memref<32x32xf32> to memref<256x256xf32>, memref<8x256xi32>
    }
    memref.dealloc %alloc_0 : memref<8x256xi32>
    memref.dealloc %alloc : memref<8xi32>
    return
  }
}

// -----

// SDDMM with 1x64 mask micro-tiles: A's rows are gathered with the mask's
// (16-byte copies, zero-filled past the count), B's 64 columns are dense.
// The product may be written in any order. A gathered row's neighbours are
// neighbours in the mask and C: a thread reads and writes them in pairs,
// its 8 pairs of weights before the product, of C before its first store.
// CHECK-LABEL: func @sddmm_rows
// CHECK: gpu.launch {{.+}} workgroup(%{{.+}} : memref<1x32x64xf16, #gpu.address_space<workgroup>>, %{{.+}} : memref<1x64x64xf16, #gpu.address_space<workgroup>>)
// CHECK:   %[[W:.+]] = vector.load %{{.+}} {alignment = 4 : i64} : memref<256x256xf16>, vector<2xf16>
// CHECK:   nvgpu.device_async_copy %{{.+}}, %{{.+}}, 8, %{{.+}} : memref<256x64xf16> to memref<1x32x64xf16, #gpu.address_space<workgroup>>
// CHECK:   nvgpu.device_async_copy %{{.+}}, %{{.+}}, 8, %{{.+}} : memref<64x256xf16> to memref<1x64x64xf16, #gpu.address_space<workgroup>>
// CHECK:   nvgpu.mma.sync
// CHECK-NOT: vector.store
// CHECK:     %[[OLD:.+]] = vector.load %{{.+}} {alignment = 8 : i64} : memref<256x256xf32>, vector<2xf32>
// CHECK-NOT: vector.store
// CHECK:     vector.load %{{.+}} {alignment = 8 : i64} : memref<256x256xf32>, vector<2xf32>
// CHECK-NOT: vector.store
// CHECK:     vector.load %{{.+}} {alignment = 8 : i64} : memref<256x256xf32>, vector<2xf32>
// CHECK-NOT: vector.store
// CHECK:     vector.load %{{.+}} {alignment = 8 : i64} : memref<256x256xf32>, vector<2xf32>
// CHECK-NOT: vector.store
// CHECK:     vector.load %{{.+}} {alignment = 8 : i64} : memref<256x256xf32>, vector<2xf32>
// CHECK-NOT: vector.store
// CHECK:     vector.load %{{.+}} {alignment = 8 : i64} : memref<256x256xf32>, vector<2xf32>
// CHECK-NOT: vector.store
// CHECK:     vector.load %{{.+}} {alignment = 8 : i64} : memref<256x256xf32>, vector<2xf32>
// CHECK-NOT: vector.store
// CHECK:     vector.load %{{.+}} {alignment = 8 : i64} : memref<256x256xf32>, vector<2xf32>
// CHECK-NOT: vector.load %{{.+}} : memref<256x256xf32>
// CHECK:     %[[W32:.+]] = arith.extf %[[W]] : vector<2xf16> to vector<2xf32>
// CHECK:     %[[SCALED:.+]] = arith.mulf %{{.+}}, %[[W32]] : vector<2xf32>
// CHECK:     %[[SUM:.+]] = arith.addf %[[OLD]], %[[SCALED]] : vector<2xf32>
// CHECK:     scf.if
// CHECK-NEXT:  vector.store %[[SUM]], %{{.+}} {alignment = 8 : i64} : memref<256x256xf32>, vector<2xf32>
// CHECK-NOT: atomic_rmw addf
// CHECK: return
// THREADS-LABEL: func @sddmm_rows
// NO-TC-LABEL: func @sddmm_rows
#map = affine_map<(d0, d1, d2) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
module {
  func.func @sddmm_rows(%arg0: memref<256x64xf16>, %arg1: memref<64x256xf16>, %arg2: memref<256x256xf16>, %arg3: memref<256x256xf32>) {
    %alloc = memref.alloc() : memref<4xi32>
    %alloc_0 = memref.alloc() : memref<4x256xi32>
    pit.detect %arg2 micro_tile [1, 64] axis 0 into %alloc, %alloc_0 : memref<256x256xf16>, memref<4xi32>, memref<4x256xi32>
    pit.stile (%arg4, %arg5, %arg6) segment(%arg7) counts(%alloc : memref<4xi32>) domain [256, 256, 64] tile [32, 64, 64] micro_tile [1, 64] pit_axis 0 sparse_map #map {
      %0 = memref.load %alloc[%arg7] : memref<4xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<32x64xf16>
      %alloca_1 = memref.alloca() : memref<64x64xf16>
      %alloca_2 = memref.alloca() : memref<32x64xf16>
      %alloca_3 = memref.alloca() : memref<32x64xf32>
      pit.sread %arg0[%arg4, %arg6] into %alloca gather %alloc_0[%arg7] count %1 axis 0 micro 1 : memref<256x64xf16> to memref<32x64xf16>, memref<4x256xi32>
      pit.sread %arg1[%arg6, %arg5] into %alloca_1 : memref<64x256xf16> to memref<64x64xf16>
      pit.sread %arg2[%arg4, %arg5] into %alloca_2 gather %alloc_0[%arg7] count %1 axis 0 micro 1 : memref<256x256xf16> to memref<32x64xf16>, memref<4x256xi32>
      %cst = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst : f32) outs(%alloca_3 : memref<32x64xf32>)
      linalg.generic {indexing_maps = [#map1, #map2, #map, #map], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1, %alloca_2 : memref<32x64xf16>, memref<64x64xf16>, memref<32x64xf16>) outs(%alloca_3 : memref<32x64xf32>) {
      ^bb0(%in: f16, %in_4: f16, %in_5: f16, %out: f32):
        %2 = arith.extf %in : f16 to f32
        %3 = arith.extf %in_4 : f16 to f32
        %4 = arith.extf %in_5 : f16 to f32
        %5 = arith.mulf %4, %3 : f32
        %6 = arith.mulf %2, %5 : f32
        %7 = arith.addf %6, %out : f32
        linalg.yield %7 : f32
      }
      pit.swrite %alloca_3 into %arg3[%arg4, %arg5] scatter %alloc_0[%arg7] count %1 axis 0 micro 1 combine <add> : memref<32x64xf32> to memref<256x256xf32>, memref<4x256xi32>
    }
    memref.dealloc %alloc_0 : memref<4x256xi32>
    memref.dealloc %alloc : memref<4xi32>
    return
  }
}

// -----

// A body that is not a scaled product sum (the mask squared) is still
// sparsified, but stays on the SIMT lowering.
// CHECK-LABEL: func @sddmm_mask_squared
// CHECK-NOT: nvgpu.mma.sync
// CHECK: memref.atomic_rmw addf
// CHECK-NOT: nvgpu.mma.sync
// CHECK: return
// THREADS-LABEL: func @sddmm_mask_squared
// NO-TC-LABEL: func @sddmm_mask_squared
#map = affine_map<(d0, d1, d2) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
module {
  func.func @sddmm_mask_squared(%arg0: memref<256x64xf16>, %arg1: memref<64x256xf16>, %arg2: memref<256x256xf16>, %arg3: memref<256x256xf32>) {
    %alloc = memref.alloc() : memref<8xi32>
    %alloc_0 = memref.alloc() : memref<8x256xi32>
    pit.detect %arg2 micro_tile [32, 1] axis 1 into %alloc, %alloc_0 : memref<256x256xf16>, memref<8xi32>, memref<8x256xi32>
    pit.stile (%arg4, %arg5, %arg6) segment(%arg7) counts(%alloc : memref<8xi32>) domain [256, 256, 64] tile [32, 32, 64] micro_tile [32, 1] pit_axis 1 sparse_map #map {
      %0 = memref.load %alloc[%arg7] : memref<8xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<32x64xf16>
      %alloca_1 = memref.alloca() : memref<64x32xf16>
      %alloca_2 = memref.alloca() : memref<32x32xf16>
      %alloca_3 = memref.alloca() : memref<32x32xf32>
      pit.sread %arg0[%arg4, %arg6] into %alloca : memref<256x64xf16> to memref<32x64xf16>
      pit.sread %arg1[%arg6, %arg5] into %alloca_1 gather %alloc_0[%arg7] count %1 axis 1 micro 1 : memref<64x256xf16> to memref<64x32xf16>, memref<8x256xi32>
      pit.sread %arg2[%arg4, %arg5] into %alloca_2 gather %alloc_0[%arg7] count %1 axis 1 micro 1 : memref<256x256xf16> to memref<32x32xf16>, memref<8x256xi32>
      %cst = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst : f32) outs(%alloca_3 : memref<32x32xf32>)
      linalg.generic {indexing_maps = [#map1, #map2, #map, #map], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1, %alloca_2 : memref<32x64xf16>, memref<64x32xf16>, memref<32x32xf16>) outs(%alloca_3 : memref<32x32xf32>) {
      ^bb0(%in: f16, %in_4: f16, %in_5: f16, %out: f32):
        %2 = arith.extf %in : f16 to f32
        %3 = arith.extf %in_4 : f16 to f32
        %4 = arith.extf %in_5 : f16 to f32
        %5 = arith.mulf %2, %3 : f32
        %6 = arith.mulf %5, %4 : f32
        %7 = arith.mulf %6, %4 : f32
        %8 = arith.addf %out, %7 : f32
        linalg.yield %8 : f32
      }
      pit.swrite %alloca_3 into %arg3[%arg4, %arg5] scatter %alloc_0[%arg7] count %1 axis 1 micro 1 combine <add> : memref<32x32xf32> to memref<256x256xf32>, memref<8x256xi32>
    }
    memref.dealloc %alloc_0 : memref<8x256xi32>
    memref.dealloc %alloc : memref<8xi32>
    return
  }
}

// -----

// C = A x B: C is only cleared before the STile, and a block owns its tile,
// so the clearing folds into the kernel: the block stores its tile instead
// of adding it (no fill kernel, no load of C), two neighbours at a time.
// CHECK-LABEL: func @matmul_f16_cleared
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch {{.+}} workgroup(%{{.+}} : memref<2x32x32xf16, #gpu.address_space<workgroup>>
// CHECK:   nvgpu.mma.sync
// CHECK-NOT: vector.load %{{.+}} : memref<256x512xf32>
// CHECK:   vector.store %{{.+}}, %{{.+}} {alignment = 8 : i64} : memref<256x512xf32>, vector<2xf32>
// CHECK: return
// THREADS-LABEL: func @matmul_f16_cleared
// NO-TC-LABEL: func @matmul_f16_cleared
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @matmul_f16_cleared(%arg0: memref<256x256xf16>, %arg1: memref<256x512xf16>, %arg2: memref<256x512xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    linalg.fill ins(%cst : f32) outs(%arg2 : memref<256x512xf32>)
    %alloc = memref.alloc() : memref<8xi32>
    %alloc_0 = memref.alloc() : memref<8x256xi32>
    pit.detect %arg0 micro_tile [32, 1] axis 1 into %alloc, %alloc_0 : memref<256x256xf16>, memref<8xi32>, memref<8x256xi32>
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<8xi32>) domain [256, 512, 256] tile [32, 64, 32] micro_tile [32, 1] pit_axis 2 sparse_map #map {
      %0 = memref.load %alloc[%arg6] : memref<8xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<32x32xf16>
      %alloca_1 = memref.alloca() : memref<32x64xf16>
      %alloca_2 = memref.alloca() : memref<32x64xf32>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %1 axis 1 micro 1 : memref<256x256xf16> to memref<32x32xf16>, memref<8x256xi32>
      pit.sread %arg1[%arg5, %arg4] into %alloca_1 gather %alloc_0[%arg6] count %1 axis 0 micro 1 : memref<256x512xf16> to memref<32x64xf16>, memref<8x256xi32>
      %cst_3 = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst_3 : f32) outs(%alloca_2 : memref<32x64xf32>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1 : memref<32x32xf16>, memref<32x64xf16>) outs(%alloca_2 : memref<32x64xf32>) {
      ^bb0(%in: f16, %in_4: f16, %out: f32):
        %2 = arith.extf %in : f16 to f32
        %3 = arith.extf %in_4 : f16 to f32
        %4 = arith.mulf %2, %3 : f32
        %5 = arith.addf %out, %4 : f32
        linalg.yield %5 : f32
      }
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] combine <add> : memref<32x64xf32> to memref<256x512xf32>
    }
    memref.dealloc %alloc_0 : memref<8x256xi32>
    memref.dealloc %alloc : memref<8xi32>
    return
  }
}

// -----

// Cleared with something else than zeros: the fill stays, the tile is added.
// CHECK-LABEL: func @matmul_f16_filled_with_ones
// CHECK: gpu.launch
// CHECK: nvgpu.mma.sync
// CHECK: vector.load %{{.+}} {alignment = 8 : i64} : memref<256x512xf32>, vector<2xf32>
// CHECK: arith.addf {{.*}} : vector<2xf32>
// THREADS-LABEL: func @matmul_f16_filled_with_ones
// NO-TC-LABEL: func @matmul_f16_filled_with_ones
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @matmul_f16_filled_with_ones(%arg0: memref<256x256xf16>, %arg1: memref<256x512xf16>, %arg2: memref<256x512xf32>) {
    %cst = arith.constant 1.000000e+00 : f32
    linalg.fill ins(%cst : f32) outs(%arg2 : memref<256x512xf32>)
    %alloc = memref.alloc() : memref<8xi32>
    %alloc_0 = memref.alloc() : memref<8x256xi32>
    pit.detect %arg0 micro_tile [32, 1] axis 1 into %alloc, %alloc_0 : memref<256x256xf16>, memref<8xi32>, memref<8x256xi32>
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<8xi32>) domain [256, 512, 256] tile [32, 64, 32] micro_tile [32, 1] pit_axis 2 sparse_map #map {
      %0 = memref.load %alloc[%arg6] : memref<8xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<32x32xf16>
      %alloca_1 = memref.alloca() : memref<32x64xf16>
      %alloca_2 = memref.alloca() : memref<32x64xf32>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %1 axis 1 micro 1 : memref<256x256xf16> to memref<32x32xf16>, memref<8x256xi32>
      pit.sread %arg1[%arg5, %arg4] into %alloca_1 gather %alloc_0[%arg6] count %1 axis 0 micro 1 : memref<256x512xf16> to memref<32x64xf16>, memref<8x256xi32>
      %cst_3 = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst_3 : f32) outs(%alloca_2 : memref<32x64xf32>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1 : memref<32x32xf16>, memref<32x64xf16>) outs(%alloca_2 : memref<32x64xf32>) {
      ^bb0(%in: f16, %in_4: f16, %out: f32):
        %2 = arith.extf %in : f16 to f32
        %3 = arith.extf %in_4 : f16 to f32
        %4 = arith.mulf %2, %3 : f32
        %5 = arith.addf %out, %4 : f32
        linalg.yield %5 : f32
      }
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] combine <add> : memref<32x64xf32> to memref<256x512xf32>
    }
    memref.dealloc %alloc_0 : memref<8x256xi32>
    memref.dealloc %alloc : memref<8xi32>
    return
  }
}
