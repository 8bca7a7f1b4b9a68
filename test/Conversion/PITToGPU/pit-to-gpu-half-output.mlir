// A C of the inputs' type (f16 here) gets the f32 sums rounded once, where
// it is stored; the kernels accumulate in f32 as they do for an f32 C.
// RUN: pit-opt %s --pit-sparsify="pit-loop=2" --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations 2>/dev/null | FileCheck %s --check-prefix=STAGED
// RUN: pit-opt %s --pit-sparsify="pit-loop=2" --pit-gpu-strategy="chip=sm_90a mma-tensor-copies=false" --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations 2>/dev/null | FileCheck %s --check-prefix=WALK
// The lit tests' table forces the panel (variant 0), the atomics (variant
// 1) and dense (variant 2) of 1x64 gathered along m.
// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../../Inputs/latency-table.json variant=0" --canonicalize --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations 2>/dev/null | FileCheck %s --check-prefix=PANEL
// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../../Inputs/latency-table.json variant=1" --canonicalize --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations -verify-diagnostics -o /dev/null
// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../../Inputs/latency-table.json variant=2" --canonicalize --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations 2>/dev/null | FileCheck %s --check-prefix=DENSE

// Gathered along k, C only cleared: the fill folds away. On sm_90a the
// block writes its tile back through the TMA: once its last chunk is
// multiplied, every thread writes its 32 rounded pairs into B's stages (the
// 4 boxes of 32 x 64 of C's tensor map, asked for at the entry), fenced for
// the async proxy; after a block barrier one thread stores the 4 boxes,
// and waits until the TMA has read them.
// STAGED-LABEL: func @walk
// STAGED: %[[MAPC:.+]] = call @pitCudaTensorMap2D(%{{.+}}, %c256_i64, %c512_i64, %c32_i64, %c64_i64)
// STAGED: gpu.launch
// STAGED: nvgpu.mma.sync
// STAGED-NOT: vector.store {{.+}}, %arg2
// STAGED-COUNT-32: llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
// STAGED-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// STAGED-NEXT: gpu.barrier
// STAGED: %[[MAP:.+]] = llvm.inttoptr %[[MAPC]] : i64 to !llvm.ptr
// STAGED-COUNT-4: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]], %{{.+}}, box[%{{.+}}, %{{.+}}] : !llvm.ptr, <3>
// STAGED-NEXT: nvvm.cp.async.bulk.commit.group
// STAGED-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// Without the TMA (mma-tensor-copies=false): the 4 lanes of a group
// transpose the packed, rounded pairs of two neighbouring 8-column blocks
// (lanes two apart, then neighbours), and each lane stores a run of 8
// columns in 16 bytes.
// WALK-LABEL: func @walk
// WALK-NOT: linalg.fill
// WALK: gpu.launch
// WALK: nvgpu.mma.sync
// WALK: %[[PAIR:.+]] = vector.from_elements {{.+}} : vector<2xf32>
// WALK-NEXT: %[[ROUNDED:.+]] = arith.truncf %[[PAIR]] : vector<2xf32> to vector<2xf16>
// WALK-NEXT: vector.bitcast %[[ROUNDED]] : vector<2xf16> to vector<1xi32>
// WALK: gpu.shuffle  xor %{{.+}}, %c2_i32
// WALK: gpu.shuffle  xor %{{.+}}, %c2_i32
// WALK: gpu.shuffle  xor %{{.+}}, %c1_i32
// WALK: gpu.shuffle  xor %{{.+}}, %c1_i32
// WALK: %[[WORDS:.+]] = vector.from_elements {{.+}} : vector<4xi32>
// WALK: %[[EIGHT:.+]] = vector.bitcast %[[WORDS]] : vector<4xi32> to vector<8xf16>
// WALK-NEXT: vector.store %[[EIGHT]], %arg2[{{.+}}] {alignment = 16 : i64} : memref<256x512xf16>, vector<8xf16>
func.func @walk(%a: memref<256x256xf16>, %b: memref<256x512xf16>, %c: memref<256x512xf16>) {
  %zero = arith.constant 0.0 : f16
  linalg.fill ins(%zero : f16) outs(%c : memref<256x512xf16>)
  // expected-remark @+1 {{the latency table has no entry for 'linalg.matmul 256x512x256 f16,f16,f16'}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<256x256xf16>, memref<256x512xf16>) outs(%c : memref<256x512xf16>)
  return
}

