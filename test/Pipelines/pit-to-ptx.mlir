// From a marked matmul to PTX and host code in one named pipeline.
// RUN: pit-opt %s --pit-to-ptx="chip=sm_90" -o %t
// RUN: FileCheck %s < %t
// The STile of an f16 matmul gathers with cp.async into shared memory and
// multiplies with mma.sync (each checked on its own: code layout varies).
// RUN: grep 'gpu.binary @sparse_matmul_kernel_0' %t | FileCheck %s --check-prefix=CP-ASYNC
// RUN: grep 'gpu.binary @sparse_matmul_kernel_0' %t | FileCheck %s --check-prefix=WAIT
// RUN: grep 'gpu.binary @sparse_matmul_kernel_0' %t | FileCheck %s --check-prefix=BARRIER
// RUN: grep 'gpu.binary @sparse_matmul_kernel_0' %t | FileCheck %s --check-prefix=MMA
// bf16 goes to the tensor cores too.
// RUN: sed 's/xf16>/xbf16>/g' %s | pit-opt --pit-to-ptx="chip=sm_90" | FileCheck %s --check-prefix=BF16
// RUN: pit-opt %s --pit-to-ptx="chip=sm_80" | FileCheck %s --check-prefix=SM80
// From sm_90 on, every kernel may start while the one before it finishes: it
// lets its dependents launch, then waits for its prerequisites; the module
// carries the marker the runtime launches by. Not below sm_90.
// RUN: grep 'gpu.binary @sparse_matmul_kernel_0' %t | FileCheck %s --check-prefix=DEPENDENT
// In both kernels the wait comes before the first global load or copy.
// RUN: grep 'gpu.binary @sparse_matmul_kernel ' %t | sed 's/\(ld\.global\|cp\.async\).*//' | FileCheck %s --check-prefix=WAIT-FIRST
// RUN: grep 'gpu.binary @sparse_matmul_kernel_0' %t | sed 's/\(ld\.global\|cp\.async\).*//' | FileCheck %s --check-prefix=WAIT-FIRST
// RUN: pit-opt %s --pit-to-ptx="chip=sm_80" | FileCheck %s --check-prefix=SM80-INDEPENDENT
// ptxas (from the CUDA toolkit) assembles the kernels for both chips.
// RUN: %if cuda %{ env CUDA_HOME=%cuda_home pit-opt %s --pit-to-ptx="chip=sm_90 format=bin" | FileCheck %s --check-prefix=CUBIN %}
// RUN: %if cuda %{ env CUDA_HOME=%cuda_home pit-opt %s --pit-to-ptx="chip=sm_80 format=bin" | FileCheck %s --check-prefix=CUBIN %}

// The host code calls the kernels through the runtime; the counts are
// cleared with a memset.
// CHECK: llvm.func @sparse_matmul
// CHECK: llvm.call @mgpuMemset32
// CHECK: gpu.launch_func
// Two kernels: detect, the STile.
// CHECK: gpu.binary @sparse_matmul_kernel [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx81">, {{.*}}assembly = "{{.*}}.target sm_90
// CHECK-SAME: atom.global.add.u32
// CHECK: gpu.binary @sparse_matmul_kernel_0 [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx81">
// CP-ASYNC: cp.async.ca.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}}
// WAIT: cp.async.wait_group
// BARRIER: bar.sync
// MMA: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// BF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// DEPENDENT: .visible .global .align 4 .u32 pit_dependent_launch = 1;
// DEPENDENT-SAME: griddepcontrol.launch_dependents;
// DEPENDENT-SAME: griddepcontrol.wait;
// WAIT-FIRST: griddepcontrol.wait;
// SM80-INDEPENDENT-NOT: griddepcontrol
// SM80-INDEPENDENT-NOT: pit_dependent_launch
// SM80: .target sm_80
// SM80: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CUBIN: gpu.binary @sparse_matmul_kernel_0 [#gpu.object<#nvvm.target<chip = "sm_{{[89]}}0", features = "+ptx81">, {{.*}}bin = "
func.func @sparse_matmul(%a: memref<128x256xf16>, %b: memref<256x64xf16>, %c: memref<128x64xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<128x256xf16>, memref<256x64xf16>) outs(%c : memref<128x64xf32>)
  return
}
