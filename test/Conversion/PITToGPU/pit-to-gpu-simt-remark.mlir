// An STile of f16 products that no tensor-core kernel takes says so: here
// B is the sparse operand, which the tensor-core kernels do not gather. An
// f32 STile (no tensor cores for it) runs on the SIMT lowering unremarked.
// The input is what pit-sparsify gives (pit IR):
// each run starts at the strategy or the conversion.
// RUN: pit-opt %s --pit-gpu-strategy=chip=sm_90a --convert-pit-to-gpu=chip=sm_90a --pit-gpu-coalesce-allocations -verify-diagnostics -o /dev/null

#map = affine_map<(d0, d1, d2) -> (d2, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @sparse_b(%arg0: memref<128x256xf16>, %arg1: memref<256x128xf16>, %arg2: memref<128x128xf16>) {
    %alloc = memref.alloc() : memref<2xi32>
    %alloc_0 = memref.alloc() : memref<2x8xi32>
    pit.detect %arg1 micro_tile [32, 64] axis 0 into %alloc, %alloc_0 : memref<256x128xf16>, memref<2xi32>, memref<2x8xi32>
    // expected-remark @+1 {{convert-pit-to-gpu: the tile runs on the SIMT lowering (CUDA cores): no tensor-core kernel takes it (they take matmuls whose sparse operand is A}}
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<2xi32>) domain [128, 128, 256] tile [64, 64, 32] micro_tile [32, 64] pit_axis 2 sparse_map #map {
      %0 = memref.load %alloc[%arg6] : memref<2xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<64x32xf16>
      %alloca_1 = memref.alloca() : memref<32x64xf16>
      %alloca_2 = memref.alloca() : memref<64x64xf16>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %1 axis 1 micro 32 : memref<128x256xf16> to memref<64x32xf16>, memref<2x8xi32>
      pit.sread %arg1[%arg5, %arg4] into %alloca_1 gather %alloc_0[%arg6] count %1 axis 0 micro 32 : memref<256x128xf16> to memref<32x64xf16>, memref<2x8xi32>
      %cst = arith.constant 0.000000e+00 : f16
      linalg.fill ins(%cst : f16) outs(%alloca_2 : memref<64x64xf16>)
      linalg.generic {indexing_maps = [#map1, #map, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1 : memref<64x32xf16>, memref<32x64xf16>) outs(%alloca_2 : memref<64x64xf16>) {
      ^bb0(%in: f16, %in_3: f16, %out: f16):
        %2 = arith.mulf %in, %in_3 : f16
        %3 = arith.addf %out, %2 : f16
        linalg.yield %3 : f16
      }
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] combine <add> : memref<64x64xf16> to memref<128x128xf16>
    }
    memref.dealloc %alloc_0 : memref<2x8xi32>
    memref.dealloc %alloc : memref<2xi32>
    return
  }
  func.func @single_precision(%arg0: memref<128x256xf32>, %arg1: memref<256x128xf32>, %arg2: memref<128x128xf32>) {
    %alloc = memref.alloc() : memref<4xi32>
    %alloc_0 = memref.alloc() : memref<4x256xi32>
    pit.detect %arg0 micro_tile [32, 1] axis 1 into %alloc, %alloc_0 : memref<128x256xf32>, memref<4xi32>, memref<4x256xi32>
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<4xi32>) domain [128, 128, 256] tile [32, 64, 32] micro_tile [32, 1] pit_axis 2 sparse_map #map1 {
      %0 = memref.load %alloc[%arg6] : memref<4xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<32x32xf32>
      %alloca_1 = memref.alloca() : memref<32x64xf32>
      %alloca_2 = memref.alloca() : memref<32x64xf32>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %1 axis 1 micro 1 : memref<128x256xf32> to memref<32x32xf32>, memref<4x256xi32>
      pit.sread %arg1[%arg5, %arg4] into %alloca_1 gather %alloc_0[%arg6] count %1 axis 0 micro 1 : memref<256x128xf32> to memref<32x64xf32>, memref<4x256xi32>
      %cst = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst : f32) outs(%alloca_2 : memref<32x64xf32>)
      linalg.generic {indexing_maps = [#map1, #map, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1 : memref<32x32xf32>, memref<32x64xf32>) outs(%alloca_2 : memref<32x64xf32>) {
      ^bb0(%in: f32, %in_3: f32, %out: f32):
        %2 = arith.mulf %in, %in_3 : f32
        %3 = arith.addf %out, %2 : f32
        linalg.yield %3 : f32
      }
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] combine <add> : memref<32x64xf32> to memref<128x128xf32>
    }
    memref.dealloc %alloc_0 : memref<4x256xi32>
    memref.dealloc %alloc : memref<4xi32>
    return
  }
}
