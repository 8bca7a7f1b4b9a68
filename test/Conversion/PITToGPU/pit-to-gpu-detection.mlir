// The input is what pit-sparsify and pit-gpu-strategy give
// (its configs included): the conversion runs alone.
// RUN: pit-opt %s -split-input-file --convert-pit-to-gpu --pit-gpu-coalesce-allocations | FileCheck %s

// Micro-tiles wider than a 16-byte vector (1x64 f16: 8 vectors): the 8
// threads of a micro-tile OR their flags with xor shuffles (offsets 4, 2, 1),
// and the first of them holds the flag. Gathered along rows, each micro-tile
// column is its own segment, with a micro-tile in every band (row): a thread
// scans 16 rows of its vector column (16 threads of 32 vectors: 4 blocks)
// and claims its column's slots once for all of them. The rows are loaded
// streaming (ld.global.cs: A is read once). A row is tested as
// 32-bit words without the halves' sign bits (-0 is zero), OR-ed: whether
// any lane is non-zero, without comparing each.
// CHECK-LABEL: func @rows_1x64
// CHECK: gpu.launch blocks({{.+}}) in ({{.+}} = %c4{{.*}}, {{.+}}) threads({{.+}}) in ({{.+}} = %c128
// CHECK-COUNT-16: llvm.inline_asm has_side_effects "ld.global.cs.v4.b32
// CHECK-NOT: arith.cmpf
// CHECK:   %[[WORDS:.+]] = vector.bitcast %{{.+}} : vector<8xf16> to vector<4xi32>
// CHECK:   arith.andi %[[WORDS]], %cst{{.*}} : vector<4xi32>
// CHECK:   vector.reduction <or>, %{{.+}} : vector<4xi32> into i32
// CHECK:   gpu.shuffle  xor %{{.+}}, %c4_i32
// CHECK:   gpu.shuffle  xor %{{.+}}, %c2_i32
// CHECK:   gpu.shuffle  xor %{{.+}}, %c1_i32
// CHECK-NOT: memref.atomic_rmw
// CHECK:   scf.if
// CHECK:     memref.atomic_rmw addi
// CHECK-NOT: memref.atomic_rmw
// CHECK-COUNT-16: memref.store
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @rows_1x64(%arg0: memref<256x256xf16>, %arg1: memref<256x128xf16>, %arg2: memref<256x128xf32>) {
    %alloc = memref.alloc() : memref<4xi32>
    %alloc_0 = memref.alloc() : memref<4x256xi32>
    pit.detect %arg0 micro_tile [1, 64] axis 0 into %alloc, %alloc_0 : memref<256x256xf16>, memref<4xi32>, memref<4x256xi32>
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<4xi32>) domain [256, 128, 256] tile [32, 64, 64] micro_tile [1, 64] pit_axis 0 sparse_map #map attributes {pit.mma_config = #pit.mma_config<block = [32, 64, 64], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 2>} {
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

// -----

