// Rows of A gathered along m scatter partial sums into C with atomics: from
// sm_90 on, four adjacent columns at a time (red.global.add.v4.f32): the two
// lanes that hold a run of four between them swap halves first.
// The input is what pit-sparsify gives (pit IR):
// each run starts at the strategy or the conversion.
// RUN: pit-opt %s --convert-pit-to-gpu=chip=sm_90 --pit-gpu-coalesce-allocations | FileCheck %s --check-prefix=SM90
// RUN: pit-opt %s --convert-pit-to-gpu=chip=sm_80 --pit-gpu-coalesce-allocations | FileCheck %s --check-prefix=SM80
// (ptxas assembles it: test/Pipelines/pit-to-ptx-vector-atomics.mlir.)

// SM90: gpu.launch {{.+}} workgroup
// SM90:   gpu.shuffle  xor %{{.+}} : f32
// SM90:   gpu.shuffle  xor %{{.+}} : f32
// SM90:   memref.extract_aligned_pointer_as_index %{{.+}} : memref<256x128xf32> -> index
// SM90:   llvm.inline_asm has_side_effects "red.global.add.v4.f32 [$0], {$1, $2, $3, $4};", "l,f,f,f,f" %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : (i64, f32, f32, f32, f32) -> ()
// SM90-NOT: atomic_rmw addf
// SM80: gpu.launch {{.+}} workgroup
// SM80-NOT: llvm.inline_asm
// SM80: memref.atomic_rmw addf
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @rows(%arg0: memref<256x256xf16>, %arg1: memref<256x128xf16>, %arg2: memref<256x128xf32>) {
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
