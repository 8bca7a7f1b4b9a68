// pit-gpu-strategy records the tensor-core kernel of each matmul as a
// #pit.mma_config, apart from the conversion that builds it.
// RUN: pit-opt %s -split-input-file --pit-gpu-strategy="chip=sm_90a" | FileCheck %s --check-prefix=WGMMA
// RUN: pit-opt %s -split-input-file --pit-gpu-strategy="chip=sm_80" | FileCheck %s --check-prefix=MMA
// RUN: pit-opt %s -split-input-file --pit-gpu-strategy="chip=sm_90a multiprocessors=1024" | FileCheck %s --check-prefix=WIDE
// RUN: pit-opt %s -split-input-file --pit-gpu-strategy="chip=sm_90a mma-stages=4 mma-specialize=false mma-tensor-copies=false mma-cluster-blocks=1" | FileCheck %s --check-prefix=OPTIONS
// RUN: pit-opt %s -split-input-file --pit-gpu-strategy="chip=sm_90a mma-k-splits=2" | FileCheck %s --check-prefix=FORCED

// A dense matmul of few tiles (4 of 128 x 256 for 132 multiprocessors):
// with wgmma the strategy takes 64 x 128 blocks, whose 16 tiles keep more
// multiprocessors busy; 128 x 128 without. Chunks of 64, 3 stages,
// whatever mma-stages says.
// WGMMA-LABEL: func @dense
// WGMMA: linalg.matmul {pit.mma_config = #pit.mma_config<block = [64, 128, 64], stages = 3, specialize = true, tensor_copies = true, cluster_blocks = 2>}
// MMA-LABEL: func @dense
// MMA: linalg.matmul {pit.mma_config = #pit.mma_config<block = [128, 128, 64], stages = 3, specialize = true, tensor_copies = true, cluster_blocks = 2>}
// OPTIONS-LABEL: func @dense
// OPTIONS: linalg.matmul {pit.mma_config = #pit.mma_config<block = [64, 128, 64], stages = 3, specialize = false, tensor_copies = false, cluster_blocks = 1>}
func.func @dense(%a: memref<256x256xf16>, %b: memref<256x512xf16>, %c: memref<256x512xf32>) {
  linalg.matmul ins(%a, %b : memref<256x256xf16>, memref<256x512xf16>) outs(%c : memref<256x512xf32>)
  return
}

// -----

// Tiles for many waves (512 of 128 x 256): the widest block, which
// multiplies fastest once every multiprocessor is busy.
// WGMMA-LABEL: func @many_tiles
// WGMMA: block = [128, 256, 64]
// On a device of 1024 multiprocessors all of them are one wave: 128 x 128
// blocks, 1024 tiles.
// WIDE-LABEL: func @many_tiles
// WIDE: block = [128, 128, 64]
func.func @many_tiles(%a: memref<4096x256xf16>, %b: memref<256x4096xf16>, %c: memref<4096x4096xf32>) {
  linalg.matmul ins(%a, %b : memref<4096x256xf16>, memref<256x4096xf16>) outs(%c : memref<4096x4096xf32>)
  return
}

// -----

// Few tiles of a deep k (512 x 5120 x 5120: 80 of 128 x 256 for 132
// multiprocessors): the strategy does not split k by itself (split-k lost
// on an H200 where its estimate said it would win); mma-k-splits forces
// parts of k on the wgmma blocks, and the block is chosen for the parts'
// waves (2 parts of 160 tiles of 128 x 128: 320 units, 2.4 waves).
// WGMMA-LABEL: func @deep_k
// WGMMA: block = [128, 256, 64]
// WGMMA-NOT: k_splits
// WGMMA: return
// FORCED-LABEL: func @deep_k
// FORCED: block = [128, 128, 64], {{.*}}, k_splits = 2>
func.func @deep_k(%a: memref<512x5120xf16>, %b: memref<5120x5120xf16>, %c: memref<512x5120xf16>) {
  linalg.matmul ins(%a, %b : memref<512x5120xf16>, memref<5120x5120xf16>) outs(%c : memref<512x5120xf16>)
  return
}

// -----

// n of 128 leaves no room for 256 columns; 1024 rows make 16 tiles of
// 64 x 128 or 8 of 128 x 128, both one wave: the smaller block.
// WGMMA-LABEL: func @narrow
// WGMMA: block = [64, 128, 64]
func.func @narrow(%a: memref<1024x256xf16>, %b: memref<256x128xf16>, %c: memref<1024x128xf32>) {
  linalg.matmul ins(%a, %b : memref<1024x256xf16>, memref<256x128xf16>) outs(%c : memref<1024x128xf32>)
  return
}

