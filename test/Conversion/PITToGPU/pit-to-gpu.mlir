// RUN: pit-opt %s -split-input-file --pit-sparsify --convert-pit-to-gpu | FileCheck %s
// RUN: pit-opt %s -split-input-file --pit-sparsify --convert-pit-to-gpu="threads-per-block=256" | FileCheck %s --check-prefix=THREADS

// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func @matmul
// The index lives on the device.
// CHECK: %[[COUNTS:.+]] = gpu.alloc () : memref<4xi32>
// CHECK: %[[POS:.+]] = gpu.alloc () : memref<4x256xi32>
// Detection: clear the counts, then a thread per micro-tile claims slots
// with an atomic add (4 x 256 micro-tiles: 8 blocks of 128 threads).
// CHECK: gpu.launch
// CHECK:   memref.store %{{.+}}, %[[COUNTS]]
// CHECK: gpu.launch blocks({{.+}}) in ({{.+}} = %c8{{.*}}, {{.+}}) threads({{.+}}) in ({{.+}} = %c128
// CHECK:   arith.cmpf une
// CHECK:   %[[SLOT:.+]] = memref.atomic_rmw addi %{{.+}}, %[[COUNTS]]
// CHECK:   %[[SLOT_INDEX:.+]] = arith.index_cast %[[SLOT]]
// CHECK:   memref.store %{{.+}}, %[[POS]][%{{.+}}, %[[SLOT_INDEX]]]
// The STile: a block per tile, the tiles in shared memory.
// CHECK: gpu.launch {{.+}} workgroup(%[[TA:.+]] : memref<32x32xf16, #gpu.address_space<workgroup>>, %[[TB:.+]] : memref<32x64xf16, #gpu.address_space<workgroup>>, %[[TC:.+]] : memref<32x64xf32, #gpu.address_space<workgroup>>)
// Blocks past their segment's count do nothing.
// CHECK:   %[[CNT:.+]] = memref.load %[[COUNTS]]
// CHECK:   scf.if
// The gathered load, spread over the threads, then a barrier.
// CHECK:     scf.for
// CHECK:       memref.load %[[POS]]
// CHECK:       memref.store %{{.+}}, %[[TA]]
// CHECK:     gpu.barrier
// CHECK:     memref.store %{{.+}}, %[[TB]]
// CHECK:     gpu.barrier
// The dense tile: each thread owns output elements and reduces over k.
// CHECK:     scf.for
// CHECK:       scf.for {{.+}} iter_args
// CHECK:         arith.extf
// CHECK:         arith.mulf
// CHECK:         arith.addf
// CHECK:     gpu.barrier
// The write back, combined atomically.
// CHECK:     scf.for
// CHECK:       memref.atomic_rmw addf
// CHECK:     gpu.barrier
// CHECK: gpu.dealloc %[[POS]]
// CHECK: gpu.dealloc %[[COUNTS]]
// THREADS-LABEL: func @matmul
// THREADS: threads({{.+}}) in ({{.+}} = %c256
func.func @matmul(%a: memref<128x256xf16>, %b: memref<256x64xf16>, %c: memref<128x64xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<128x256xf16>, memref<256x64xf16>) outs(%c : memref<128x64xf32>)
  return
}

// -----

// The output is cleared on the device before the gathered tiles are
// scattered back (each element once: no atomics).
// CHECK-LABEL: func @elementwise_mul
// CHECK: gpu.launch
// CHECK:   memref.store %{{.+}}, %{{.+}} : memref<128x64xf32>
// CHECK: gpu.launch
// CHECK-NOT: atomic_rmw
// CHECK: return
// THREADS-LABEL: func @elementwise_mul
func.func @elementwise_mul(%a: memref<128x64xf32>, %b: memref<128x64xf32>, %c: memref<128x64xf32>) {
  linalg.mul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x64]>}
      ins(%a, %b : memref<128x64xf32>, memref<128x64xf32>) outs(%c : memref<128x64xf32>)
  return
}