// Gathered along m, the panel starts at C's values widened to f32 (a piece
// of 4 columns is two pairs in the panel, whose columns are interleaved),
// takes a row's four sums of a thread in one access, and is stored
// rounded, in pieces of 4 (8 bytes). The copying warps bring the rows of B
// of a unit ahead into L2 (two rows a lane: a unit's k is 64).
// PANEL-LABEL: func @rows
// B's chunk of a unit comes in with the TMA: B's tensor map (boxes of 64 x
// 64) is asked for at the entry; one lane of the copying warp counts the
// chunk's bytes on the stage's `full` mbarrier and issues the copy.
// PANEL: %[[MAP_B:.+]] = call @pitCudaTensorMap2D(%{{.+}}, %c256_i64, %c128_i64, %c64_i64, %c64_i64{{.*}})
// PANEL: %[[OLD:.+]] = vector.load %arg2[{{.+}}] {alignment = 8 : i64} : memref<512x128xf16>, vector<4xf16>
// PANEL-NEXT: %[[WIDE:.+]] = arith.extf %[[OLD]] : vector<4xf16> to vector<4xf32>
// PANEL-NEXT: %[[FIRST:.+]] = vector.shuffle %[[WIDE]], %[[WIDE]] [0, 1]
// PANEL: vector.store %[[FIRST]], %{{.+}} : memref<256x64xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// PANEL: %[[SECOND:.+]] = vector.shuffle %[[WIDE]], %[[WIDE]] [2, 3]
// PANEL: vector.store %[[SECOND]], %{{.+}} : memref<256x64xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// PANEL-COUNT-2: nvvm.prefetch level = L2, %{{.+}} : !llvm.ptr<1>
// PANEL-NOT: nvvm.prefetch
// PANEL: nvvm.mbarrier.expect_tx %[[FULL:.+]], %c8192_i32
// PANEL: %[[MAP_POINTER:.+]] = llvm.inttoptr %[[MAP_B]] : i64 to !llvm.ptr
// PANEL-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MAP_POINTER]], %[[FULL]], box[
// PANEL: nvvm.wgmma.mma_async
// PANEL: %[[PANEL_OLD:.+]] = vector.load %{{.+}} : memref<256x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// PANEL: vector.store %{{.+}} : memref<256x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// PANEL: %[[PAIRS:.+]] = vector.shuffle %{{.+}}, %{{.+}} [0, 1, 2, 3] : vector<2xf32>, vector<2xf32>
// PANEL: %[[ROUNDED:.+]] = arith.truncf %[[PAIRS]] : vector<4xf32> to vector<4xf16>
// PANEL-NEXT: vector.store %[[ROUNDED]], %arg2[{{.+}}] {alignment = 8 : i64} : memref<512x128xf16>, vector<4xf16>
// PANEL-NOT: memref.atomic_rmw

// Dense: C's pairs are read where the accumulators hold them, widened,
// added to and rounded; then they go out in runs of 8 as above.
// DENSE-LABEL: func @rows
// DENSE: nvvm.wgmma.mma_async
// DENSE: %[[OLD:.+]] = vector.load %arg2[{{.+}}] {alignment = 4 : i64} : memref<512x128xf16>, vector<2xf16>
// DENSE-NEXT: %[[WIDE:.+]] = arith.extf %[[OLD]] : vector<2xf16> to vector<2xf32>
// DENSE-NEXT: %[[SUM:.+]] = arith.addf %[[WIDE]], %{{.+}} : vector<2xf32>
// DENSE-NEXT: %[[ROUNDED:.+]] = arith.truncf %[[SUM]] : vector<2xf32> to vector<2xf16>
// DENSE-NEXT: vector.bitcast %[[ROUNDED]] : vector<2xf16> to vector<1xi32>
// DENSE: gpu.shuffle  xor
// DENSE: vector.store %{{.+}}, %arg2[{{.+}}] {alignment = 16 : i64} : memref<512x128xf16>, vector<8xf16>
func.func @rows(%a: memref<512x256xf16>, %b: memref<256x128xf16>, %c: memref<512x128xf16>) {
  // Atomic adds of f16 partial sums would round at every add.
  // expected-remark @+2 {{rows gathered along m are added into C with atomics, which needs f32 C (C is 'f16'): the tile is left to the SIMT lowering; a `panel` keeps the sums in f32}}
  // expected-remark @+1 {{convert-pit-to-gpu: the tile runs on the SIMT lowering (CUDA cores): no tensor-core kernel takes it}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x64]>}
      ins(%a, %b : memref<512x256xf16>, memref<256x128xf16>) outs(%c : memref<512x128xf16>)
  return
}
