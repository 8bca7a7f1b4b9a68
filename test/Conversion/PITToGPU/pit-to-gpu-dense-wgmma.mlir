// The dense fallback of run-time selection on sm_90a (forced here: variant
// 4 of the lit tests' table is dense): blocks of 128 x 256, warp-specialised.
// A warpgroup for each 64 rows multiplies (m64n256k16 into one struct of 128
// f32), a third one copies: 384 threads, 4 stages of the 128 x 64 A tile and
// four 64 x 64 blocks of B, and each stage's full and empty mbarriers, in
// dynamic shared memory. The copying warpgroup gives registers to the
// multiplying ones. The multiplying warps wait for a chunk to land and free
// chunk c - 1's stage once chunk c is issued (one group in flight).
//
// A and B are the function's arguments: their tensor maps (TMA descriptors)
// are asked for at the function's entry (A in boxes of 128 x 64, B of 64 x
// 64), and so is the device's multiprocessor count: a block for each (at
// most one a tile, whole clusters of 2) walks the tiles, tile t + grid
// after tile t. The blocks of a cluster take neighbouring rows and share
// B: each copies its half of B's blocks into both (multicast mask 3). One
// thread copies each chunk: it expects the stage's 48 KiB (A 16 KiB, B 32
// KiB) on the full mbarrier; lane 0 of each multiplying warp frees a stage
// in both blocks (16 arrivals a phase, at the block's scope: the warp only
// read it), a tile's last one before the tile is written back. The blocks
// of a cluster meet after setting up their mbarriers (fenced for the async
// proxy and the cluster) and before they leave. (multiprocessors=1: one
// multiprocessor takes every tile, so the strategy keeps its widest block.)
// The input is what pit-sparsify gives (pit IR):
// each run starts at the strategy or the conversion.
// RUN: pit-opt %s --pit-gpu-strategy="chip=sm_90a multiprocessors=1" --convert-pit-to-gpu=chip=sm_90a --pit-gpu-coalesce-allocations 2>/dev/null | FileCheck %s
// Blocks outside clusters: each copies all of B (4 copies), frees a stage
// in its own mbarrier (8 arrivals a phase), and meets only its own warps.
// RUN: pit-opt %s --pit-gpu-strategy="chip=sm_90a multiprocessors=1 mma-cluster-blocks=1" --convert-pit-to-gpu=chip=sm_90a --pit-gpu-coalesce-allocations 2>/dev/null | FileCheck %s --check-prefix=SINGLE
// With cp.async instead: every lane of the copying warpgroup copies its
// share, its copies arriving on the full mbarrier as they land.
// RUN: pit-opt %s --pit-gpu-strategy="chip=sm_90a multiprocessors=1 mma-tensor-copies=false" --convert-pit-to-gpu=chip=sm_90a --pit-gpu-coalesce-allocations 2>/dev/null | FileCheck %s --check-prefix=CPASYNC
// Without specialisation: 256 threads, 3 stages, a block barrier a chunk.
// RUN: pit-opt %s --pit-gpu-strategy="chip=sm_90a multiprocessors=1 mma-specialize=false" --convert-pit-to-gpu=chip=sm_90a --pit-gpu-coalesce-allocations 2>/dev/null | FileCheck %s --check-prefix=PLAIN

