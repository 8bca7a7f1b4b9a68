// The input is what pit-sparsify gives (pit IR):
// each run starts at the strategy or the conversion.
// RUN: pit-opt %s --convert-pit-to-gpu=chip=sm_90a --pit-gpu-coalesce-allocations -verify-diagnostics | FileCheck %s

// A panel STile whose rows are too many for the one block that orders them
// (32768 rows: 32 a thread of 1024) keeps them in A's order, and says so:
// the panels then hold consecutive rows, and no ordering kernel runs.
// CHECK-LABEL: func @many_rows
// CHECK-NOT: workgroup(%{{.+}} : memref<6xi32, #gpu.address_space<workgroup>>)
// CHECK: dynamic_shared_memory_size
// CHECK-NOT: memref<512xi32, #gpu.address_space<workgroup>>
// CHECK: return
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @many_rows(%arg0: memref<32768x256xf16>, %arg1: memref<256x128xf16>, %arg2: memref<32768x128xf32>) {
    %alloc = memref.alloc() : memref<4xi32>
    %alloc_0 = memref.alloc() : memref<4x32768xi32>
    pit.detect %arg0 micro_tile [1, 64] axis 0 into %alloc, %alloc_0 : memref<32768x256xf16>, memref<4xi32>, memref<4x32768xi32>
    // expected-remark @+1 {{rows of the panels left in their order (ordering takes 32 rows a thread, more than 16)}}
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<4xi32>) domain [32768, 128, 256] tile [64, 64, 64] micro_tile [1, 64] pit_axis 0 sparse_map #map attributes {group_rows, keep_tile, panel = 512 : i64} {
      %0 = memref.load %alloc[%arg6] : memref<4xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<64x64xf16>
      %alloca_1 = memref.alloca() : memref<64x64xf16>
      %alloca_2 = memref.alloca() : memref<64x64xf32>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %1 axis 0 micro 1 : memref<32768x256xf16> to memref<64x64xf16>, memref<4x32768xi32>
      pit.sread %arg1[%arg5, %arg4] into %alloca_1 : memref<256x128xf16> to memref<64x64xf16>
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
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] scatter %alloc_0[%arg6] count %1 axis 0 micro 1 combine <add> : memref<64x64xf32> to memref<32768x128xf32>, memref<4x32768xi32>
    }
    memref.dealloc %alloc_0 : memref<4x32768xi32>
    memref.dealloc %alloc : memref<4xi32>
    return
  }
}
