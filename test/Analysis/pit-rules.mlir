// The PIT rules found for each kind of operator, printed by --test-pit-rules.
// RUN: pit-opt %s -split-input-file --test-pit-rules -verify-diagnostics

func.func @matmul_sparse_a(%a: memref<128x256xf32>, %b: memref<256x64xf32>, %c: memref<128x64xf32>) {
  // expected-remark @below {{loop 0 (parallel): permutation invariant along sparse dim 0, results scattered back}}
  // expected-remark @below {{loop 1 (parallel): permutation invariant, does not index the sparse operand}}
  // expected-remark @below {{loop 2 (reduction, add): permutation invariant along sparse dim 1, partial results combined}}
  // expected-remark @below {{micro-tile 32x1: along loop 2 into dense tile [32, 64, 32], combined by add}}
  // expected-remark @below {{micro-tile 32x1: along loop 0 into dense tile [32, 64, 1], scattered, combined by add}}
  // expected-remark @below {{micro-tile 1x256: along loop 0 into dense tile [32, 64, 256], scattered, combined by add}}
  // expected-remark @below {{micro-tile 1x256: along loop 2 into dense tile [1, 64, 256], combined by add}}
  // expected-remark @below {{micro-tile 3x1: micro-tile 3x1 does not divide the sparse operand's shape 128x256 along dimension 0}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1, 1x256, 3x1]>}
      ins(%a, %b : memref<128x256xf32>, memref<256x64xf32>) outs(%c : memref<128x64xf32>)
  return
}

// -----

func.func @matmul_sparse_b(%a: memref<128x256xf32>, %b: memref<256x64xf32>, %c: memref<128x64xf32>) {
  // expected-remark @below {{loop 0 (parallel): permutation invariant, does not index the sparse operand}}
  // expected-remark @below {{loop 1 (parallel): permutation invariant along sparse dim 1, results scattered back}}
  // expected-remark @below {{loop 2 (reduction, add): permutation invariant along sparse dim 0, partial results combined}}
  // expected-remark @below {{micro-tile 1x32: along loop 2 into dense tile [64, 32, 32], combined by add}}
  // expected-remark @below {{micro-tile 1x32: along loop 1 into dense tile [64, 32, 1], scattered, combined by add}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 1, micro_tiles = [1x32]>}
      ins(%a, %b : memref<128x256xf32>, memref<256x64xf32>) outs(%c : memref<128x64xf32>)
  return
}

// -----

// C = A x B^T: B is read as (n, k).
func.func @matmul_transpose_b(%a: memref<128x256xf16>, %b: memref<64x256xf16>, %c: memref<128x64xf32>) {
  // expected-remark @below {{loop 0 (parallel): permutation invariant, does not index the sparse operand}}
  // expected-remark @below {{loop 1 (parallel): permutation invariant along sparse dim 0, results scattered back}}
  // expected-remark @below {{loop 2 (reduction, add): permutation invariant along sparse dim 1, partial results combined}}
  // expected-remark @below {{micro-tile 16x16: along loop 2 into dense tile [64, 16, 32], combined by add}}
  // expected-remark @below {{micro-tile 16x16: along loop 1 into dense tile [64, 32, 16], scattered, combined by add}}
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                  affine_map<(m, n, k) -> (n, k)>,
                                  affine_map<(m, n, k) -> (m, n)>]
      {pit.sparse = #pit.sparse<operand = 1, micro_tiles = [16x16]>}
      ins(%a, %b : memref<128x256xf16>, memref<64x256xf16>) outs(%c : memref<128x64xf32>)
  return
}

// -----

