// Split-k: a dense matmul whose #pit.mma_config splits each tile's k into 3
// parts. The 4 tiles of 128 x 256 are 12 units, which the persistent TMA
// blocks walk cluster by cluster: the two blocks of a cluster take part 0
// of its two tiles, then part 1, then part 2 (units 6c .. 6c + 5). The
// call's arena holds a count of arrivals for each of the 8 multiplying warps
// of each tile (32, cleared by a memset) and a slot of f32 partial sums for
// each tile's first two parts (2 x 4 x 128 x 256). A part but the last
// publishes its sums, then its warp's lane 0 counts it done (a fence, then
// a relaxed add); the last part's lane 0 waits with acquiring loads until
// both have arrived, and the warp adds their sums before the tile goes back
// through the TMA.
// RUN: pit-opt %s --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations | FileCheck %s

// CHECK-LABEL: func.func @split
// CHECK: %[[ARENA:.+]] = gpu.alloc () : memref<1048832xi8>
// CHECK: %[[ARRIVALS:.+]] = memref.view %[[ARENA]][%{{.+}}][] : memref<1048832xi8> to memref<32xi32>
// CHECK: memref.view %[[ARENA]][%{{.+}}][] : memref<1048832xi8> to memref<262144xf32>
// CHECK: gpu.memset %[[ARRIVALS]], %{{.+}} : memref<32xi32>, i32
// CHECK: gpu.launch
// CHECK: scf.for %{{.+}} = %{{.+}} to %c12{{.*}} step
// CHECK: scf.for %{{.+}} = %{{.+}} to %c12{{.*}} step
// CHECK: scf.if
// CHECK: scf.while
// CHECK: llvm.inline_asm has_side_effects "ld.acquire.gpu.global.u32 $0, [$1];"
// CHECK: nvvm.bar.warp.sync
// CHECK-COUNT-4: vector.load {{.+}} : memref<262144xf32>, vector<4xf32>
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: } else {
// CHECK-COUNT-4: vector.store {{.+}} : memref<262144xf32>, vector<4xf32>
// CHECK: nvvm.bar.warp.sync
// CHECK: llvm.inline_asm has_side_effects "fence.acq_rel.gpu;\0A\09red.relaxed.gpu.global.add.u32 [$0], 1;"
// CHECK: gpu.dealloc %[[ARENA]]
func.func @split(%a: memref<256x1024xf16>, %b: memref<1024x512xf16>, %c: memref<256x512xf16>) {
  %zero = arith.constant 0.0 : f16
  linalg.fill ins(%zero : f16) outs(%c : memref<256x512xf16>)
  linalg.matmul {pit.mma_config = #pit.mma_config<block = [128, 256, 64], stages = 3, specialize = true, tensor_copies = true, cluster_blocks = 2, k_splits = 3>}
      ins(%a, %b : memref<256x1024xf16>, memref<1024x512xf16>) outs(%c : memref<256x512xf16>)
  return
}

