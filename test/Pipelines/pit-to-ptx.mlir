// From a marked matmul to PTX and host code in one named pipeline.
// RUN: pit-opt %s --pit-to-ptx="chip=sm_90" | FileCheck %s
// RUN: pit-opt %s --pit-to-ptx="chip=sm_80" | FileCheck %s --check-prefix=SM80
// ptxas (from the CUDA toolkit) assembles the kernels for both chips.
// RUN: %if cuda %{ env CUDA_HOME=%cuda_home pit-opt %s --pit-to-ptx="chip=sm_90 format=bin" | FileCheck %s --check-prefix=CUBIN %}
// RUN: %if cuda %{ env CUDA_HOME=%cuda_home pit-opt %s --pit-to-ptx="chip=sm_80 format=bin" | FileCheck %s --check-prefix=CUBIN %}

// The host code calls the kernels through the runtime.
// CHECK: llvm.func @sparse_matmul
// CHECK: gpu.launch_func
// Three kernels: clear the counts, detect, the STile.
// CHECK: gpu.binary @sparse_matmul_kernel [#gpu.object<#nvvm.target<chip = "sm_90">, {{.*}}assembly = "{{.*}}.target sm_90
// CHECK-SAME: st.global.b32
// CHECK: gpu.binary @sparse_matmul_kernel_0 [#gpu.object<#nvvm.target<chip = "sm_90">
// CHECK-SAME: atom.global.add.u32
// CHECK: gpu.binary @sparse_matmul_kernel_1 [#gpu.object<#nvvm.target<chip = "sm_90">
// CHECK-SAME: .shared
// CHECK-SAME: bar.sync
// CHECK-SAME: atom.global.add.f32
// SM80: .target sm_80
// CUBIN: gpu.binary @sparse_matmul_kernel_1 [#gpu.object<#nvvm.target<chip = "sm_{{[89]}}0">, {{.*}}bin = "
func.func @sparse_matmul(%a: memref<128x256xf16>, %b: memref<256x64xf16>, %c: memref<128x64xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<128x256xf16>, memref<256x64xf16>) outs(%c : memref<128x64xf32>)
  return
}
