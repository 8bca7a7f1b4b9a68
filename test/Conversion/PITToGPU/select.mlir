// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../../Inputs/latency-table.json" --convert-pit-to-gpu="chip=sm_90" | FileCheck %s

// Run-time selection on the GPU: the counts of both detections come back to
// host buffers reserved at the function's entry, the cost model runs on the
// host, and the switch launches the chosen kernel. The 32x1 variant reads
// the compacted copy of A that its detection writes (freed after the
// switch, whichever variant ran); the dense fallback is a tensor-core
// kernel with 128x128 blocks, 3 stages, and C's zero fill folded away.
// CHECK-LABEL: func @matmul
// CHECK-NEXT: %[[HOST_COARSE:.+]] = memref.alloca() : memref<8xi32>
// CHECK-NEXT: %[[HOST_FINE:.+]] = memref.alloca() : memref<8xi32>
// CHECK: %[[FINE:.+]] = gpu.alloc () : memref<8xi32>
// CHECK: %[[COPY:.+]] = gpu.alloc () : memref<8x256x32xf16>
// CHECK: %[[COARSE:.+]] = gpu.alloc () : memref<8xi32>
// CHECK: gpu.memcpy %[[HOST_FINE]], %[[FINE]]
// CHECK: gpu.memcpy %[[HOST_COARSE]], %[[COARSE]]
// CHECK: memref.load %[[HOST_FINE]]
// CHECK: memref.load %[[HOST_COARSE]]
// CHECK: scf.index_switch
// CHECK: case 0 {
// CHECK-NOT: gpu.memset
// CHECK: gpu.launch {{.*}} workgroup({{.*}} : memref<2x32x32xf16, #gpu.address_space<workgroup>>, {{.*}} : memref<2x32x256xf16, #gpu.address_space<workgroup>>)
// CHECK: case 1 {
// CHECK-NOT: gpu.memset
// CHECK: gpu.launch
// CHECK: default {
// CHECK-NOT: gpu.memset
// CHECK: gpu.launch {{.*}} workgroup({{.*}} : memref<3x128x32xf16, #gpu.address_space<workgroup>>, {{.*}} : memref<3x32x128xf16, #gpu.address_space<workgroup>>)
// CHECK: gpu.dealloc %[[COPY]]
func.func @matmul(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<256x256xf32>)
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1, 32x64]>}
      ins(%a, %b : memref<256x256xf16>, memref<256x256xf16>) outs(%c : memref<256x256xf32>)
  return
}
