// RUN: pit-opt %s -split-input-file --pit-check-lowered -verify-diagnostics

// Only LLVM dialect ops, modules, compiled kernels and their launches may
// be left; everything else is named, once per op name, with a count.
// expected-error @+1 {{'func.func' was left unlowered (1 op): no pass of the pipeline lowers it to the LLVM dialect}}
func.func @f(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  // expected-error @+1 {{'linalg.softmax' was left unlowered (2 ops)}}
  linalg.softmax dimension(1) ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>)
  linalg.softmax dimension(1) ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>)
  // expected-error @+1 {{'func.return' was left unlowered (1 op)}}
  return
}

// -----

// A conversion cast is named only when nothing else is left: otherwise it
// is the symptom of an op named already.
llvm.func @casts(%x: i64) -> i64 {
  // expected-error @+1 {{'builtin.unrealized_conversion_cast' was left unlowered (2 ops)}}
  %0 = builtin.unrealized_conversion_cast %x : i64 to index
  %1 = builtin.unrealized_conversion_cast %0 : index to i64
  llvm.return %1 : i64
}

// -----

// Fully lowered: nothing to say.
llvm.func @lowered(%x: i64) -> i64 {
  llvm.return %x : i64
}
