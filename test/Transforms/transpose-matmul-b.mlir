// pit-transpose-matmul-b copies a B stored n by k (y = x W^T, nn.Linear's
// layout) into a k-by-n buffer, freed after the matmul, which then reads B
// k by n as the sparse tensor-core kernels do: for a marked matmul, or one
// with dynamic extents. The dense kernel reads an unmarked static one as it
// is (test/Conversion/PITToGPU/pit-to-gpu-dense-b-by-n.mlir).
// RUN: pit-opt %s -split-input-file --pit-transpose-matmul-b 2>/dev/null | FileCheck %s
// RUN: pit-opt %s -split-input-file --pit-transpose-matmul-b 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func @linear
// CHECK-SAME: (%[[X:.*]]: memref<64x32xf16>, %[[W:.*]]: memref<16x32xf16>, %[[Y:.*]]: memref<64x16xf32>)
// CHECK: %[[COPY:.*]] = memref.alloc() : memref<32x16xf16>
// CHECK: linalg.transpose ins(%[[W]] : memref<16x32xf16>) outs(%[[COPY]] : memref<32x16xf16>) permutation = [1, 0]
// CHECK: linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>} ins(%[[X]], %[[COPY]] : memref<64x32xf16>, memref<32x16xf16>) outs(%[[Y]] : memref<64x16xf32>)
// CHECK-NEXT: memref.dealloc %[[COPY]]
func.func @linear(%x: memref<64x32xf16>, %w: memref<16x32xf16>, %y: memref<64x16xf32>) {
  linalg.matmul indexing_maps = [#a, #w, #c] {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%x, %w : memref<64x32xf16>, memref<16x32xf16>) outs(%y : memref<64x16xf32>)
  return
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>

// A generic keeps its body; dynamic extents come from W.
// CHECK-LABEL: func @generic_dynamic
// CHECK-SAME: %{{[a-z0-9]+}}: memref<?x?xf16>, %[[W:[a-z0-9]+]]: memref<?x?xf16>
// CHECK: %[[K:.*]] = memref.dim %[[W]], %c1
// CHECK: %[[N:.*]] = memref.dim %[[W]], %c0
// CHECK: %[[COPY:.*]] = memref.alloc(%[[K]], %[[N]]) : memref<?x?xf16>
// CHECK: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[KN:.*]], #{{.*}}]
// CHECK: arith.extf
// CHECK: memref.dealloc %[[COPY]]
func.func @generic_dynamic(%x: memref<?x?xf16>, %w: memref<?x?xf16>, %y: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x?xf16>, memref<?x?xf16>) outs(%y : memref<?x?xf32>) {
  ^bb0(%p: f16, %q: f16, %acc: f32):
    %p32 = arith.extf %p : f16 to f32
    %q32 = arith.extf %q : f16 to f32
    %product = arith.mulf %p32, %q32 : f32
    %sum = arith.addf %acc, %product : f32
    linalg.yield %sum : f32
  }
  return
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>

// A sparse W stays where the program fills it: left alone, with a remark.
// REMARK: remark: pit-transpose-matmul-b: left alone: B is stored n by k and marked sparse
// CHECK-LABEL: func @sparse_weight
// CHECK-NOT: linalg.transpose
func.func @sparse_weight(%x: memref<64x32xf16>, %w: memref<16x32xf16>, %y: memref<64x16xf32>) {
  linalg.matmul indexing_maps = [#a, #w, #c] {pit.sparse = #pit.sparse<operand = 1, micro_tiles = [1x32]>}
      ins(%x, %w : memref<64x32xf16>, memref<16x32xf16>) outs(%y : memref<64x16xf32>)
  return
}

// -----

// B already k by k, or A transposed: nothing to do.
// CHECK-LABEL: func @plain
// CHECK-NOT: linalg.transpose
// CHECK: return
func.func @plain(%x: memref<64x32xf16>, %w: memref<32x16xf16>, %y: memref<64x16xf32>) {
  linalg.matmul ins(%x, %w : memref<64x32xf16>, memref<32x16xf16>) outs(%y : memref<64x16xf32>)
  return
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>

// Unmarked, static: left to the dense kernel, which reads W as stored.
// CHECK-LABEL: func @dense_linear
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}] ins(%{{.*}}, %{{.*}} : memref<64x32xf16>, memref<16x32xf16>)
func.func @dense_linear(%x: memref<64x32xf16>, %w: memref<16x32xf16>, %y: memref<64x16xf32>) {
  linalg.matmul indexing_maps = [#a, #w, #c]
      ins(%x, %w : memref<64x32xf16>, memref<16x32xf16>) outs(%y : memref<64x16xf32>)
  return
}
