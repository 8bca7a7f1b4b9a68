// The shape of a tensor-core matmul block comes from the strategy's options. (A's
// 32x1 micro-tiles come from the detection's compacted copy, into a k-major
// tile: k x 32.)
// RUN: pit-opt %s --pit-sparsify --pit-gpu-strategy="mma-block-columns=64 mma-chunk=64 mma-stages=3" --convert-pit-to-gpu --pit-gpu-coalesce-allocations | FileCheck %s --check-prefix=THREE
// Four stages of 32x64 A and 64x256 B would need 147 KiB of shared memory:
// the block gets as many as fit in 96 KiB, here two; past 48 KiB they are
// views of dynamic shared memory, which the launch asks for.
// RUN: pit-opt %s --pit-sparsify --pit-gpu-strategy="mma-block-columns=256 mma-chunk=64 mma-stages=4" --convert-pit-to-gpu --pit-gpu-coalesce-allocations | FileCheck %s --check-prefix=FIT
// Block columns that do not divide n fall back to the STile's own tile.
// RUN: pit-opt %s --pit-sparsify --pit-gpu-strategy="mma-block-columns=384" --convert-pit-to-gpu --pit-gpu-coalesce-allocations | FileCheck %s --check-prefix=TILE

// THREE: gpu.launch {{.+}} workgroup(%{{.+}} : memref<3x64x32xf16, #gpu.address_space<workgroup>>, %{{.+}} : memref<3x64x64xf16, #gpu.address_space<workgroup>>)
// THREE:   nvvm.cp.async.commit.group
// THREE:   nvvm.cp.async.commit.group
// THREE:   scf.for
// THREE:     nvvm.cp.async.wait.group 2
// FIT: gpu.launch {{.+}} dynamic_shared_memory_size %c73728_i32
// FIT:   %[[SHARED:.+]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// FIT:   memref.view %[[SHARED]][%c0{{(_[0-9]+)?}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x64x32xf16, #gpu.address_space<workgroup>>
// FIT:   memref.view %[[SHARED]][%c8192][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x64x256xf16, #gpu.address_space<workgroup>>
// FIT:   nvvm.cp.async.wait.group 1
// TILE: gpu.launch {{.+}} workgroup(%{{.+}} : memref<2x32x32xf16, #gpu.address_space<workgroup>>, %{{.+}} : memref<2x32x64xf16, #gpu.address_space<workgroup>>)
func.func @matmul(%a: memref<256x256xf16>, %b: memref<256x512xf16>, %c: memref<256x512xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<256x256xf16>, memref<256x512xf16>) outs(%c : memref<256x512xf32>)
  return
}
