// pit-to-ptx down to a cubin for rows of A gathered along m, whose partial
// sums go into C by vector atomics on sm_90 (red.global.add.v4.f32):
// ptxas assembles them (PTX ISA 8.1, which the pipeline asks for).
// REQUIRES: cuda
// RUN: env CUDA_HOME=%cuda_home pit-opt %s --pit-to-ptx="chip=sm_90 format=bin" | FileCheck %s

// CHECK: gpu.binary @rows_kernel_0 [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx81">, {{.*}}bin = "
func.func @rows(%a: memref<256x256xf16>, %b: memref<256x128xf16>, %c: memref<256x128xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x64]>}
      ins(%a, %b : memref<256x256xf16>, memref<256x128xf16>) outs(%c : memref<256x128xf32>)
  return
}