// Per-batch patterns: the batch loop is one more segment dimension.
func.func @batch_matmul(%a: memref<4x64x128xf32>, %b: memref<4x128x64xf32>, %c: memref<4x64x64xf32>) {
  // expected-remark @below {{loop 0 (parallel): permutation invariant along sparse dim 0, results scattered back}}
  // expected-remark @below {{loop 1 (parallel): permutation invariant along sparse dim 1, results scattered back}}
  // expected-remark @below {{loop 2 (parallel): permutation invariant, does not index the sparse operand}}
  // expected-remark @below {{loop 3 (reduction, add): permutation invariant along sparse dim 2, partial results combined}}
  // expected-remark @below {{micro-tile 1x32x1: along loop 3 into dense tile [1, 32, 64, 32], combined by add}}
  // expected-remark @below {{micro-tile 1x32x1: along loop 0 into dense tile [4, 32, 64, 1], scattered, combined by add}}
  // expected-remark @below {{micro-tile 1x32x1: along loop 1 into dense tile [1, 32, 64, 1], scattered, combined by add}}
  linalg.batch_matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x32x1]>}
      ins(%a, %b : memref<4x64x128xf32>, memref<4x128x64xf32>) outs(%c : memref<4x64x64xf32>)
  return
}

// -----

// SDDMM: C[m, n] += M[m, n] * sum_k A[m, k] B[k, n], the mask M sparse.
func.func @sddmm(%a: memref<128x64xf32>, %b: memref<64x128xf32>, %mask: memref<128x128xf32>,
                 %c: memref<128x128xf32>) {
  // expected-remark @below {{loop 0 (parallel): permutation invariant along sparse dim 0, results scattered back}}
  // expected-remark @below {{loop 1 (parallel): permutation invariant along sparse dim 1, results scattered back}}
  // expected-remark @below {{loop 2 (reduction, add): permutation invariant, does not index the sparse operand}}
  // expected-remark @below {{micro-tile 32x1: along loop 1 into dense tile [32, 32, 64], scattered, combined by add}}
  // expected-remark @below {{micro-tile 32x1: along loop 0 into dense tile [32, 1, 64], scattered, combined by add}}
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                   affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b, %mask : memref<128x64xf32>, memref<64x128xf32>, memref<128x128xf32>)
      outs(%c : memref<128x128xf32>)
      attrs = {pit.sparse = #pit.sparse<operand = 2, micro_tiles = [32x1]>} {
  ^bb0(%x: f32, %y: f32, %m: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %q = arith.mulf %p, %m : f32
    %s = arith.addf %acc, %q : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Elementwise product: outside the non-zero micro-tiles the result is zero.
func.func @elementwise_mul(%a: memref<128x64xf32>, %b: memref<128x64xf32>, %c: memref<128x64xf32>) {
  // expected-remark @below {{loop 0 (parallel): permutation invariant along sparse dim 0, results scattered back}}
  // expected-remark @below {{loop 1 (parallel): permutation invariant along sparse dim 1, results scattered back}}
  // expected-remark @below {{micro-tile 1x64: along loop 0 into dense tile [32, 64], scattered}}
  // expected-remark @below {{micro-tile 1x64: along loop 1 into dense tile [1, 64], scattered}}
  linalg.mul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x64]>}
      ins(%a, %b : memref<128x64xf32>, memref<128x64xf32>) outs(%c : memref<128x64xf32>)
  return
}

// -----

// Elementwise sum: where A is zero the result is B, not zero and not the old output.
func.func @elementwise_add(%a: memref<128x64xf32>, %b: memref<128x64xf32>, %c: memref<128x64xf32>) {
  // expected-remark @below {{loop 0 (parallel): permutation invariant along sparse dim 0, results scattered back}}
  // expected-remark @below {{loop 1 (parallel): permutation invariant along sparse dim 1, results scattered back}}
  // expected-remark @below {{no rule, because skipping a zero micro-tile would change the result: with the sparse element zero, the body does not leave the output unchanged}}
  linalg.add {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x64]>}
      ins(%a, %b : memref<128x64xf32>, memref<128x64xf32>) outs(%c : memref<128x64xf32>)
  return
}

// -----