// A scan of more than 512 blocks of 128 threads takes larger blocks, up to
// 512 threads: 1x64 at 4096x4096 (16 rows a thread: 131072 threads) is
// 512 blocks of 256, not 1024 of 128. A choice that leaves the detection
// out still waits for its blocks to start and end.
// CHECK-LABEL: func @large_scan
// CHECK: gpu.launch blocks({{.+}}) in ({{.+}} = %c512{{.*}}, {{.+}}) threads({{.+}}) in ({{.+}} = %c256
// CHECK-COUNT-16: llvm.inline_asm has_side_effects "ld.global.cs.v4.b32
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @large_scan(%arg0: memref<4096x4096xf16>, %arg1: memref<4096x128xf16>, %arg2: memref<4096x128xf32>) {
    %alloc = memref.alloc() : memref<64xi32>
    %alloc_0 = memref.alloc() : memref<64x4096xi32>
    pit.detect %arg0 micro_tile [1, 64] axis 0 into %alloc, %alloc_0 : memref<4096x4096xf16>, memref<64xi32>, memref<64x4096xi32>
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<64xi32>) domain [4096, 128, 4096] tile [32, 64, 64] micro_tile [1, 64] pit_axis 0 sparse_map #map attributes {pit.mma_config = #pit.mma_config<block = [32, 64, 64], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 2>} {
      %0 = memref.load %alloc[%arg6] : memref<64xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<32x64xf16>
      %alloca_1 = memref.alloca() : memref<64x64xf16>
      %alloca_2 = memref.alloca() : memref<32x64xf32>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %1 axis 0 micro 1 : memref<4096x4096xf16> to memref<32x64xf16>, memref<64x4096xi32>
      pit.sread %arg1[%arg5, %arg4] into %alloca_1 : memref<4096x128xf16> to memref<64x64xf16>
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
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] scatter %alloc_0[%arg6] count %1 axis 0 micro 1 combine <add> : memref<32x64xf32> to memref<4096x128xf32>, memref<64x4096xi32>
    }
    memref.dealloc %alloc_0 : memref<64x4096xi32>
    memref.dealloc %alloc : memref<64xi32>
    return
  }
}

// -----

// 16x16 micro-tiles gathered along k: 16 unrolled loads a thread, two
// threads a micro-tile; a warp (in one band) claims its slots with one
// atomic add.
// CHECK-LABEL: func @k_16x16
// CHECK-COUNT-16: llvm.inline_asm has_side_effects "ld.global.cs.v4.b32
// CHECK:   gpu.shuffle  xor %{{.+}}, %c1_i32
// CHECK-NOT: gpu.shuffle  xor
// CHECK-COUNT-5: gpu.shuffle  up
// CHECK:   memref.atomic_rmw addi
// CHECK-NOT: memref.atomic_rmw
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @k_16x16(%arg0: memref<256x256xf16>, %arg1: memref<256x128xf16>, %arg2: memref<256x128xf32>) {
    %alloc = memref.alloc() : memref<16xi32>
    %alloc_0 = memref.alloc() : memref<16x16xi32>
    pit.detect %arg0 micro_tile [16, 16] axis 1 into %alloc, %alloc_0 : memref<256x256xf16>, memref<16xi32>, memref<16x16xi32>
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<16xi32>) domain [256, 128, 256] tile [16, 64, 32] micro_tile [16, 16] pit_axis 2 sparse_map #map attributes {pit.mma_config = #pit.mma_config<block = [16, 64, 32], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 2>} {
      %0 = memref.load %alloc[%arg6] : memref<16xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<16x32xf16>
      %alloca_1 = memref.alloca() : memref<32x64xf16>
      %alloca_2 = memref.alloca() : memref<16x64xf32>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %1 axis 1 micro 16 : memref<256x256xf16> to memref<16x32xf16>, memref<16x16xi32>
      pit.sread %arg1[%arg5, %arg4] into %alloca_1 gather %alloc_0[%arg6] count %1 axis 0 micro 16 : memref<256x128xf16> to memref<32x64xf16>, memref<16x16xi32>
      %cst = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst : f32) outs(%alloca_2 : memref<16x64xf32>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1 : memref<16x32xf16>, memref<32x64xf16>) outs(%alloca_2 : memref<16x64xf32>) {
      ^bb0(%in: f16, %in_3: f16, %out: f32):
        %2 = arith.extf %in : f16 to f32
        %3 = arith.extf %in_3 : f16 to f32
        %4 = arith.mulf %2, %3 : f32
        %5 = arith.addf %out, %4 : f32
        linalg.yield %5 : f32
      }
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] combine <add> : memref<16x64xf32> to memref<256x128xf32>
    }
    memref.dealloc %alloc_0 : memref<16x16xi32>
    memref.dealloc %alloc : memref<16xi32>
    return
  }
}

// -----

