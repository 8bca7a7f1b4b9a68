// On sm_90a, a tensor-core block whose rows come in 64s and whose chunks of
// k are 64 multiplies with wgmma, two stages: A (64 x 64 a stage) and B
// (256 columns in blocks of 64, k x 64 each) in dynamic shared memory,
// moved up to the next multiple of 1024 bytes (the launch asks for 1008
// bytes more); the copies are fenced for wgmma's async proxy; chunk c is
// multiplied (one m64n256k16 per 16 of k, from descriptors) while the
// copies of chunk c + 1 go out, and the accumulators are read after the
// last wait. (This is the block without warp specialisation: see
// pit-to-gpu-dense-wgmma.mlir for it.)
// The input is what pit-sparsify gives (pit IR):
// each run starts at the strategy or the conversion.
// RUN: pit-opt %s --pit-gpu-strategy="chip=sm_90a mma-specialize=false" --convert-pit-to-gpu=chip=sm_90a --pit-gpu-coalesce-allocations | FileCheck %s
// Warp-specialised (the default), the copying warpgroup gathers the chunks
// through the index: 256 threads, 4 stages; a block of two warpgroups has
// registers enough for both, none move.
// RUN: pit-opt %s --convert-pit-to-gpu=chip=sm_90a --pit-gpu-coalesce-allocations | FileCheck %s --check-prefix=SPECIALIZED
// sm_90 has no wgmma: the same block uses mma.sync.
// RUN: pit-opt %s --convert-pit-to-gpu=chip=sm_90 --pit-gpu-coalesce-allocations | FileCheck %s --check-prefix=SM90

// CHECK: gpu.launch {{.+}} dynamic_shared_memory_size %c82928_i32
// CHECK:   %[[SHARED:.+]] = gpu.dynamic_shared_memory
// CHECK:   %[[ADDRESS:.+]] = memref.extract_aligned_pointer_as_index %[[SHARED]]
// CHECK:   arith.remui %[[ADDRESS]], %c1024
// CHECK:   memref.view %[[SHARED]][{{.+}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x64x64xf16, #gpu.address_space<workgroup>>
// CHECK:   memref.view %[[SHARED]][{{.+}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x4x64x64xf16, #gpu.address_space<workgroup>>
// CHECK:   %[[ZERO:.+]] = llvm.mlir.zero : !llvm.struct<(f32
// CHECK:   scf.for {{.+}} iter_args(%{{.+}} = %[[ZERO]])
// CHECK:     nvvm.cp.async.wait.group 0
// CHECK:     nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK:     gpu.barrier
// CHECK:     nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.+}} <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK:     nvvm.wgmma.commit.group.sync.aligned
// CHECK:     nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:     gpu.barrier
// CHECK:     nvgpu.device_async_copy
// CHECK:   nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:   llvm.extractvalue
// SPECIALIZED: gpu.launch {{.+}} threads({{.+}}) in ({{.+}} = %c256{{.*}}, {{.+}}) dynamic_shared_memory_size
// SPECIALIZED:   memref.view {{.+}} to memref<4x64x64xf16, #gpu.address_space<workgroup>>
// SPECIALIZED:   arith.cmpi uge, %arg{{[0-9]+}}, %c128
// SPECIALIZED-NOT: setmaxregister
// SPECIALIZED:     memref.load %view{{.*}} : memref<4x4xi32>
// SPECIALIZED:     nvgpu.device_async_copy
// SPECIALIZED:     nvvm.cp.async.mbarrier.arrive
// SPECIALIZED:   } else {
// SPECIALIZED-NOT: setmaxregister
// SPECIALIZED:     nvvm.wgmma.mma_async
// SM90-NOT: wgmma
// SM90: nvgpu.mma.sync
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @matmul(%arg0: memref<256x256xf16>, %arg1: memref<256x256xf16>, %arg2: memref<256x256xf32>) {
    %alloc = memref.alloc() : memref<4xi32>
    %alloc_0 = memref.alloc() : memref<4x4xi32>
    pit.detect %arg0 micro_tile [64, 64] axis 1 into %alloc, %alloc_0 : memref<256x256xf16>, memref<4xi32>, memref<4x4xi32>
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<4xi32>) domain [256, 256, 256] tile [64, 64, 64] micro_tile [64, 64] pit_axis 2 sparse_map #map {
      %0 = memref.load %alloc[%arg6] : memref<4xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<64x64xf16>
      %alloca_1 = memref.alloca() : memref<64x64xf16>
      %alloca_2 = memref.alloca() : memref<64x64xf32>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %1 axis 1 micro 64 : memref<256x256xf16> to memref<64x64xf16>, memref<4x4xi32>
      pit.sread %arg1[%arg5, %arg4] into %alloca_1 gather %alloc_0[%arg6] count %1 axis 0 micro 64 : memref<256x256xf16> to memref<64x64xf16>, memref<4x4xi32>
      %cst = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst : f32) outs(%alloca_2 : memref<64x64xf32>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1 : memref<64x64xf16>, memref<64x64xf16>) outs(%alloca_2 : memref<64x64xf32>) {
      ^bb0(%in: f16, %in_3: f16, %out: f32):
        %2 = arith.extf %in : f16 to f32
        %3 = arith.extf %in_3 : f16 to f32
        %4 = arith.mulf %2, %3 : f32
        %5 = arith.addf %out, %4 : f32
        linalg.yield %5 : f32
      }
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] combine <add> : memref<64x64xf32> to memref<256x256xf32>
    }
    memref.dealloc %alloc_0 : memref<4x4xi32>
    memref.dealloc %alloc : memref<4xi32>
    return
  }
}
