// A zero fill of C folds into the matmul STile's stores across the k-by-n
// copy of B that pit-transpose-matmul-b puts between them (y = x W^T): C is
// then written once, through the TMA on sm_90a, instead of cleared by a
// kernel of its own and read back to add to.
// The input is what pit-transpose-matmul-b, pit-sparsify and pit-gpu-strategy give
// (its configs included): the conversion runs alone.
// RUN: pit-opt %s -split-input-file --convert-pit-to-gpu=chip=sm_90a --pit-gpu-coalesce-allocations 2>/dev/null | FileCheck %s

// The transpose, the detection and the STile: no kernel clears C.
// CHECK-LABEL: func @linear
// CHECK: call @pitCudaTensorMap2D(%{{.+}}, %c256_i64, %c256_i64{{.*}}, %c32_i64, %c64_i64)
// CHECK-COUNT-3: gpu.launch blocks
// CHECK-NOT: gpu.launch blocks
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: return
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @linear(%arg0: memref<256x512xf16>, %arg1: memref<256x512xf16>, %arg2: memref<256x256xf16>) {
    %cst = arith.constant 0.000000e+00 : f16
    linalg.fill ins(%cst : f16) outs(%arg2 : memref<256x256xf16>)
    %alloc = memref.alloc() : memref<512x256xf16>
    linalg.transpose ins(%arg1 : memref<256x512xf16>) outs(%alloc : memref<512x256xf16>) permutation = [1, 0] 
    %alloc_0 = memref.alloc() : memref<8xi32>
    %alloc_1 = memref.alloc() : memref<8x8xi32>
    pit.detect %arg0 micro_tile [32, 64] axis 1 into %alloc_0, %alloc_1 : memref<256x512xf16>, memref<8xi32>, memref<8x8xi32>
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc_0 : memref<8xi32>) domain [256, 256, 512] tile [32, 64, 64] micro_tile [32, 64] pit_axis 2 sparse_map #map attributes {pit.mma_config = #pit.mma_config<block = [32, 256, 64], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 2>} {
      %0 = memref.load %alloc_0[%arg6] : memref<8xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<32x64xf16>
      %alloca_2 = memref.alloca() : memref<64x64xf16>
      %alloca_3 = memref.alloca() : memref<32x64xf16>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_1[%arg6] count %1 axis 1 micro 64 : memref<256x512xf16> to memref<32x64xf16>, memref<8x8xi32>
      pit.sread %alloc[%arg5, %arg4] into %alloca_2 gather %alloc_1[%arg6] count %1 axis 0 micro 64 : memref<512x256xf16> to memref<64x64xf16>, memref<8x8xi32>
      %cst_4 = arith.constant 0.000000e+00 : f16
      linalg.fill ins(%cst_4 : f16) outs(%alloca_3 : memref<32x64xf16>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_2 : memref<32x64xf16>, memref<64x64xf16>) outs(%alloca_3 : memref<32x64xf16>) {
      ^bb0(%in: f16, %in_5: f16, %out: f16):
        %2 = arith.mulf %in, %in_5 : f16
        %3 = arith.addf %out, %2 : f16
        linalg.yield %3 : f16
      }
      pit.swrite %alloca_3 into %arg2[%arg3, %arg4] combine <add> : memref<32x64xf16> to memref<256x256xf16>
    }
    memref.dealloc %alloc_1 : memref<8x8xi32>
    memref.dealloc %alloc_0 : memref<8xi32>
    memref.dealloc %alloc : memref<512x256xf16>
    return
  }
}

// -----

// A copy that reads C between the fill and the matmul sees the zeros: the
// fill stays, and the STile adds to C.
// CHECK-LABEL: func @reads_c
// CHECK-NOT: pitCudaTensorMap2D
// CHECK: return
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @reads_c(%arg0: memref<256x512xf16>, %arg1: memref<512x256xf16>, %arg2: memref<256x256xf16>, %arg3: memref<256x256xf16>) {
    %cst = arith.constant 0.000000e+00 : f16
    linalg.fill ins(%cst : f16) outs(%arg2 : memref<256x256xf16>)
    %alloc = memref.alloc() : memref<256x256xf16>
    linalg.transpose ins(%arg2 : memref<256x256xf16>) outs(%alloc : memref<256x256xf16>) permutation = [1, 0] 
    %alloc_0 = memref.alloc() : memref<8xi32>
    %alloc_1 = memref.alloc() : memref<8x8xi32>
    pit.detect %arg0 micro_tile [32, 64] axis 1 into %alloc_0, %alloc_1 : memref<256x512xf16>, memref<8xi32>, memref<8x8xi32>
    pit.stile (%arg4, %arg5, %arg6) segment(%arg7) counts(%alloc_0 : memref<8xi32>) domain [256, 256, 512] tile [32, 64, 64] micro_tile [32, 64] pit_axis 2 sparse_map #map attributes {pit.mma_config = #pit.mma_config<block = [32, 256, 64], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 2>} {
      %0 = memref.load %alloc_0[%arg7] : memref<8xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<32x64xf16>
      %alloca_2 = memref.alloca() : memref<64x64xf16>
      %alloca_3 = memref.alloca() : memref<32x64xf16>
      pit.sread %arg0[%arg4, %arg6] into %alloca gather %alloc_1[%arg7] count %1 axis 1 micro 64 : memref<256x512xf16> to memref<32x64xf16>, memref<8x8xi32>
      pit.sread %arg1[%arg6, %arg5] into %alloca_2 gather %alloc_1[%arg7] count %1 axis 0 micro 64 : memref<512x256xf16> to memref<64x64xf16>, memref<8x8xi32>
      %cst_4 = arith.constant 0.000000e+00 : f16
      linalg.fill ins(%cst_4 : f16) outs(%alloca_3 : memref<32x64xf16>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_2 : memref<32x64xf16>, memref<64x64xf16>) outs(%alloca_3 : memref<32x64xf16>) {
      ^bb0(%in: f16, %in_5: f16, %out: f16):
        %2 = arith.mulf %in, %in_5 : f16
        %3 = arith.addf %out, %2 : f16
        linalg.yield %3 : f16
      }
      pit.swrite %alloca_3 into %arg2[%arg4, %arg5] combine <add> : memref<32x64xf16> to memref<256x256xf16>
    }
    memref.dealloc %alloc_1 : memref<8x8xi32>
    memref.dealloc %alloc_0 : memref<8xi32>
    linalg.copy ins(%alloc : memref<256x256xf16>) outs(%arg3 : memref<256x256xf16>)
    memref.dealloc %alloc : memref<256x256xf16>
    return
  }
}