// CHECK: func.func private @pitCudaMultiprocessorCount() -> i64
// CHECK: func.func private @pitCudaTensorMap2D(i64, i64, i64, i64, i64) -> i64
// CHECK: func.func @dense(%[[A:.+]]: memref<256x256xf16>, %[[B:.+]]: memref<256x512xf16>
// CHECK-NEXT: %[[SMS:.+]] = call @pitCudaMultiprocessorCount()
// CHECK-NEXT: %[[SMS_INDEX:.+]] = arith.index_cast %[[SMS]] : i64 to index
// CHECK-NEXT: memref.extract_aligned_pointer_as_index %[[B]]
// CHECK:   call @pitCudaTensorMap2D(%{{.+}}, %c256_i64, %c512_i64, %c64_i64, %c64_i64{{.*}})
// CHECK:   memref.extract_aligned_pointer_as_index %[[A]]
// CHECK:   call @pitCudaTensorMap2D(%{{.+}}, %c256_i64{{.*}}, %c256_i64{{.*}}, %c128_i64, %c64_i64{{.*}})
// CHECK:   %[[BLOCKS:.+]] = arith.minui %c4{{.*}}, %[[SMS_INDEX]]
// CHECK:   %[[PAIRS:.+]] = arith.divui %[[BLOCKS]], %c2
// CHECK:   %[[WHOLE:.+]] = arith.muli %[[PAIRS]], %c2
// CHECK:   %[[GRID:.+]] = arith.maxui %[[WHOLE]], %c2
// CHECK: gpu.launch clusters({{.+}}) in ({{.+}} = %c2{{.*}}, {{.+}}) blocks(%[[BLOCK:[^,]+]], {{.+}}) in (%[[GRIDDIM:[^ ]+]] = %[[GRID]], {{.+}}) threads({{.+}}) in ({{.+}} = %c384{{.*}}, {{.+}}) dynamic_shared_memory_size %c197680_i32
// CHECK:   memref.view {{.+}} to memref<4x128x64xf16, #gpu.address_space<workgroup>>
// CHECK:   memref.view {{.+}} to memref<4x4x64x64xf16, #gpu.address_space<workgroup>>
// CHECK:   memref.view {{.+}} to memref<8xi64, #gpu.address_space<workgroup>>
// The second warpgroup's rows of A start 64 rows (8192 bytes) further.
// CHECK:   %[[WARPGROUP:[0-9]+]] = arith.divui %arg{{[0-9]+}}, %c128
// CHECK:   nvvm.mbarrier.init %{{.+}}, %c1_i32
// CHECK:   nvvm.mbarrier.init %{{.+}}, %c16_i32
// CHECK:   nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK:   nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK:   %[[COPIER:.+]] = arith.cmpi uge, %arg{{[0-9]+}}, %c256
// CHECK:   scf.if %[[COPIER]] {
// CHECK:     nvvm.setmaxregister  decrease 104
// CHECK:     scf.if
// CHECK:       scf.for %{{.+}} = %[[BLOCK]] to %c4{{.*}} step %[[GRIDDIM]] iter_args
// CHECK:       scf.for
// CHECK:         arith.cmpi uge, %{{.+}}, %c4
// CHECK:         nvvm.mbarrier.try_wait.parity
// CHECK:         nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c49152_i32
// CHECK:         %[[TILEA:.+]] = nvvm.mapa
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %[[TILEA]], %{{.+}}, %{{.+}}, box[%{{.+}}, %{{.+}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.+}} multicast_mask = %c3_i16
// CHECK-NOT:     nvvm.cp.async.bulk.tensor
// CHECK:   } else {
// CHECK:     nvvm.setmaxregister  increase 200
// CHECK:     scf.for %{{.+}} = %[[BLOCK]] to %c4{{.*}} step %[[GRIDDIM]] iter_args
// CHECK:     llvm.mlir.zero : !llvm.struct<(f32
// CHECK:     scf.for
// CHECK:       nvvm.mbarrier.try_wait.parity
// CHECK-NOT:   nvvm.fence.proxy
// CHECK:       arith.muli %[[WARPGROUP]], %c8192
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.+}} <m = 64, n = 256, k = 16>
// CHECK-NOT:   nvvm.wgmma.mma_async
// CHECK:       nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:       nvvm.mapa %{{.+}}, %c0_i32
// CHECK-NEXT:  nvvm.mbarrier.arrive %{{.+}} : !llvm.ptr<7>
// CHECK:       nvvm.mapa %{{.+}}, %c1_i32
// CHECK-NEXT:  nvvm.mbarrier.arrive %{{.+}} : !llvm.ptr<7>
// CHECK:     nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:     nvvm.mbarrier.arrive %{{.+}} : !llvm.ptr<7>
// CHECK:     vector.store
// CHECK:   nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK:   nvvm.mbarrier.inval

