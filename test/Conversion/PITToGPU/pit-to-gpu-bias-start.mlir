// A bias broadcast into C just before a matmul (y = x W^T + b) folds into
// the tensor-core kernel's stores, as a zero fill does: the kernel adds the
// bias to its f32 sums where it writes C (through the TMA on sm_90a), and no
// kernel of its own writes the bias into C for the matmul to read back.
// The input is what pit-transpose-matmul-b, pit-sparsify and pit-gpu-strategy give
// (its configs included): the conversion runs alone.
// RUN: pit-opt %s -split-input-file --convert-pit-to-gpu=chip=sm_90a --pit-gpu-coalesce-allocations 2>/dev/null | FileCheck %s

// bias[i] in row i of C (y^T = W x^T + b): W's copy, the detection and the
// STile, which loads the bias of a thread's row for each pair it stores.
// CHECK-LABEL: func @row_bias
// CHECK-COUNT-3: gpu.launch blocks
// CHECK-NOT: gpu.launch blocks
// CHECK: %[[BIAS:.+]] = memref.load %arg2[%{{.+}}] : memref<256xf16>
// CHECK: %[[WIDE:.+]] = arith.extf %[[BIAS]] : f16 to f32
// CHECK: vector.broadcast %[[WIDE]] : f32 to vector<2xf32>
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: return
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @row_bias(%arg0: memref<256x512xf16>, %arg1: memref<256x512xf16>, %arg2: memref<256xf16>, %arg3: memref<256x256xf16>) {
    linalg.broadcast ins(%arg2 : memref<256xf16>) outs(%arg3 : memref<256x256xf16>) dimensions = [1] 
    %alloc = memref.alloc() : memref<512x256xf16>
    linalg.transpose ins(%arg1 : memref<256x512xf16>) outs(%alloc : memref<512x256xf16>) permutation = [1, 0] 
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
      pit.sread %alloc[%arg6, %arg5] into %alloca_2 gather %alloc_1[%arg7] count %1 axis 0 micro 64 : memref<512x256xf16> to memref<64x64xf16>, memref<8x8xi32>
      %cst = arith.constant 0.000000e+00 : f16
      linalg.fill ins(%cst : f16) outs(%alloca_3 : memref<32x64xf16>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_2 : memref<32x64xf16>, memref<64x64xf16>) outs(%alloca_3 : memref<32x64xf16>) {
      ^bb0(%in: f16, %in_4: f16, %out: f16):
        %2 = arith.mulf %in, %in_4 : f16
        %3 = arith.addf %out, %2 : f16
        linalg.yield %3 : f16
      }
      pit.swrite %alloca_3 into %arg3[%arg4, %arg5] combine <add> : memref<32x64xf16> to memref<256x256xf16>
    }
    memref.dealloc %alloc_1 : memref<8x8xi32>
    memref.dealloc %alloc_0 : memref<8xi32>
    memref.dealloc %alloc : memref<512x256xf16>
    return
  }
}

// -----

// bias[j] in column j, an f32 C: each pair of a thread's neighbouring sums
// gets the bias pair of its columns, and the threads store C themselves.
// CHECK-LABEL: func @column_bias
// CHECK-COUNT-2: gpu.launch blocks
// CHECK-NOT: gpu.launch blocks
// CHECK: vector.load %arg2[%{{.+}}] {{.*}}: memref<256xf32>, vector<2xf32>
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: return
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @column_bias(%arg0: memref<256x512xbf16>, %arg1: memref<512x256xbf16>, %arg2: memref<256xf32>, %arg3: memref<256x256xf32>) {
    linalg.broadcast ins(%arg2 : memref<256xf32>) outs(%arg3 : memref<256x256xf32>) dimensions = [0] 
    %alloc = memref.alloc() : memref<16xi32>
    %alloc_0 = memref.alloc() : memref<16x32xi32>
    pit.detect %arg0 micro_tile [16, 16] axis 1 into %alloc, %alloc_0 : memref<256x512xbf16>, memref<16xi32>, memref<16x32xi32>
    pit.stile (%arg4, %arg5, %arg6) segment(%arg7) counts(%alloc : memref<16xi32>) domain [256, 256, 512] tile [16, 64, 32] micro_tile [16, 16] pit_axis 2 sparse_map #map attributes {pit.mma_config = #pit.mma_config<block = [16, 256, 32], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 2>} {
      %0 = memref.load %alloc[%arg7] : memref<16xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<16x32xbf16>
      %alloca_1 = memref.alloca() : memref<32x64xbf16>
      %alloca_2 = memref.alloca() : memref<16x64xf32>
      pit.sread %arg0[%arg4, %arg6] into %alloca gather %alloc_0[%arg7] count %1 axis 1 micro 16 : memref<256x512xbf16> to memref<16x32xbf16>, memref<16x32xi32>
      pit.sread %arg1[%arg6, %arg5] into %alloca_1 gather %alloc_0[%arg7] count %1 axis 0 micro 16 : memref<512x256xbf16> to memref<32x64xbf16>, memref<16x32xi32>
      %cst = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst : f32) outs(%alloca_2 : memref<16x64xf32>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1 : memref<16x32xbf16>, memref<32x64xbf16>) outs(%alloca_2 : memref<16x64xf32>) {
      ^bb0(%in: bf16, %in_3: bf16, %out: f32):
        %2 = arith.extf %in : bf16 to f32
        %3 = arith.extf %in_3 : bf16 to f32
        %4 = arith.mulf %2, %3 : f32
        %5 = arith.addf %out, %4 : f32
        linalg.yield %5 : f32
      }
      pit.swrite %alloca_2 into %arg3[%arg4, %arg5] combine <add> : memref<16x64xf32> to memref<256x256xf32>
    }
    memref.dealloc %alloc_0 : memref<16x32xi32>
    memref.dealloc %alloc : memref<16xi32>
    return
  }
}

