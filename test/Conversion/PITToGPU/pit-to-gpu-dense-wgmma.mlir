// The dense fallback of run-time selection on sm_90a (forced here: variant
// 4 of the lit tests' table is dense): blocks of 128 x 256, warp-specialised.
// A warpgroup for each 64 rows multiplies (m64n256k16 into one struct of 128
// f32), a third one copies: 384 threads, 4 stages of the 128 x 64 A tile and
// four 64 x 64 blocks of B, and each stage's full and empty mbarriers, in
// dynamic shared memory. The copying warpgroup gives registers to the
// multiplying ones; it waits for a stage to be empty from chunk 4 on, and
// each lane's copies arrive on the stage's full mbarrier as they land. The
// multiplying warps wait for it, fence for wgmma's async proxy, and free
// chunk c - 1's stage once chunk c is issued (at most one group in flight).
// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../../Inputs/latency-table.json variant=4" --convert-pit-to-gpu="chip=sm_90a" 2>/dev/null | FileCheck %s
// Without specialisation: 256 threads, 3 stages, a block barrier a chunk.
// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../../Inputs/latency-table.json variant=4" --convert-pit-to-gpu="chip=sm_90a mma-specialize=false" 2>/dev/null | FileCheck %s --check-prefix=PLAIN

// CHECK: gpu.launch blocks({{.+}}) in ({{.+}} = %c4{{.*}}, {{.+}}) threads({{.+}}) in ({{.+}} = %c384{{.*}}, {{.+}}) dynamic_shared_memory_size %c197680_i32
// CHECK:   memref.view {{.+}} to memref<4x128x64xf16, #gpu.address_space<workgroup>>
// CHECK:   memref.view {{.+}} to memref<4x4x64x64xf16, #gpu.address_space<workgroup>>
// CHECK:   memref.view {{.+}} to memref<8xi64, #gpu.address_space<workgroup>>
// The second warpgroup's rows of A start 64 rows (8192 bytes) further.
// CHECK:   %[[WARPGROUP:[0-9]+]] = arith.divui %arg{{[0-9]+}}, %c128
// CHECK:   nvvm.mbarrier.init %{{.+}}, %c128_i32
// CHECK:   nvvm.mbarrier.init %{{.+}}, %c256_i32
// CHECK:   gpu.barrier
// CHECK:   %[[COPYING:.+]] = arith.cmpi uge, %arg{{[0-9]+}}, %c256
// CHECK:   scf.if %[[COPYING]] {
// CHECK:     nvvm.setmaxregister  decrease 104
// CHECK:     scf.for
// CHECK:       arith.cmpi uge, %{{.+}}, %c4
// CHECK:       nvvm.mbarrier.try_wait.parity
// CHECK:       nvgpu.device_async_copy
// CHECK:       nvvm.cp.async.mbarrier.arrive %{{.+}} {noinc = true}
// CHECK:   } else {
// CHECK:     nvvm.setmaxregister  increase 200
// CHECK:     llvm.mlir.zero : !llvm.struct<(f32
// CHECK:     scf.for
// CHECK:       nvvm.mbarrier.try_wait.parity
// CHECK:       nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK:       arith.muli %[[WARPGROUP]], %c8192
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.+}} <m = 64, n = 256, k = 16>
// CHECK-NOT:   nvvm.wgmma.mma_async
// CHECK:       nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:       nvvm.mbarrier.arrive
// CHECK:     nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:   gpu.barrier
// CHECK:   nvvm.mbarrier.inval

// PLAIN: gpu.launch blocks({{.+}}) in ({{.+}} = %c4{{.*}}, {{.+}}) threads({{.+}}) in ({{.+}} = %c256{{.*}}, {{.+}}) dynamic_shared_memory_size %c148464_i32
// PLAIN:   memref.view {{.+}} to memref<3x128x64xf16, #gpu.address_space<workgroup>>
// PLAIN:   memref.view {{.+}} to memref<3x4x64x64xf16, #gpu.address_space<workgroup>>
// PLAIN-NOT: mbarrier
// PLAIN:   llvm.mlir.zero : !llvm.struct<(f32
// PLAIN-COUNT-4: nvvm.wgmma.mma_async {{.+}} <m = 64, n = 256, k = 16>
// PLAIN:   gpu.barrier
func.func @dense(%a: memref<256x256xf16>, %b: memref<256x512xf16>, %c: memref<256x512xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<256x256xf16>, memref<256x512xf16>) outs(%c : memref<256x512xf32>)
  return
}
