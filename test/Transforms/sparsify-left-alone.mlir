// What pit-sparsify cannot handle stays as it is, with a remark saying why.
// RUN: pit-opt %s -split-input-file --pit-sparsify -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func @on_tensors
// CHECK: linalg.matmul {pit.sparse
func.func @on_tensors(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-remark @below {{pit-sparsify: left alone, it works on buffers; bufferize first (one-shot-bufferize)}}
  %0 = linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// CHECK-LABEL: func @no_rule
// CHECK: linalg.add {pit.sparse
func.func @no_rule(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-remark @below {{pit-sparsify: left alone, no rule, because skipping a zero micro-tile would change the result}}
  linalg.add {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x64]>}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// CHECK-LABEL: func @dynamic
// CHECK: linalg.matmul {pit.sparse
func.func @dynamic(%a: memref<?x64xf32>, %b: memref<64x64xf32>, %c: memref<?x64xf32>) {
  // expected-remark @below {{pit-sparsify: left alone, no rule, because its loop ranges are not static}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<?x64xf32>, memref<64x64xf32>) outs(%c : memref<?x64xf32>)
  return
}

// -----

// Nothing to skip in an empty iteration space.
// CHECK-LABEL: func @empty
// CHECK: linalg.matmul {pit.sparse
func.func @empty(%a: memref<0x64xf16>, %b: memref<64x64xf16>, %c: memref<0x64xf32>) {
  // expected-remark @below {{pit-sparsify: left alone, no rule, because its iteration space is empty (a loop of extent 0)}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<0x64xf16>, memref<64x64xf16>) outs(%c : memref<0x64xf32>)
  return
}

// -----

// index elements: detection scans integers and floats; and addi has no
// identity of type index to start a partial tile from.
// CHECK-LABEL: func @index_elements
// CHECK: linalg.generic
func.func @index_elements(%a: memref<64x64xindex>, %b: memref<64x64xindex>, %c: memref<64x64xindex>) {
  // expected-remark @below {{pit-sparsify: left alone, no rule, because the sparse operand's elements are index, and detection scans signless integers and floats}}
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"], pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<64x64xindex>, memref<64x64xindex>) outs(%c : memref<64x64xindex>) {
  ^bb0(%x: index, %y: index, %acc: index):
    %p = arith.muli %x, %y : index
    %s = arith.addi %acc, %p : index
    linalg.yield %s : index
  }
  return
}

// -----

// i32 operands with an index accumulator: the combiner has no identity of
// the output's type, so the reduction loop is not permutation invariant,
// and the parallel loop does not index the sparse operand's columns.
// CHECK-LABEL: func @index_accumulator
// CHECK: linalg.generic
func.func @index_accumulator(%a: memref<64x64xi32>, %c: memref<64xindex>) {
  // expected-remark @below {{pit-sparsify: left alone, no rule, because}}
  linalg.generic {indexing_maps = [affine_map<(m, k) -> (m, k)>, affine_map<(m, k) -> (m)>],
                  iterator_types = ["parallel", "reduction"], pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x64]>}
      ins(%a : memref<64x64xi32>) outs(%c : memref<64xindex>) {
  ^bb0(%x: i32, %acc: index):
    %i = arith.index_cast %x : i32 to index
    %s = arith.addi %acc, %i : index
    linalg.yield %s : index
  }
  return
}
