// Rows of A gathered along m scatter partial sums into C with atomics: from
// sm_90 on, four adjacent columns at a time (red.global.add.v4.f32): the two
// lanes that hold a run of four between them swap halves first.
// RUN: pit-opt %s --pit-sparsify --convert-pit-to-gpu="chip=sm_90" --pit-gpu-coalesce-allocations | FileCheck %s --check-prefix=SM90
// RUN: pit-opt %s --pit-sparsify --convert-pit-to-gpu="chip=sm_80" --pit-gpu-coalesce-allocations | FileCheck %s --check-prefix=SM80
// ptxas assembles it (PTX ISA 8.1, which the pipeline asks for).
// RUN: %if cuda %{ env CUDA_HOME=%cuda_home pit-opt %s --pit-to-ptx="chip=sm_90 format=bin" | FileCheck %s --check-prefix=CUBIN %}

// SM90: gpu.launch {{.+}} workgroup
// SM90:   gpu.shuffle  xor %{{.+}} : f32
// SM90:   gpu.shuffle  xor %{{.+}} : f32
// SM90:   memref.extract_aligned_pointer_as_index %{{.+}} : memref<256x128xf32> -> index
// SM90:   llvm.inline_asm has_side_effects "red.global.add.v4.f32 [$0], {$1, $2, $3, $4};", "l,f,f,f,f" %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : (i64, f32, f32, f32, f32) -> ()
// SM90-NOT: atomic_rmw addf
// SM80: gpu.launch {{.+}} workgroup
// SM80-NOT: llvm.inline_asm
// SM80: memref.atomic_rmw addf
// CUBIN: gpu.binary @rows_kernel_0 [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx81">, {{.*}}bin = "
func.func @rows(%a: memref<256x256xf16>, %b: memref<256x128xf16>, %c: memref<256x128xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x64]>}
      ins(%a, %b : memref<256x256xf16>, memref<256x128xf16>) outs(%c : memref<256x128xf32>)
  return
}