// A 3-D sparse operand keeps the scan of a thread per micro-tile.
// CHECK-LABEL: func @batch
// CHECK-NOT: ld.global.cs
// CHECK: memref.atomic_rmw addi
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
module {
  func.func @batch(%arg0: memref<2x128x128xf16>, %arg1: memref<2x128x64xf16>, %arg2: memref<2x128x64xf32>) {
    %alloc = memref.alloc() : memref<8xi32>
    %alloc_0 = memref.alloc() : memref<8x128xi32>
    pit.detect %arg0 micro_tile [1, 32, 1] axis 2 into %alloc, %alloc_0 : memref<2x128x128xf16>, memref<8xi32>, memref<8x128xi32>
    pit.stile (%arg3, %arg4, %arg5, %arg6) segment(%arg7) counts(%alloc : memref<8xi32>) domain [2, 128, 64, 128] tile [1, 32, 64, 32] micro_tile [1, 32, 1] pit_axis 3 sparse_map #map attributes {pit.mma_config = #pit.mma_config<block = [32, 64, 32], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 2>} {
      %0 = memref.load %alloc[%arg7] : memref<8xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<1x32x32xf16>
      %alloca_1 = memref.alloca() : memref<1x32x64xf16>
      %alloca_2 = memref.alloca() : memref<1x32x64xf32>
      pit.sread %arg0[%arg3, %arg4, %arg6] into %alloca gather %alloc_0[%arg7] count %1 axis 2 micro 1 : memref<2x128x128xf16> to memref<1x32x32xf16>, memref<8x128xi32>
      pit.sread %arg1[%arg3, %arg6, %arg5] into %alloca_1 gather %alloc_0[%arg7] count %1 axis 1 micro 1 : memref<2x128x64xf16> to memref<1x32x64xf16>, memref<8x128xi32>
      %cst = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst : f32) outs(%alloca_2 : memref<1x32x64xf32>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1 : memref<1x32x32xf16>, memref<1x32x64xf16>) outs(%alloca_2 : memref<1x32x64xf32>) {
      ^bb0(%in: f16, %in_3: f16, %out: f32):
        %2 = arith.extf %in : f16 to f32
        %3 = arith.extf %in_3 : f16 to f32
        %4 = arith.mulf %2, %3 : f32
        %5 = arith.addf %out, %4 : f32
        linalg.yield %5 : f32
      }
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4, %arg5] combine <add> : memref<1x32x64xf32> to memref<2x128x64xf32>
    }
    memref.dealloc %alloc_0 : memref<8x128xi32>
    memref.dealloc %alloc : memref<8xi32>
    return
  }
}

// -----

// Rows of 16 vectors: a warp spans two bands (segments), so each thread
// claims its own slots.
// CHECK-LABEL: func @k_16x16_short_rows
// CHECK: gpu.shuffle  xor %{{.+}}, %c1_i32
// CHECK-NOT: gpu.shuffle
// CHECK: scf.if
// CHECK:   memref.atomic_rmw addi
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @k_16x16_short_rows(%arg0: memref<256x128xf16>, %arg1: memref<128x128xf16>, %arg2: memref<256x128xf32>) {
    %alloc = memref.alloc() : memref<16xi32>
    %alloc_0 = memref.alloc() : memref<16x8xi32>
    pit.detect %arg0 micro_tile [16, 16] axis 1 into %alloc, %alloc_0 : memref<256x128xf16>, memref<16xi32>, memref<16x8xi32>
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<16xi32>) domain [256, 128, 128] tile [16, 64, 32] micro_tile [16, 16] pit_axis 2 sparse_map #map attributes {pit.mma_config = #pit.mma_config<block = [16, 64, 32], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 2>} {
      %0 = memref.load %alloc[%arg6] : memref<16xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<16x32xf16>
      %alloca_1 = memref.alloca() : memref<32x64xf16>
      %alloca_2 = memref.alloca() : memref<16x64xf32>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %1 axis 1 micro 16 : memref<256x128xf16> to memref<16x32xf16>, memref<16x8xi32>
      pit.sread %arg1[%arg5, %arg4] into %alloca_1 gather %alloc_0[%arg6] count %1 axis 0 micro 16 : memref<128x128xf16> to memref<32x64xf16>, memref<16x8xi32>
      %cst = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst : f32) outs(%alloca_2 : memref<16x64xf32>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1 : memref<16x32xf16>, memref<32x64xf16>) outs(%alloca_2 : memref<16x64xf32>) {
      ^bb0(%in: f16, %in_3: f16, %out: f32):
        %2 = arith.extf %in : f16 to f32
        %3 = arith.extf %in_3 : f16 to f32
        %4 = arith.mulf %2, %3 : f32
        %5 = arith.addf %out, %4 : f32
        linalg.yield %5 : f32
      }
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] combine <add> : memref<16x64xf32> to memref<256x128xf32>
    }
    memref.dealloc %alloc_0 : memref<16x8xi32>
    memref.dealloc %alloc : memref<16xi32>
    return
  }
}

