// The dense fallback of run-time selection on sm_90a (forced here: variant
// 4 of the lit tests' table is dense): blocks of 128 x 256, a warpgroup for
// each 64 rows (256 threads), 3 stages of the 128 x 64 A tile and four
// 64 x 64 blocks of B in dynamic shared memory; each warpgroup multiplies
// its own 64 rows, m64n256k16, into one struct of 128 f32.
// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../../Inputs/latency-table.json variant=4" --convert-pit-to-gpu="chip=sm_90a" 2>/dev/null | FileCheck %s

// CHECK: gpu.launch blocks({{.+}}) in ({{.+}} = %c4{{.*}}, {{.+}}) threads({{.+}}) in ({{.+}} = %c256{{.*}}, {{.+}}) dynamic_shared_memory_size %c148464_i32
// CHECK:   memref.view {{.+}} to memref<3x128x64xf16, #gpu.address_space<workgroup>>
// CHECK:   memref.view {{.+}} to memref<3x4x64x64xf16, #gpu.address_space<workgroup>>
// The second warpgroup's rows of A start 64 rows (8192 bytes) further.
// CHECK:   %[[WARPGROUP:[0-9]+]] = arith.divui %arg{{[0-9]+}}, %c128
// CHECK:   llvm.mlir.zero : !llvm.struct<(f32
// CHECK:   arith.muli %[[WARPGROUP]], %c8192
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.+}} <m = 64, n = 256, k = 16>
// CHECK-NOT: nvvm.wgmma.mma_async
func.func @dense(%a: memref<256x256xf16>, %b: memref<256x512xf16>, %c: memref<256x512xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<256x256xf16>, memref<256x512xf16>) outs(%c : memref<256x512xf32>)
  return
}
