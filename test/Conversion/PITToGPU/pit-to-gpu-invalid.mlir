// What the GPU lowering cannot do is an error on the op, not a crash.
// The input is what pit-sparsify gives (pit IR):
// each run starts at the strategy or the conversion.
// RUN: pit-opt %s -split-input-file --convert-pit-to-gpu --pit-gpu-coalesce-allocations -verify-diagnostics

// 1x1024 rows along m: tiles of 32x1024 and 1024x64 f32 do not fit.

#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @too_much_shared_memory(%arg0: memref<128x1024xf32>, %arg1: memref<1024x64xf32>, %arg2: memref<128x64xf32>) {
    %alloc = memref.alloc() : memref<1xi32>
    %alloc_0 = memref.alloc() : memref<1x128xi32>
    pit.detect %arg0 micro_tile [1, 1024] axis 0 into %alloc, %alloc_0 : memref<128x1024xf32>, memref<1xi32>, memref<1x128xi32>
    // expected-error @+1 {{'pit.stile' op its tile buffers need 401408 bytes of shared memory, more than 49152; choose smaller tiles}}
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<1xi32>) domain [128, 64, 1024] tile [32, 64, 1024] micro_tile [1, 1024] pit_axis 0 sparse_map #map {
      %0 = memref.load %alloc[%arg6] : memref<1xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<32x1024xf32>
      %alloca_1 = memref.alloca() : memref<1024x64xf32>
      %alloca_2 = memref.alloca() : memref<32x64xf32>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %1 axis 0 micro 1 : memref<128x1024xf32> to memref<32x1024xf32>, memref<1x128xi32>
      pit.sread %arg1[%arg5, %arg4] into %alloca_1 : memref<1024x64xf32> to memref<1024x64xf32>
      %cst = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst : f32) outs(%alloca_2 : memref<32x64xf32>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1 : memref<32x1024xf32>, memref<1024x64xf32>) outs(%alloca_2 : memref<32x64xf32>) {
      ^bb0(%in: f32, %in_3: f32, %out: f32):
        %2 = arith.mulf %in, %in_3 : f32
        %3 = arith.addf %out, %2 : f32
        linalg.yield %3 : f32
      }
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] scatter %alloc_0[%arg6] count %1 axis 0 micro 1 combine <add> : memref<32x64xf32> to memref<128x64xf32>, memref<1x128xi32>
    }
    memref.dealloc %alloc_0 : memref<1x128xi32>
    memref.dealloc %alloc : memref<1xi32>
    return
  }
}
