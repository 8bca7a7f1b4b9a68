// What the GPU lowering cannot do is an error on the op, not a crash.
// RUN: pit-opt %s -split-input-file --pit-sparsify --convert-pit-to-gpu --pit-gpu-coalesce-allocations -verify-diagnostics

func.func @too_much_shared_memory(%a: memref<128x1024xf32>, %b: memref<1024x64xf32>, %c: memref<128x64xf32>) {
  // 1x1024 rows along m: tiles of 32x1024 and 1024x64 f32 do not fit.
  // expected-error @below {{'pit.stile' op its tile buffers need 401408 bytes of shared memory, more than 49152; choose smaller tiles}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x1024]>}
      ins(%a, %b : memref<128x1024xf32>, memref<1024x64xf32>) outs(%c : memref<128x64xf32>)
  return
}
