// An invalid mark, or options that do not fit it, are errors naming the op.
// RUN: pit-opt %s -split-input-file --pit-sparsify -verify-diagnostics
// RUN: not pit-opt %s -split-input-file --pit-sparsify="candidate=3" 2>&1 | FileCheck %s --check-prefix=CANDIDATE
// RUN: not pit-opt %s -split-input-file --pit-sparsify="pit-loop=1" 2>&1 | FileCheck %s --check-prefix=LOOP

// CANDIDATE: error: 'linalg.matmul' op invalid pit.sparse mark: there is no candidate 3; the mark has 1
// LOOP: error: 'linalg.matmul' op invalid pit.sparse mark: loop 1 is not a PIT loop for candidate 0

func.func @not_dividing(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @below {{'linalg.matmul' op invalid pit.sparse mark: micro-tile 48x1 does not divide the sparse operand's shape 64x64 along dimension 0}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [48x1]>}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

func.func @second_candidate_invalid(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @below {{'linalg.matmul' op invalid pit.sparse mark: micro-tile 1x3 does not divide the sparse operand's shape 64x64 along dimension 1}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1, 1x3]>}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// A valid mark, for the option checks above.
func.func @valid(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
