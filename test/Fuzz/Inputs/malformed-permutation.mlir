// pit-fuzz regression: upstream's linalg parser crashes on a permutation
// that is not an integer list (it sets the null attribute the failed parse
// returns, llvm/llvm-project#132747); pit-fuzz rejects such inputs before
// parsing (docs/Fuzzing.md).
func.func @f(%w: memref<4x2xf16>, %c: memref<2x4xf16>) {
  linalg.transpose ins(%w : memref<4x2xf16>) outs(%c : memref<2x4xf16>) permutation = [1, 0@]
  return
}
