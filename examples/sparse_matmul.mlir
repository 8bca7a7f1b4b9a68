// C += A x B where A is dynamically sparse: which of its 32x1 (or 1x64)
// micro-tiles are zero is known only when the function is called.
func.func @sparse_matmul(%a: memref<256x256xf32>, %b: memref<256x128xf32>,
                         %c: memref<256x128xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1, 1x64]>}
      ins(%a, %b : memref<256x256xf32>, memref<256x128xf32>)
      outs(%c : memref<256x128xf32>)
  return
}
