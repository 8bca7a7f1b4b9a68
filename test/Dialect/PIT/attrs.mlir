// Round trip of the pit attributes, through the custom form and the generic form.
// RUN: pit-opt %s -split-input-file | pit-opt -split-input-file | FileCheck %s
// RUN: pit-opt %s -split-input-file -mlir-print-op-generic | pit-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @mark_on_tensors
func.func @mark_on_tensors(%a: tensor<128x64xf32>, %b: tensor<64x32xf32>,
                           %c: tensor<128x32xf32>) -> tensor<128x32xf32> {
  // CHECK: linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1, 1x64, 16x16]>}
  %0 = linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1, 1x64, 16x16]>}
      ins(%a, %b : tensor<128x64xf32>, tensor<64x32xf32>)
      outs(%c : tensor<128x32xf32>) -> tensor<128x32xf32>
  return %0 : tensor<128x32xf32>
}

// -----

// A mark on the output operand (SDDMM-like) of a generic op on memrefs.
// CHECK-LABEL: func @mark_on_output
func.func @mark_on_output(%a: memref<16x8xf16>, %b: memref<8x16xf16>,
                          %c: memref<16x16xf16>) {
  // CHECK: linalg.generic {{.*}}pit.sparse = #pit.sparse<operand = 2, micro_tiles = [1x1]>
  linalg.generic {
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                       affine_map<(m, n, k) -> (k, n)>,
                       affine_map<(m, n, k) -> (m, n)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<16x8xf16>, memref<8x16xf16>) outs(%c : memref<16x16xf16>)
      attrs = {pit.sparse = #pit.sparse<operand = 2, micro_tiles = [1x1]>} {
  ^bb0(%x: f16, %y: f16, %acc: f16):
    %p = arith.mulf %x, %y : f16
    %s = arith.addf %acc, %p : f16
    linalg.yield %s : f16
  }
  return
}

// -----

// A rank-3 mark (batch matmul, per-batch patterns).
// CHECK-LABEL: func @mark_rank3
func.func @mark_rank3(%a: memref<4x64x64xbf16>, %b: memref<4x64x64xbf16>,
                      %c: memref<4x64x64xf32>) {
  // CHECK: linalg.batch_matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x32x1]>}
  linalg.batch_matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x32x1]>}
      ins(%a, %b : memref<4x64x64xbf16>, memref<4x64x64xbf16>)
      outs(%c : memref<4x64x64xf32>)
  return
}

// -----

// Attributes as values, outside any mark.
// CHECK-LABEL: func @attribute_values
// CHECK-SAME: combiners = [#pit.combiner<add>, #pit.combiner<mul>, #pit.combiner<maxsi>, #pit.combiner<minsi>, #pit.combiner<maxui>, #pit.combiner<minui>, #pit.combiner<maximumf>, #pit.combiner<minimumf>, #pit.combiner<andi>, #pit.combiner<ori>, #pit.combiner<xori>]
// CHECK-SAME: sparse = #pit.sparse<operand = 1, micro_tiles = [4]>
func.func @attribute_values() attributes {
    combiners = [#pit.combiner<add>, #pit.combiner<mul>, #pit.combiner<maxsi>,
                 #pit.combiner<minsi>, #pit.combiner<maxui>, #pit.combiner<minui>,
                 #pit.combiner<maximumf>, #pit.combiner<minimumf>,
                 #pit.combiner<andi>, #pit.combiner<ori>, #pit.combiner<xori>],
    sparse = #pit.sparse<operand = 1, micro_tiles = [4]>} {
  return
}

// -----

// CHECK-LABEL: func @mma_config
func.func @mma_config(%a: memref<256x256xf16>, %b: memref<256x256xf16>,
                      %c: memref<256x256xf32>) {
  // CHECK: linalg.matmul {pit.mma_config = #pit.mma_config<block = [128, 256, 64], stages = 3, specialize = true, tensor_copies = false, cluster_blocks = 2>}
  linalg.matmul {pit.mma_config = #pit.mma_config<block = [128, 256, 64], stages = 3, specialize = true, tensor_copies = false, cluster_blocks = 2>}
      ins(%a, %b : memref<256x256xf16>, memref<256x256xf16>)
      outs(%c : memref<256x256xf32>)
  return
}

// -----

// k_splits prints where it is not 1.
// CHECK-LABEL: func @mma_config_split
func.func @mma_config_split(%a: memref<256x4096xf16>, %b: memref<4096x256xf16>,
                            %c: memref<256x256xf32>) {
  // CHECK: linalg.matmul {pit.mma_config = #pit.mma_config<block = [128, 256, 64], stages = 3, specialize = true, tensor_copies = true, cluster_blocks = 2, k_splits = 3>}
  linalg.matmul {pit.mma_config = #pit.mma_config<block = [128, 256, 64], stages = 3, specialize = true, tensor_copies = true, cluster_blocks = 2, k_splits = 3>}
      ins(%a, %b : memref<256x4096xf16>, memref<4096x256xf16>)
      outs(%c : memref<256x256xf32>)
  // CHECK: linalg.matmul {pit.mma_config = #pit.mma_config<block = [128, 256, 64], stages = 3, specialize = true, tensor_copies = true, cluster_blocks = 2>}
  linalg.matmul {pit.mma_config = #pit.mma_config<block = [128, 256, 64], stages = 3, specialize = true, tensor_copies = true, cluster_blocks = 2, k_splits = 1>}
      ins(%a, %b : memref<256x4096xf16>, memref<4096x256xf16>)
      outs(%c : memref<256x256xf32>)
  return
}
