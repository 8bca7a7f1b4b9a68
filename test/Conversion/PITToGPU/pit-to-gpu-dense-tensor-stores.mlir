// The dense wgmma blocks write a 16-bit C that they only write (it was only
// cleared before) back through the TMA: C's tensor map (boxes of 64 x 64)
// is asked for at the function's entry with A's and B's, and a staging
// buffer of two 64 x 64 pieces for each multiplying warpgroup follows the
// tiles in shared memory (a multiple of 1024 bytes, as the swizzled reads
// need; 4 stages of 48 KiB + 32 KiB + the mbarriers). Once a tile's last
// chunk is multiplied, each warpgroup takes its 64 rows 64 columns at a
// time: its first thread waits until the TMA has read the piece two before
// (the same buffer), the warpgroup meets (a named barrier of 128 threads),
// writes its 16 pairs of the piece, fences them for the async proxy, meets
// again, and the first thread stores the piece and commits it. The last
// stores are waited for once the tiles are done.
// An f16 C that the matmul adds into keeps the warps' own stores: it reads C.
// (multiprocessors=1: one multiprocessor takes every tile, so the strategy
// keeps its widest block, 128 x 256.)
// RUN: pit-opt %s --pit-gpu-strategy="chip=sm_90a multiprocessors=1" --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations 2>/dev/null | FileCheck %s
// Blocks that are not warp-specialised multiply with wgmma too, and keep
// their own stores: a warpgroup done with its last chunk cannot tell that
// the other one is, to reuse B's stages.
// RUN: pit-opt %s --pit-gpu-strategy="chip=sm_90a multiprocessors=1 mma-specialize=false" --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations 2>/dev/null | FileCheck %s --check-prefix=PLAIN

// CHECK-LABEL: func.func @written(
// CHECK-SAME: %[[A:[^:]+]]: memref<256x256xf16>, %[[B:[^:]+]]: memref<256x512xf16>, %[[C:[^:]+]]: memref<256x512xf16>)
// CHECK:   memref.extract_aligned_pointer_as_index %[[C]]
// CHECK-NEXT: arith.index_cast
// CHECK:   %[[MAPC:.+]] = call @pitCudaTensorMap2D(%{{.+}}, %c256_i64, %c512_i64, %c64_i64, %c64_i64{{.*}})
// CHECK:   gpu.launch clusters({{.+}}) threads({{.+}}) in ({{.+}} = %c384{{.*}}, {{.+}}) dynamic_shared_memory_size %c230448_i32
// CHECK:     memref.view {{.+}} to memref<4x128x64xf16, #gpu.address_space<workgroup>>
// CHECK:     memref.view {{.+}} to memref<4x4x64x64xf16, #gpu.address_space<workgroup>>
// CHECK:     %[[STAGING:.+]] = memref.view {{.+}} to memref<4x64x64xf16, #gpu.address_space<workgroup>>
// CHECK:     memref.view {{.+}} to memref<8xi64, #gpu.address_space<workgroup>>
// CHECK:     %[[WARPGROUP:.+]] = arith.divui %arg{{[0-9]+}}, %c128
// CHECK:     nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: vector.store {{.+}}, %[[C]]
// CHECK:     %[[NEXT:.+]] = arith.addi %[[WARPGROUP]], %c1
// CHECK-NEXT: %[[ID:.+]] = arith.index_cast %[[NEXT]] : index to i32
// CHECK:     %[[MAP:.+]] = llvm.inttoptr %[[MAPC]] : i64 to !llvm.ptr
// CHECK:     nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK:     nvvm.barrier id = %[[ID]] number_of_threads = %c128_i32
// The 16-byte piece of a row XORed with the row's last 3 bits.
// CHECK:     %[[PATTERN:.+]] = arith.remui %{{.+}}, %c8
// CHECK:     arith.xori %{{.+}}, %[[PATTERN]] : index
// CHECK-COUNT-16: vector.store %{{.+}}, %[[STAGING]][{{.+}}] : memref<4x64x64xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier id = %[[ID]] number_of_threads = %c128_i32
// CHECK:       nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]], %{{.+}}, box[%{{.+}}, %{{.+}}] : !llvm.ptr, <3>
// CHECK-NEXT:  nvvm.cp.async.bulk.commit.group
// CHECK-COUNT-3: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NOT: vector.store {{.+}}, %[[C]]
// CHECK:     nvvm.cp.async.bulk.wait_group 0{{$}}
// PLAIN-LABEL: func.func @written(
// PLAIN-SAME: %[[C:[^:]+]]: memref<256x512xf16>)
// PLAIN:     nvvm.wgmma.mma_async
// PLAIN-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// PLAIN:     vector.store {{.+}}, %[[C]]
// PLAIN-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// PLAIN:     return
func.func @written(%a: memref<256x256xf16>, %b: memref<256x512xf16>, %c: memref<256x512xf16>) {
  %zero = arith.constant 0.0 : f16
  linalg.fill ins(%zero : f16) outs(%c : memref<256x512xf16>)
  linalg.matmul ins(%a, %b : memref<256x256xf16>, memref<256x512xf16>)
                outs(%c : memref<256x512xf16>)
  return
}

// CHECK-LABEL: func.func @accumulated(
// CHECK-SAME: %{{[^:]+}}: memref<256x256xf16>, %{{[^:]+}}: memref<256x512xf16>, %[[C:[^:]+]]: memref<256x512xf16>)
// CHECK:   call @pitCudaTensorMap2D(%{{.+}}, %c256_i64, %c512_i64, %c64_i64, %c64_i64{{.*}})
// CHECK:   call @pitCudaTensorMap2D(%{{.+}}, %c256_i64{{.*}}, %c256_i64{{.*}}, %c128_i64, %c64_i64{{.*}})
// CHECK-NOT: call @pitCudaTensorMap2D
// CHECK:   gpu.launch clusters({{.+}}) dynamic_shared_memory_size %c197680_i32
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK:     vector.load %[[C]][
// CHECK:     vector.store {{.+}}, %[[C]]
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK:   return
func.func @accumulated(%a: memref<256x256xf16>, %b: memref<256x512xf16>, %c: memref<256x512xf16>) {
  linalg.matmul ins(%a, %b : memref<256x256xf16>, memref<256x512xf16>)
                outs(%c : memref<256x512xf16>)
  return
}