// SINGLE: %[[BLOCKS:.+]] = arith.minui %c4{{.*}}, %{{.+}}
// SINGLE: gpu.launch blocks({{.+}}) in ({{.+}} = %{{.+}}, {{.+}}) threads({{.+}}) in ({{.+}} = %c384{{.*}}, {{.+}}) dynamic_shared_memory_size %c197680_i32
// SINGLE:   nvvm.mbarrier.init %{{.+}}, %c1_i32
// SINGLE:   nvvm.mbarrier.init %{{.+}}, %c8_i32
// SINGLE-NOT: nvvm.cluster
// SINGLE:   gpu.barrier
// SINGLE:         nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c49152_i32
// SINGLE-COUNT-5: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.+}} : !llvm.ptr<7>, !llvm.ptr
// SINGLE-NOT:     multicast_mask
// SINGLE:       nvvm.wgmma.wait.group.sync.aligned 1
// SINGLE:       nvvm.mbarrier.arrive %{{.+}} : !llvm.ptr<3>
// SINGLE:   gpu.barrier
// SINGLE:   nvvm.mbarrier.inval

// CPASYNC-NOT: pitCudaTensorMap2D
// CPASYNC: gpu.launch blocks({{.+}}) in ({{.+}} = %c4{{.*}}, {{.+}}) threads({{.+}}) in ({{.+}} = %c384{{.*}}, {{.+}}) dynamic_shared_memory_size %c197680_i32
// CPASYNC:   nvvm.mbarrier.init %{{.+}}, %c128_i32
// CPASYNC:   nvvm.mbarrier.init %{{.+}}, %c256_i32
// CPASYNC:   gpu.barrier
// CPASYNC:   %[[COPIER:.+]] = arith.cmpi uge, %arg{{[0-9]+}}, %c256
// CPASYNC:   scf.if %[[COPIER]] {
// CPASYNC:     nvvm.setmaxregister  decrease 104
// CPASYNC:     scf.for
// CPASYNC:       nvvm.mbarrier.try_wait.parity
// CPASYNC:       nvgpu.device_async_copy
// CPASYNC:       nvvm.cp.async.mbarrier.arrive %{{.+}} {noinc = true}
// CPASYNC:   } else {
// CPASYNC:     nvvm.setmaxregister  increase 200
// CPASYNC:       nvvm.mbarrier.try_wait.parity
// CPASYNC:       nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CPASYNC-COUNT-4: nvvm.wgmma.mma_async {{.+}} <m = 64, n = 256, k = 16>
// CPASYNC:       nvvm.wgmma.wait.group.sync.aligned 1
// CPASYNC:       nvvm.mbarrier.arrive %{{.+}} : !llvm.ptr<3>
// CPASYNC:   gpu.barrier
// CPASYNC:   nvvm.mbarrier.inval

// PLAIN: gpu.launch blocks({{.+}}) in ({{.+}} = %c4{{.*}}, {{.+}}) threads({{.+}}) in ({{.+}} = %c256{{.*}}, {{.+}}) dynamic_shared_memory_size %c148464_i32
// PLAIN:   memref.view {{.+}} to memref<3x128x64xf16, #gpu.address_space<workgroup>>
// PLAIN:   memref.view {{.+}} to memref<3x4x64x64xf16, #gpu.address_space<workgroup>>
// PLAIN-NOT: mbarrier
// PLAIN:   llvm.mlir.zero : !llvm.struct<(f32
// PLAIN-COUNT-4: nvvm.wgmma.mma_async {{.+}} <m = 64, n = 256, k = 16>
// PLAIN:   gpu.barrier
module {
  func.func @dense(%arg0: memref<256x256xf16>, %arg1: memref<256x512xf16>, %arg2: memref<256x512xf32>) {
    linalg.matmul ins(%arg0, %arg1 : memref<256x256xf16>, memref<256x512xf16>) outs(%arg2 : memref<256x512xf32>)
    return
  }
}
