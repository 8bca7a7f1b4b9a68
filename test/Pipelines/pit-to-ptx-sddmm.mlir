// An SDDMM (sparse output mask) to PTX: its STile runs on the tensor cores,
// and ptxas assembles it for sm_80 and sm_90.
// RUN: pit-opt %s --pit-to-ptx="chip=sm_90" -o %t
// RUN: grep 'gpu.binary @sddmm_kernel_0' %t | FileCheck %s --check-prefix=CP-ASYNC
// RUN: grep 'gpu.binary @sddmm_kernel_0' %t | FileCheck %s --check-prefix=MMA
// RUN: sed 's/xf16>/xbf16>/g; s/: f16/: bf16/g' %s | pit-opt --pit-to-ptx="chip=sm_90" | FileCheck %s --check-prefix=BF16
// RUN: %if cuda %{ env CUDA_HOME=%cuda_home pit-opt %s --pit-to-ptx="chip=sm_90 format=bin" | FileCheck %s --check-prefix=CUBIN %}
// RUN: %if cuda %{ env CUDA_HOME=%cuda_home pit-opt %s --pit-to-ptx="chip=sm_80 format=bin" | FileCheck %s --check-prefix=CUBIN %}

// CP-ASYNC: cp.async.ca.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, {{%r[0-9]+|16}}
// MMA: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// BF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CUBIN: gpu.binary @sddmm_kernel_0 [#gpu.object<#nvvm.target<chip = "sm_{{[89]}}0", features = "+ptx81">, {{.*}}bin = "
func.func @sddmm(%a: memref<256x64xf16>, %b: memref<64x256xf16>, %mask: memref<256x256xf16>, %c: memref<256x256xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b, %mask : memref<256x64xf16>, memref<64x256xf16>, memref<256x256xf16>)
      outs(%c : memref<256x256xf32>)
      attrs = {pit.sparse = #pit.sparse<operand = 2, micro_tiles = [32x1]>} {
  ^bb0(%x: f16, %y: f16, %w: f16, %acc: f32):
    %x32 = arith.extf %x : f16 to f32
    %y32 = arith.extf %y : f16 to f32
    %w32 = arith.extf %w : f16 to f32
    %p = arith.mulf %x32, %y32 : f32
    %q = arith.mulf %p, %w32 : f32
    %s = arith.addf %acc, %q : f32
    linalg.yield %s : f32
  }
  return
}