// -----

// 32x1 f16 with the compacted copy that the tensor-core STile reads: the 32
// rows of a band's vector column are split among 4 neighbouring lanes, 8
// rows each (8 bands x 32 vectors x 4 lanes: 8 blocks). The 4 lanes OR
// their flags (xor shuffles 1, 2); the warp claims once; the first of the 4
// records the positions; each lane writes its 8 rows of a micro-tile column
// as one 16-byte piece, next to those of the other three. The 8 rows'
// magnitude words (0x7FFF in each half) are OR-ed, and each lane is tested
// once, as a 16-bit integer.
// CHECK-LABEL: func @k_32x1_compacted
// CHECK: gpu.launch blocks({{.+}}) in ({{.+}} = %c8{{.*}}, {{.+}}) threads({{.+}}) in ({{.+}} = %c128
// CHECK-COUNT-8: llvm.inline_asm has_side_effects "ld.global.cs.v4.b32
// CHECK-NOT: ld.global.cs
// CHECK: arith.constant dense<2147450879> : vector<4xi32>
// CHECK-COUNT-8: arith.andi %{{.+}}, %{{.+}} : vector<4xi32>
// CHECK: %[[LANES:.+]] = vector.bitcast %{{.+}} : vector<4xi32> to vector<8xi16>
// CHECK: arith.cmpi ne, %[[LANES]], %{{.+}} : vector<8xi16>
// CHECK: gpu.shuffle  xor %{{.+}}, %c1_i32
// CHECK: gpu.shuffle  xor %{{.+}}, %c2_i32
// CHECK-COUNT-5: gpu.shuffle  up
// CHECK: memref.atomic_rmw addi
// CHECK-NOT: memref.atomic_rmw
// CHECK: scf.if
// CHECK:   memref.store %{{.+}} : memref<8x256xi32>
// CHECK: vector.store %{{.+}} {alignment = 16 : i64} : memref<8x256x32xf16>, vector<8xf16>
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @k_32x1_compacted(%arg0: memref<256x256xf16>, %arg1: memref<256x128xf16>, %arg2: memref<256x128xf32>) {
    %alloc = memref.alloc() : memref<8xi32>
    %alloc_0 = memref.alloc() : memref<8x256xi32>
    pit.detect %arg0 micro_tile [32, 1] axis 1 into %alloc, %alloc_0 : memref<256x256xf16>, memref<8xi32>, memref<8x256xi32>
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<8xi32>) domain [256, 128, 256] tile [32, 64, 32] micro_tile [32, 1] pit_axis 2 sparse_map #map attributes {pit.mma_config = #pit.mma_config<block = [32, 64, 32], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 2>} {
      %0 = memref.load %alloc[%arg6] : memref<8xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<32x32xf16>
      %alloca_1 = memref.alloca() : memref<32x64xf16>
      %alloca_2 = memref.alloca() : memref<32x64xf32>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %1 axis 1 micro 1 : memref<256x256xf16> to memref<32x32xf16>, memref<8x256xi32>
      pit.sread %arg1[%arg5, %arg4] into %alloca_1 gather %alloc_0[%arg6] count %1 axis 0 micro 1 : memref<256x128xf16> to memref<32x64xf16>, memref<8x256xi32>
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
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] combine <add> : memref<32x64xf32> to memref<256x128xf32>
    }
    memref.dealloc %alloc_0 : memref<8x256xi32>
    memref.dealloc %alloc : memref<8xi32>
    return
  }
}

