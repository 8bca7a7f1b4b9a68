// RUN: pit-opt %s --pit-sparsify --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations | FileCheck %s

// An STile with more tiles than a tensor-core kernel launches blocks
// (4096: 256 segments of 16 rows x 16 tiles of 256 columns) takes them in
// turn from a counter: the call's one memset clears it with the index's
// counts (it is a view of the call's allocation too); the grid is as many
// blocks as the multiprocessors hold, by shared memory (two stages of
// 16x32 A and 32x256 B, 17 KiB each, and 1 KiB the driver keeps: 6 in
// 228 KiB) and threads (16);
// each block starts at its own tile, and thread 0 takes the next one from
// the counter (plus the grid) as the tile starts, hands it over in shared
// memory (two slots, in turn) after the tile, behind a barrier.
// CHECK-LABEL: func.func @many_tiles
// CHECK: %[[SMS:.+]] = call @pitCudaMultiprocessorCount() : () -> i64
// CHECK-NEXT: %[[PER_SM:.+]] = arith.index_cast %[[SMS]] : i64 to index
// CHECK: %[[ARENA:.+]] = gpu.alloc  () : memref<{{[0-9]+}}xi8>
// CHECK: %[[COUNTER:.+]] = memref.view %[[ARENA]][%{{.+}}][] : memref<{{[0-9]+}}xi8> to memref<1xi32>
// CHECK: gpu.memset
// CHECK: gpu.launch
// CHECK: %[[HELD:.+]] = arith.muli %[[PER_SM]], %c6 : index
// CHECK: %[[GRID:.+]] = arith.minui %c4096, %[[HELD]] : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{.+}} = %[[GRID]], {{.*}} workgroup({{.*}}, %[[SLOTS:.+]] : memref<2xi32, #gpu.address_space<workgroup>>)
// CHECK: scf.while (%[[TILE:.+]] = %{{.+}}, %[[SLOT:.+]] = %c0{{.*}}) : (index, index) -> (index, index)
// CHECK: arith.cmpi ult, %[[TILE]], %c4096
// CHECK: } do {
// CHECK: %[[TAKEN:.+]] = scf.if
// CHECK: memref.atomic_rmw addi %{{.+}}, %[[COUNTER]][%{{.+}}] : (i32, memref<1xi32>) -> i32
// CHECK: mma.sync
// CHECK: arith.addi %[[TAKEN]], %{{.+}} : i32
// CHECK: memref.store %{{.+}}, %[[SLOTS]][%{{.+}}] : memref<2xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.load %[[SLOTS]][%{{.+}}] : memref<2xi32, #gpu.address_space<workgroup>>
// CHECK: scf.yield
func.func @many_tiles(%a: memref<4096x256xf16>, %b: memref<256x4096xf16>, %c: memref<4096x4096xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [16x16]>}
      ins(%a, %b : memref<4096x256xf16>, memref<256x4096xf16>) outs(%c : memref<4096x4096xf32>)
  return
}

// An STile whose tiles are no more than the blocks it may launch (2048) keeps
// a block a tile, launched by the hardware's scheduler as blocks finish: no
// counter. The tiles go n tile by n tile: block b takes segment b mod 128
// and the columns from (b / 128) x 256, so that the blocks running at once
// share B's columns.
// CHECK-LABEL: func.func @block_a_tile
// CHECK-NOT: scf.while
// CHECK: gpu.launch blocks(%[[BLOCK:[^,]+]], {{.*}}) in (%{{.+}} = %c2048
// CHECK: %[[SEGMENT:.+]] = arith.remui %[[BLOCK]], %c128{{.*}} : index
// CHECK: %[[NTILE:.+]] = arith.divui %[[BLOCK]], %c128{{.*}} : index
// CHECK: arith.muli %[[NTILE]], %c256 : index
// CHECK: memref.load %{{.+}}[%[[SEGMENT]]] : memref<128xi32>
// CHECK-NOT: memref<2xi32, #gpu.address_space<workgroup>>
// CHECK: return
func.func @block_a_tile(%a: memref<2048x256xf16>, %b: memref<256x4096xf16>, %c: memref<2048x4096xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [16x16]>}
      ins(%a, %b : memref<2048x256xf16>, memref<256x4096xf16>) outs(%c : memref<2048x4096xf32>)
  return
}
