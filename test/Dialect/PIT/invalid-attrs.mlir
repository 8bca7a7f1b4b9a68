// Every message of the pit attribute verifiers and of the pit.sparse mark.
// RUN: pit-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{expects all micro-tiles to have the same rank, got ranks 2 and 1}}
func.func @ranks() attributes {s = #pit.sparse<operand = 0, micro_tiles = [32x1, 4]>} {
  return
}

// -----

// expected-error @+1 {{expects positive micro-tile extents, got 32x0}}
func.func @extent() attributes {s = #pit.sparse<operand = 0, micro_tiles = [32x0]>} {
  return
}

// -----

// expected-error @+1 {{expects micro-tiles of rank at least 1}}
func.func @empty() attributes {s = #pit.sparse<operand = 0, micro_tiles = []>} {
  return
}

// -----

// expected-error @+1 {{expected 'operand'}}
func.func @keyword() attributes {s = #pit.sparse<micro_tiles = [32x1]>} {
  return
}

// -----

// expected-error @below {{expected ::mlir::pit::CombinerKind to be one of: add, mul, maxsi, minsi, maxui, minui, maximumf, minimumf, andi, ori, xori}}
// expected-error @below {{failed to parse PIT_CombinerAttr parameter 'value'}}
func.func @combiner() attributes {c = #pit.combiner<sub>} {
  return
}

// -----

func.func @mark_operand(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{'linalg.matmul' op marks operand 3 as sparse, but it has only 3 operands}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 3, micro_tiles = [32x1]>}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

func.func @mark_rank(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{'linalg.matmul' op marks operand 1 of rank 2 as sparse with micro-tiles of rank 3}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 1, micro_tiles = [1x32x1]>}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

func.func @mark_scalar(%x: f32) -> f32 {
  // expected-error @+1 {{'arith.negf' op marks operand 0 as sparse, but its type 'f32' is not a ranked tensor or memref}}
  %0 = arith.negf %x {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1]>} : f32
  return %0 : f32
}

// -----

func.func @mark_kind(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{'pit.sparse' expects a #pit.sparse attribute, got 0 : i64}}
  linalg.matmul {pit.sparse = 0}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// expected-error @+1 {{unknown pit dialect attribute 'pit.dense'}}
func.func @unknown() attributes {pit.dense} {
  return
}

// -----

func.func @dependent_wait_kind() {
  // expected-error @+1 {{'pit.dependent_wait' expects a unit attribute}}
  llvm.inline_asm has_side_effects {pit.dependent_wait = 1 : i32} "", "~{memory}" : () -> ()
  return
}

// -----

// expected-error @+1 {{expects a block of [rows, columns, k] in whole mma steps (multiples of 16, 8 and 16)}}
func.func @config_block() attributes {c = #pit.mma_config<block = [24, 64, 64], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 1>} {
  return
}

// -----

// expected-error @+1 {{expects a block of [rows, columns, k] in whole mma steps}}
func.func @config_rank() attributes {c = #pit.mma_config<block = [64, 64], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 1>} {
  return
}

// -----

// expected-error @+1 {{expects 1 to 4 stages, got 5}}
func.func @config_stages() attributes {c = #pit.mma_config<block = [64, 64, 64], stages = 5, specialize = true, tensor_copies = true, cluster_blocks = 1>} {
  return
}

// -----

// expected-error @+1 {{expects clusters of 1 or 2 blocks, got 4}}
func.func @config_cluster() attributes {c = #pit.mma_config<block = [64, 64, 64], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 4>} {
  return
}

// -----

// expected-error @+1 {{expects 1 to 8 splits of k, got 0}}
func.func @config_no_split() attributes {c = #pit.mma_config<block = [64, 64, 64], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 1, k_splits = 0>} {
  return
}

// -----

// expected-error @+1 {{expects 1 to 8 splits of k, got 9}}
func.func @config_many_splits() attributes {c = #pit.mma_config<block = [64, 64, 64], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 1, k_splits = 9>} {
  return
}

// -----

// expected-error @+1 {{'pit.mma_config' belongs on a pit.stile or a linalg op}}
func.func @config_on_function() attributes {pit.mma_config = #pit.mma_config<block = [64, 64, 64], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 1>} {
  return
}

// -----

func.func @config_not_a_config(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{'pit.mma_config' expects a #pit.mma_config attribute, got 3 : i64}}
  linalg.matmul {pit.mma_config = 3} ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  return
}