// -----

// A float's negative zero is zero: its bits are left out of the words
// tested (fp8 E4M3FN: 0x80 in each byte). In the FNUZ types that pattern
// is NaN, not zero: every bit counts.
// CHECK-LABEL: func @fp8_signed_zero
// CHECK: vector.bitcast %{{.+}} : vector<4xi32> to vector<16xf8E4M3FN>
// CHECK: arith.constant dense<2139062143> : vector<4xi32>
// CHECK-LABEL: func @fp8_fnuz
// CHECK: vector.bitcast %{{.+}} : vector<4xi32> to vector<16xf8E4M3FNUZ>
// CHECK: arith.constant dense<-1> : vector<4xi32>
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @fp8_signed_zero(%arg0: memref<256x256xf8E4M3FN>, %arg1: memref<256x128xf16>, %arg2: memref<256x128xf32>) {
    %alloc = memref.alloc() : memref<8xi32>
    %alloc_0 = memref.alloc() : memref<8x256xi32>
    pit.detect %arg0 micro_tile [32, 1] axis 1 into %alloc, %alloc_0 : memref<256x256xf8E4M3FN>, memref<8xi32>, memref<8x256xi32>
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<8xi32>) domain [256, 128, 256] tile [32, 64, 32] micro_tile [32, 1] pit_axis 2 sparse_map #map {
      %0 = memref.load %alloc[%arg6] : memref<8xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<32x32xf8E4M3FN>
      %alloca_1 = memref.alloca() : memref<32x64xf16>
      %alloca_2 = memref.alloca() : memref<32x64xf32>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %1 axis 1 micro 1 : memref<256x256xf8E4M3FN> to memref<32x32xf8E4M3FN>, memref<8x256xi32>
      pit.sread %arg1[%arg5, %arg4] into %alloca_1 gather %alloc_0[%arg6] count %1 axis 0 micro 1 : memref<256x128xf16> to memref<32x64xf16>, memref<8x256xi32>
      %cst = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst : f32) outs(%alloca_2 : memref<32x64xf32>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1 : memref<32x32xf8E4M3FN>, memref<32x64xf16>) outs(%alloca_2 : memref<32x64xf32>) {
      ^bb0(%in: f8E4M3FN, %in_3: f16, %out: f32):
        %2 = arith.extf %in : f8E4M3FN to f32
        %3 = arith.extf %in_3 : f16 to f32
        %4 = arith.mulf %2, %3 : f32
        %5 = arith.addf %out, %4 : f32
        linalg.yield %5 : f32
      }
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] combine <add> : memref<32x64xf32> to memref<256x128xf32>
    }
    memref.dealloc %alloc_0 : memref<8x256xi32>
    memref.dealloc %alloc : memref<8xi32>
    return
  }
  func.func @fp8_fnuz(%arg0: memref<256x256xf8E4M3FNUZ>, %arg1: memref<256x128xf16>, %arg2: memref<256x128xf32>) {
    %alloc = memref.alloc() : memref<8xi32>
    %alloc_0 = memref.alloc() : memref<8x256xi32>
    pit.detect %arg0 micro_tile [32, 1] axis 1 into %alloc, %alloc_0 : memref<256x256xf8E4M3FNUZ>, memref<8xi32>, memref<8x256xi32>
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<8xi32>) domain [256, 128, 256] tile [32, 64, 32] micro_tile [32, 1] pit_axis 2 sparse_map #map {
      %0 = memref.load %alloc[%arg6] : memref<8xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<32x32xf8E4M3FNUZ>
      %alloca_1 = memref.alloca() : memref<32x64xf16>
      %alloca_2 = memref.alloca() : memref<32x64xf32>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %1 axis 1 micro 1 : memref<256x256xf8E4M3FNUZ> to memref<32x32xf8E4M3FNUZ>, memref<8x256xi32>
      pit.sread %arg1[%arg5, %arg4] into %alloca_1 gather %alloc_0[%arg6] count %1 axis 0 micro 1 : memref<256x128xf16> to memref<32x64xf16>, memref<8x256xi32>
      %cst = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst : f32) outs(%alloca_2 : memref<32x64xf32>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1 : memref<32x32xf8E4M3FNUZ>, memref<32x64xf16>) outs(%alloca_2 : memref<32x64xf32>) {
      ^bb0(%in: f8E4M3FNUZ, %in_3: f16, %out: f32):
        %2 = arith.extf %in : f8E4M3FNUZ to f32
        %3 = arith.extf %in_3 : f16 to f32
        %4 = arith.mulf %2, %3 : f32
        %5 = arith.addf %out, %4 : f32
        linalg.yield %5 : f32
      }
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] combine <add> : memref<32x64xf32> to memref<256x128xf32>
    }
    memref.dealloc %alloc_0 : memref<8x256xi32>
    memref.dealloc %alloc : memref<8xi32>
    return
  }
}

