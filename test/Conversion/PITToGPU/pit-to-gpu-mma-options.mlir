// The shape of a tensor-core matmul block comes from the strategy's options. (A's
// 32x1 micro-tiles come from the detection's compacted copy, into a k-major
// tile: k x 32.)
// The input is what pit-sparsify gives (pit IR):
// each run starts at the strategy or the conversion.
// RUN: pit-opt %s --pit-gpu-strategy="mma-block-columns=64 mma-chunk=64 mma-stages=3" --convert-pit-to-gpu --pit-gpu-coalesce-allocations | FileCheck %s --check-prefix=THREE
// Four stages of 32x64 A and 64x256 B would need 147 KiB of shared memory:
// the block gets as many as fit in 96 KiB, here two; past 48 KiB they are
// views of dynamic shared memory, which the launch asks for.
// RUN: pit-opt %s --pit-gpu-strategy="mma-block-columns=256 mma-chunk=64 mma-stages=4" --convert-pit-to-gpu --pit-gpu-coalesce-allocations | FileCheck %s --check-prefix=FIT
// Block columns that do not divide n fall back to the STile's own tile.
// RUN: pit-opt %s --pit-gpu-strategy=mma-block-columns=384 --convert-pit-to-gpu --pit-gpu-coalesce-allocations | FileCheck %s --check-prefix=TILE

// THREE: gpu.launch {{.+}} workgroup(%{{.+}} : memref<3x64x32xf16, #gpu.address_space<workgroup>>, %{{.+}} : memref<3x64x64xf16, #gpu.address_space<workgroup>>)
// THREE:   nvvm.cp.async.commit.group
// THREE:   nvvm.cp.async.commit.group
// THREE:   scf.for
// THREE:     nvvm.cp.async.wait.group 2
// FIT: gpu.launch {{.+}} dynamic_shared_memory_size %c73728_i32
// FIT:   %[[SHARED:.+]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// FIT:   memref.view %[[SHARED]][%c0{{(_[0-9]+)?}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x64x32xf16, #gpu.address_space<workgroup>>
// FIT:   memref.view %[[SHARED]][%c8192][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x64x256xf16, #gpu.address_space<workgroup>>
// FIT:   nvvm.cp.async.wait.group 1
// TILE: gpu.launch {{.+}} workgroup(%{{.+}} : memref<2x32x32xf16, #gpu.address_space<workgroup>>, %{{.+}} : memref<2x32x64xf16, #gpu.address_space<workgroup>>)
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @matmul(%arg0: memref<256x256xf16>, %arg1: memref<256x512xf16>, %arg2: memref<256x512xf32>) {
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
