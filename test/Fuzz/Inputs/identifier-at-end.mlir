// pit-fuzz regression: an input that ends inside an identifier. MLIR's
// lexer reads the byte past the end, which pit-fuzz makes a NUL as the
// tools' file buffers have (libFuzzer's bytes end without one).
func.func @f() {
  return
}
u