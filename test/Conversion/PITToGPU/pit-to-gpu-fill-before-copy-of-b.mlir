// A zero fill of C folds into the matmul STile's stores across the k-by-n
// copy of B that pit-transpose-matmul-b puts between them (y = x W^T): C is
// then written once, through the TMA on sm_90a, instead of cleared by a
// kernel of its own and read back to add to.
// RUN: pit-opt %s -split-input-file --pit-transpose-matmul-b --pit-sparsify --pit-gpu-strategy="chip=sm_90a" --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations 2>/dev/null | FileCheck %s

// The transpose, the detection and the STile: no kernel clears C.
// CHECK-LABEL: func @linear
// CHECK: call @pitCudaTensorMap2D(%{{.+}}, %c256_i64, %c256_i64{{.*}}, %c32_i64, %c64_i64)
// CHECK-COUNT-3: gpu.launch blocks
// CHECK-NOT: gpu.launch blocks
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: return
func.func @linear(%x: memref<256x512xf16>, %w: memref<256x512xf16>, %y: memref<256x256xf16>) {
  %zero = arith.constant 0.0 : f16
  linalg.fill ins(%zero : f16) outs(%y : memref<256x256xf16>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x64]>}
      ins(%x, %w : memref<256x512xf16>, memref<256x512xf16>) outs(%y : memref<256x256xf16>)
  return
}

// -----

// A copy that reads C between the fill and the matmul sees the zeros: the
// fill stays, and the STile adds to C.
// CHECK-LABEL: func @reads_c
// CHECK-NOT: pitCudaTensorMap2D
// CHECK: return
func.func @reads_c(%x: memref<256x512xf16>, %w: memref<512x256xf16>, %y: memref<256x256xf16>, %copy: memref<256x256xf16>) {
  %zero = arith.constant 0.0 : f16
  linalg.fill ins(%zero : f16) outs(%y : memref<256x256xf16>)
  %t = memref.alloc() : memref<256x256xf16>
  linalg.transpose ins(%y : memref<256x256xf16>) outs(%t : memref<256x256xf16>) permutation = [1, 0]
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x64]>}
      ins(%x, %w : memref<256x512xf16>, memref<512x256xf16>) outs(%y : memref<256x256xf16>)
  linalg.copy ins(%t : memref<256x256xf16>) outs(%copy : memref<256x256xf16>)
  memref.dealloc %t : memref<256x256xf16>
  return
}
