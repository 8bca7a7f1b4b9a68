// An STile of f16 products that no tensor-core kernel takes says so: here
// B is the sparse operand, which the tensor-core kernels do not gather. An
// f32 STile (no tensor cores for it) runs on the SIMT lowering unremarked.
// RUN: pit-opt %s --pit-sparsify --pit-gpu-strategy="chip=sm_90a" --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations -verify-diagnostics -o /dev/null

func.func @sparse_b(%a: memref<128x256xf16>, %b: memref<256x128xf16>, %c: memref<128x128xf16>) {
  // expected-remark @+1 {{convert-pit-to-gpu: the tile runs on the SIMT lowering (CUDA cores): no tensor-core kernel takes it (they take matmuls whose sparse operand is A}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 1, micro_tiles = [32x64]>}
      ins(%a, %b : memref<128x256xf16>, memref<256x128xf16>) outs(%c : memref<128x128xf16>)
  return
}

func.func @single_precision(%a: memref<128x256xf32>, %b: memref<256x128xf32>, %c: memref<128x128xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<128x256xf32>, memref<256x128xf32>) outs(%c : memref<128x128xf32>)
  return
}
