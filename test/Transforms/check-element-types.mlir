// RUN: pit-opt %s -split-input-file --pit-check-element-types -verify-diagnostics

// tf32 has no LLVM type; upstream's func-to-llvm would crash on the C
// interface of this function. Reported once, at the function.
// expected-error @+1 {{element type 'tf32' has no LLVM type: PIT cannot lower it}}
func.func @tf32(%a: memref<64x64xtf32>, %b: memref<64x64xtf32>, %c: memref<64x64xtf32>) attributes {llvm.emit_c_interface} {
  linalg.matmul ins(%a, %b : memref<64x64xtf32>, memref<64x64xtf32>) outs(%c : memref<64x64xtf32>)
  return
}

// -----

func.func @body(%a: memref<8xf32>) {
  // expected-error @+1 {{element type 'tf32' has no LLVM type}}
  %t = memref.alloc() : memref<8xtf32>
  return
}

// -----

// Types LLVM holds (f8 as its bits) pass.
func.func @fine(%a: memref<8xf16>, %b: memref<8xbf16>, %c: memref<8xf8E4M3FN>, %d: memref<8xindex>, %e: memref<8xi1>) {
  return
}