// -----

// f8E8M0FNU has no zero at all (its zero bits are 2^-127): no word test;
// a thread scans each micro-tile, comparing its elements.
// CHECK-LABEL: func @fp8_no_zero
// CHECK-NOT: ld.global.cs
// CHECK: arith.cmpf une
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @fp8_no_zero(%arg0: memref<256x256xf8E8M0FNU>, %arg1: memref<256x128xf16>, %arg2: memref<256x128xf32>) {
    %alloc = memref.alloc() : memref<8xi32>
    %alloc_0 = memref.alloc() : memref<8x256xi32>
    pit.detect %arg0 micro_tile [32, 1] axis 1 into %alloc, %alloc_0 : memref<256x256xf8E8M0FNU>, memref<8xi32>, memref<8x256xi32>
    pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<8xi32>) domain [256, 128, 256] tile [32, 64, 32] micro_tile [32, 1] pit_axis 2 sparse_map #map {
      %0 = memref.load %alloc[%arg6] : memref<8xi32>
      %1 = arith.index_cast %0 : i32 to index
      %alloca = memref.alloca() : memref<32x32xf8E8M0FNU>
      %alloca_1 = memref.alloca() : memref<32x64xf16>
      %alloca_2 = memref.alloca() : memref<32x64xf32>
      pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %1 axis 1 micro 1 : memref<256x256xf8E8M0FNU> to memref<32x32xf8E8M0FNU>, memref<8x256xi32>
      pit.sread %arg1[%arg5, %arg4] into %alloca_1 gather %alloc_0[%arg6] count %1 axis 0 micro 1 : memref<256x128xf16> to memref<32x64xf16>, memref<8x256xi32>
      %cst = arith.constant 0.000000e+00 : f32
      linalg.fill ins(%cst : f32) outs(%alloca_2 : memref<32x64xf32>)
      linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_1 : memref<32x32xf8E8M0FNU>, memref<32x64xf16>) outs(%alloca_2 : memref<32x64xf32>) {
      ^bb0(%in: f8E8M0FNU, %in_3: f16, %out: f32):
        %2 = arith.extf %in : f8E8M0FNU to f32
        %3 = arith.extf %in_3 : f16 to f32
        %4 = arith.mulf %2, %3 : f32
        %5 = arith.addf %out, %4 : f32
        linalg.yield %5 : f32
      }
      pit.swrite %alloca_2 into %arg2[%arg3, %arg4] combine <add> : memref<32x64xf32> to memref<256x128xf32>
    }
    memref.dealloc %alloc_0 : memref<8x256xi32>
    memref.dealloc %alloc : memref<8xi32>
    return
  }
}
