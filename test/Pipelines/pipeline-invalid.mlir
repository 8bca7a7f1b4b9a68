// What the pipelines refuse, by name, instead of exiting 0 with ops left
// or aborting.
// RUN: not pit-opt %s -split-input-file --pit-cpu-pipeline 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not pit-opt %s -split-input-file --pit-to-ptx 2>&1 | FileCheck %s --check-prefix=PTX
// RUN: not pit-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(pit-cpu-pipeline))" 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not pit-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(pit-to-ptx))" 2>&1 | FileCheck %s --check-prefix=NESTED-PTX
// RUN: not pit-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(pit-bufferize))" 2>&1 | FileCheck %s --check-prefix=NESTED-BUF

// linalg.softmax on buffers has no decomposition upstream and no lowering:
// both pipelines fail and name it.
// CPU: error: 'linalg.softmax' was left unlowered (1 op): no pass of the pipeline lowers it to the LLVM dialect
// PTX: error: 'linalg.softmax' was left unlowered (1 op)
// NESTED: error: pit-cpu-pipeline runs on a builtin.module, not nested under 'func.func': name it at the top of the pipeline (builtin.module(pit-cpu-pipeline))
// NESTED-PTX: error: pit-to-ptx runs on a builtin.module, not nested under 'func.func'
// NESTED-BUF: error: pit-bufferize runs on a builtin.module, not nested under 'func.func'
func.func @softmax(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  linalg.softmax dimension(1) ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>)
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
