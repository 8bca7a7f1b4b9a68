// convert-pit-to-gpu builds the kernel an op's #pit.mma_config describes,
// whichever strategy chose it; the conversion takes no mma-* options.
// RUN: pit-opt %s -split-input-file --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations 2>&1 | FileCheck %s

// A dense matmul with blocks of 64 x 128 and chunks of 32, 2 stages,
// without warp specialisation: 16 blocks of 4 warps, A's and B's stages in
// static shared memory (the default strategy would give 128 x 256 wgmma
// blocks on sm_90a).
// CHECK-LABEL: func.func @configured
// CHECK: gpu.launch blocks({{.+}}) in ({{.+}} = %c16, {{.+}}) threads({{.+}}) in ({{.+}} = %c128, {{.+}}) workgroup({{.+}} : memref<2x64x32xf16, #gpu.address_space<workgroup>>, {{.+}} : memref<2x32x128xf16, #gpu.address_space<workgroup>>)
func.func @configured(%a: memref<256x256xf16>, %b: memref<256x512xf16>, %c: memref<256x512xf32>) {
  linalg.matmul {pit.mma_config = #pit.mma_config<block = [64, 128, 32], stages = 2, specialize = false, tensor_copies = false, cluster_blocks = 1>} ins(%a, %b : memref<256x256xf16>, memref<256x512xf16>) outs(%c : memref<256x512xf32>)
  return
}

// -----

// A config that does not fit its STile (the blocks' rows are a segment's,
// 32) is named in a remark, and the STile goes to the SIMT lowering.
// CHECK: remark: the tile is left to the SIMT lowering: #pit.mma_config<block = [64, 256, 32], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 1> does not fit it (its rows are not the STile's 32)
// CHECK-LABEL: func.func @misfit
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: return
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @misfit(%a: memref<256x256xf16>, %b: memref<256x512xf16>, %c: memref<256x512xf32>) {
  %counts = memref.alloc() : memref<8xi32>
  %positions = memref.alloc() : memref<8x256xi32>
  pit.detect %a micro_tile [32, 1] axis 1 into %counts, %positions : memref<256x256xf16>, memref<8xi32>, memref<8x256xi32>
  pit.stile (%m0, %n0, %k0) segment(%segment) counts(%counts : memref<8xi32>) domain [256, 512, 256] tile [32, 64, 32] micro_tile [32, 1] pit_axis 2 sparse_map #map attributes {pit.mma_config = #pit.mma_config<block = [64, 256, 32], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 1>} {
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