// -----

// A matmul STile gathered along k: the STile's rows, 256 columns (its tiles
// are 64 wide and divide them), its k tile, mma-stages stages.
// WGMMA-LABEL: func @stile
// WGMMA: pit.stile {{.*}} attributes {pit.mma_config = #pit.mma_config<block = [32, 256, 32], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 2>}
// Its body is the STile's: no config of its own.
// WGMMA-NOT: pit.mma_config
// WGMMA: return
// OPTIONS-LABEL: func @stile
// OPTIONS: pit.stile {{.*}} attributes {pit.mma_config = #pit.mma_config<block = [32, 256, 32], stages = 4,
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @stile(%a: memref<256x256xf16>, %b: memref<256x512xf16>, %c: memref<256x512xf32>) {
  %counts = memref.alloc() : memref<8xi32>
  %positions = memref.alloc() : memref<8x256xi32>
  pit.detect %a micro_tile [32, 1] axis 1 into %counts, %positions : memref<256x256xf16>, memref<8xi32>, memref<8x256xi32>
  pit.stile (%m0, %n0, %k0) segment(%segment) counts(%counts : memref<8xi32>) domain [256, 512, 256] tile [32, 64, 32] micro_tile [32, 1] pit_axis 2 sparse_map #map {
    %count32 = memref.load %counts[%segment] : memref<8xi32>
    %count = arith.index_cast %count32 : i32 to index
    %ta = memref.alloca() : memref<32x32xf16>
    %tb = memref.alloca() : memref<32x64xf16>
    %tc = memref.alloca() : memref<32x64xf32>
    pit.sread %a[%m0, %k0] into %ta gather %positions[%segment] count %count axis 1 micro 1 : memref<256x256xf16> to memref<32x32xf16>, memref<8x256xi32>
    pit.sread %b[%k0, %n0] into %tb gather %positions[%segment] count %count axis 0 micro 1 : memref<256x512xf16> to memref<32x64xf16>, memref<8x256xi32>
    %zero = arith.constant 0.000000e+00 : f32
    linalg.fill ins(%zero : f32) outs(%tc : memref<32x64xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ta, %tb : memref<32x32xf16>, memref<32x64xf16>) outs(%tc : memref<32x64xf32>) {
    ^bb0(%x: f16, %y: f16, %acc: f32):
      %x32 = arith.extf %x : f16 to f32
      %y32 = arith.extf %y : f16 to f32
      %product = arith.mulf %x32, %y32 : f32
      %sum = arith.addf %acc, %product : f32
      linalg.yield %sum : f32
    }
    pit.swrite %tc into %c[%m0, %n0] combine <add> : memref<32x64xf32> to memref<256x512xf32>
  }
  memref.dealloc %positions : memref<8x256xi32>
  memref.dealloc %counts : memref<8xi32>
  return
}

// -----

// A config already there is the user's: kept. Other ops get none, and so
// does a matmul whose extents are not whole blocks (SIMT).
// WGMMA-LABEL: func @kept
// WGMMA: linalg.matmul {pit.mma_config = #pit.mma_config<block = [128, 128, 64], stages = 2, specialize = false, tensor_copies = false, cluster_blocks = 1>}
// WGMMA: linalg.copy
// WGMMA-NOT: pit.mma_config
func.func @kept(%a: memref<256x256xf16>, %b: memref<256x512xf16>, %c: memref<256x512xf32>, %d: memref<256x512xf32>) {
  linalg.matmul {pit.mma_config = #pit.mma_config<block = [128, 128, 64], stages = 2, specialize = false, tensor_copies = false, cluster_blocks = 1>} ins(%a, %b : memref<256x256xf16>, memref<256x512xf16>) outs(%c : memref<256x512xf32>)
  linalg.copy ins(%c : memref<256x512xf32>) outs(%d : memref<256x512xf32>)
  return
}

// -----

// WGMMA-LABEL: func @ragged
// WGMMA-NOT: pit.mma_config
func.func @ragged(%a: memref<100x256xf16>, %b: memref<256x512xf16>, %c: memref<100x512xf32>) {
  linalg.matmul ins(%a, %b : memref<100x256xf16>, memref<256x512xf16>) outs(%c : memref<100x512xf32>)
  return
}
