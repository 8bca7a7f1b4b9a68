// What the pipelines refuse, by name, instead of exiting 0 with ops left
// or aborting.
// RUN: not pit-opt %s -split-input-file --pit-cpu-pipeline 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not pit-opt %s -split-input-file --pit-to-ptx 2>&1 | FileCheck %s --check-prefix=PTX
// RUN: not pit-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(pit-cpu-pipeline))" 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not pit-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(pit-to-ptx))" 2>&1 | FileCheck %s --check-prefix=NESTED-PTX
// RUN: not pit-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(pit-bufferize))" 2>&1 | FileCheck %s --check-prefix=NESTED-BUF

// complex.abs on the host: the CPU pipeline has no lowering of complex
// numbers, and fails naming both ops (pit-to-ptx lowers them).
// CPU: error: 'complex.constant' was left unlowered (1 op): no pass of the pipeline lowers it to the LLVM dialect
// CPU: error: 'complex.abs' was left unlowered (1 op)
// NESTED: error: pit-cpu-pipeline runs on a builtin.module, not nested under 'func.func': name it at the top of the pipeline (builtin.module(pit-cpu-pipeline))
// NESTED-PTX: error: pit-to-ptx runs on a builtin.module, not nested under 'func.func'
// NESTED-BUF: error: pit-bufferize runs on a builtin.module, not nested under 'func.func'
func.func @complex_on_the_host(%y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %z = complex.constant [1.0 : f32, 2.0 : f32] : complex<f32>
  %a = complex.abs %z : complex<f32>
  memref.store %a, %y[%c0] : memref<4xf32>
  return
}

// -----

// tf32 has no LLVM type: refused before any conversion meets it.
// CPU: error: element type 'tf32' has no LLVM type: PIT cannot lower it
// PTX: error: element type 'tf32' has no LLVM type: PIT cannot lower it
func.func @tf32(%a: memref<64x64xtf32>, %b: memref<64x64xtf32>, %c: memref<64x64xtf32>) attributes {llvm.emit_c_interface} {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<64x64xtf32>, memref<64x64xtf32>) outs(%c : memref<64x64xtf32>)
  return
}