// -----

// A copy that reads C between the broadcast and the matmul sees the bias:
// the broadcast stays, a kernel of its own, and the STile adds into C.
// CHECK-LABEL: func @reads_c
// CHECK-NOT: pitCudaTensorMap2D
// CHECK: %[[BIAS:.+]] = memref.load %arg2[%{{.+}}] : memref<256xf16>
// CHECK-NEXT: memref.store %[[BIAS]], %arg3
// CHECK-NOT: memref.load %arg2
// CHECK: return
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @reads_c(%arg0: memref<256x512xf16>, %arg1: memref<512x256xf16>, %arg2: memref<256xf16>, %arg3: memref<256x256xf16>, %arg4: memref<256x256xf16>) {
    linalg.broadcast ins(%arg2 : memref<256xf16>) outs(%arg3 : memref<256x256xf16>) dimensions = [1] 
    %alloc = memref.alloc() : memref<256x256xf16>
    linalg.transpose ins(%arg3 : memref<256x256xf16>) outs(%alloc : memref<256x256xf16>) permutation = [1, 0] 
    %alloc_0 = memref.alloc() : memref<8xi32>
    %alloc_1 = memref.alloc() : memref<8x8xi32>
    pit.detect %arg0 micro_tile [32, 64] axis 1 into %alloc_0, %alloc_1 : memref<256x512xf16>, memref<8xi32>, memref<8x8xi32>
    pit.stile (%arg5, %arg6, %arg7) segment(%arg8) counts(%alloc_0 : memref<8xi32>) domain [256, 256, 512] tile [32, 64, 64] micro_tile [32, 64] pit_axis 2 sparse_map #map attributes {pit.mma_config = #pit.mma_config<block = [32, 256, 64], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 2>} {
      %0 = memref.load %alloc_0[%arg8] : memref<8xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<32x64xf16>
      %alloca_2 = memref.alloca() : memref<64x64xf16>
      %alloca_3 = memref.alloca() : memref<32x64xf16>
      pit.sread %arg0[%arg5, %arg7] into %alloca gather %alloc_1[%arg8] count %1 axis 1 micro 64 : memref<256x512xf16> to memref<32x64xf16>, memref<8x8xi32>
      pit.sread %arg1[%arg7, %arg6] into %alloca_2 gather %alloc_1[%arg8] count %1 axis 0 micro 64 : memref<512x256xf16> to memref<64x64xf16>, memref<8x8xi32>
      %cst = arith.constant 0.000000e+00 : f16
      linalg.fill ins(%cst : f16) outs(%alloca_3 : memref<32x64xf16>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_2 : memref<32x64xf16>, memref<64x64xf16>) outs(%alloca_3 : memref<32x64xf16>) {
      ^bb0(%in: f16, %in_4: f16, %out: f16):
        %2 = arith.mulf %in, %in_4 : f16
        %3 = arith.addf %out, %2 : f16
        linalg.yield %3 : f16
      }
      pit.swrite %alloca_3 into %arg3[%arg5, %arg6] combine <add> : memref<32x64xf16> to memref<256x256xf16>
    }
    memref.dealloc %alloc_1 : memref<8x8xi32>
    memref.dealloc %alloc_0 : memref<8xi32>
    linalg.copy ins(%alloc : memref<256x256xf16>) outs(%arg4 : memref<256x256xf16>)
    memref.dealloc %alloc : memref<256x256xf16>
    return
  }
}