// Row sum: the reduced loop is permutation invariant, and so is the row loop.
func.func @row_sum(%a: memref<128x256xf32>, %r: memref<128xf32>) {
  // expected-remark @below {{loop 0 (parallel): permutation invariant along sparse dim 0, results scattered back}}
  // expected-remark @below {{loop 1 (reduction, add): permutation invariant along sparse dim 1, partial results combined}}
  // expected-remark @below {{micro-tile 1x64: along loop 0 into dense tile [32, 64], scattered, combined by add}}
  // expected-remark @below {{micro-tile 1x64: along loop 1 into dense tile [1, 64], combined by add}}
  linalg.generic {indexing_maps = [affine_map<(m, k) -> (m, k)>, affine_map<(m, k) -> (m)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<128x256xf32>) outs(%r : memref<128xf32>)
      attrs = {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x64]>} {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Row max: max is associative and commutative, but a skipped zero is not neutral.
func.func @row_max(%a: memref<128x256xf32>, %r: memref<128xf32>) {
  // expected-remark @below {{loop 0 (parallel): permutation invariant along sparse dim 0, results scattered back}}
  // expected-remark @below {{loop 1 (reduction, maximumf): permutation invariant along sparse dim 1, partial results combined}}
  // expected-remark @below {{no rule, because skipping a zero micro-tile would change the result: with the sparse element zero, the body does not leave the output unchanged (combining the maximumf of a zero is not neutral; the compensation this idempotent combiner would allow is not implemented)}}
  linalg.generic {indexing_maps = [affine_map<(m, k) -> (m, k)>, affine_map<(m, k) -> (m)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<128x256xf32>) outs(%r : memref<128xf32>)
      attrs = {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x64]>} {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.maximumf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A reduction that subtracts is not commutative: no rule.
func.func @non_commutative(%a: memref<128x256xf32>, %r: memref<128xf32>) {
  // expected-remark @below {{loop 0 (parallel): permutation invariant along sparse dim 0, results scattered back}}
  // expected-remark @below {{loop 1 (reduction): not permutation invariant: the body combines the accumulator with arith.subf, which is not associative and commutative}}
  // expected-remark @below {{no rule, because skipping a zero micro-tile would change the result: with the sparse element zero, the body does not leave the output unchanged}}
  linalg.generic {indexing_maps = [affine_map<(m, k) -> (m, k)>, affine_map<(m, k) -> (m)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<128x256xf32>) outs(%r : memref<128xf32>)
      attrs = {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x64]>} {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.subf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

func.func @non_projected(%s: memref<160xf32>, %w: memref<32xf32>, %o: memref<128xf32>) {
  // expected-remark @below {{no rule, because the sparse operand is indexed through (d0, d1) -> (d0 + d1), which is not a projected permutation of the loops}}
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i + k)>, affine_map<(i, k) -> (k)>,
                                   affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%s, %w : memref<160xf32>, memref<32xf32>) outs(%o : memref<128xf32>)
      attrs = {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32]>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %q = arith.addf %acc, %p : f32
    linalg.yield %q : f32
  }
  return
}

// -----

// 1-D convolution with sparse weights: the weights are indexed by k alone,
// but the input reads i + k, so permuting k would not permute the input.
func.func @conv_sparse_weights(%x: memref<160xf32>, %w: memref<32xf32>, %o: memref<128xf32>) {
  // expected-remark @below {{loop 0 (parallel): not permutation invariant: operand 0 indexes it through d0 + d1, which a permutation of the loop does not permute}}
  // expected-remark @below {{loop 1 (reduction, add): not permutation invariant: operand 0 indexes it through d0 + d1, which a permutation of the loop does not permute}}
  // expected-remark @below {{no rule, because no loop indexing the sparse operand is permutation invariant}}
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i + k)>, affine_map<(i, k) -> (k)>,
                                   affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : memref<160xf32>, memref<32xf32>) outs(%o : memref<128xf32>)
      attrs = {pit.sparse = #pit.sparse<operand = 1, micro_tiles = [8]>} {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %acc, %p : f32
    linalg.yield %q : f32
  }
  return
}
