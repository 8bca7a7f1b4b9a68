// A bias broadcast into C just before a matmul (y = x W^T + b) folds into
// the tensor-core kernel's stores, as a zero fill does: the kernel adds the
// bias to its f32 sums where it writes C (through the TMA on sm_90a), and no
// kernel of its own writes the bias into C for the matmul to read back.
// RUN: pit-opt %s -split-input-file --pit-transpose-matmul-b --pit-sparsify --pit-gpu-strategy="chip=sm_90a" --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations 2>/dev/null | FileCheck %s

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
func.func @row_bias(%x: memref<256x512xf16>, %w: memref<256x512xf16>, %bias: memref<256xf16>, %y: memref<256x256xf16>) {
  linalg.broadcast ins(%bias : memref<256xf16>) outs(%y : memref<256x256xf16>) dimensions = [1]
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x64]>}
      ins(%x, %w : memref<256x512xf16>, memref<256x512xf16>) outs(%y : memref<256x256xf16>)
  return
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
func.func @column_bias(%x: memref<256x512xbf16>, %w: memref<512x256xbf16>, %bias: memref<256xf32>, %y: memref<256x256xf32>) {
  linalg.broadcast ins(%bias : memref<256xf32>) outs(%y : memref<256x256xf32>) dimensions = [0]
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [16x16]>}
      ins(%x, %w : memref<256x512xbf16>, memref<512x256xbf16>) outs(%y : memref<256x256xf32>)
  return
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
func.func @reads_c(%x: memref<256x512xf16>, %w: memref<512x256xf16>, %bias: memref<256xf16>, %y: memref<256x256xf16>, %copy: memref<256x256xf16>) {
  linalg.broadcast ins(%bias : memref<256xf16>) outs(%y : memref<256x256xf16>) dimensions = [1]
  %t = memref.alloc() : memref<256x256xf16>
  linalg.transpose ins(%y : memref<256x256xf16>) outs(%t : memref<256x256xf16>) permutation = [1, 0]
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x64]>}
      ins(%x, %w : memref<256x512xf16>, memref<512x256xf16>) outs(%y : memref<256x256xf16>)
  linalg.copy ins(%t : memref<256x256xf16>) outs(%copy : memref<256x256xf16>)
  memref.dealloc %t : memref<256x256xf16>
  return
}
