// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../Inputs/latency-table.json" -verify-diagnostics | FileCheck %s
// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../Inputs/latency-table.json variant=1" --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations 2>/dev/null | FileCheck %s --check-prefix=GPU
// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../Inputs/latency-table.json variant=3" --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations 2>/dev/null | FileCheck %s --check-prefix=REPLICAS
// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../Inputs/latency-table.json variant=2" --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations 2>&1 >/dev/null | FileCheck %s --check-prefix=BIG
// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../Inputs/latency-table.json variant=1" --convert-pit-to-gpu="chip=sm_80" --pit-gpu-coalesce-allocations 2>&1 >/dev/null | FileCheck %s --check-prefix=SMALL
// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../Inputs/latency-table.json variant=4" --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations 2>/dev/null | FileCheck %s --check-prefix=GROUPED

// A variant of 1x64 gathered along m may name the panel of C's rows that a
// block owns (pit.stile `panel`) instead of adding its rows into C with
// atomics. Both kinds share the detection. A panel that does not split the
// rows is left out with the reason.
// CHECK-LABEL: func @rows
// CHECK: pit.detect %{{.+}} micro_tile [1, 64] axis 0 into %[[INDEX:[^,]+]],
// CHECK-NOT: pit.detect
// CHECK: scf.index_switch
// CHECK: case 0 {
// CHECK: pit.stile {{.*}} tile [32, 64, 64] micro_tile [1, 64] pit_axis 0 {{.*}} attributes {keep_tile} {
// CHECK: case 1 {
// CHECK: pit.stile {{.*}} tile [64, 128, 64] micro_tile [1, 64] pit_axis 0 {{.*}} attributes {keep_tile, panel = 256 : i64} {
// CHECK: default {
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.matmul

// Forced to it, the variant runs alone (no switch). The panel's kernels: the
// index is sorted by panel (counts of 4 segments x 2 panels, claimed with
// atomic adds; cleared with the detection's counts by the call's one memset,
// before any kernel, as all the call's buffers are views of one allocation),
// then a block for each panel of 256 rows and 128 columns keeps the panel in
// shared memory (f32, the columns of 8-column blocks interleaved in pairs, no
// padding) next to 4 stages of the 64x64 A tile and the 64x128 B tile, the
// list of units (4 segments x 4 units of 64 rows), each segment's rows, each
// stage's rows, and each stage's two mbarriers. Two warpgroups multiply each
// unit, 64 columns each; the four warps of a third copy every fourth unit in
// (the copying warps divide the stages, so a stage always takes the units of
// one warp). The copies of a stage complete its `full` mbarrier (cp.async
// arrivals, then the rows); the multiplying warpgroups (one replica) wait for
// it, add the unit before into the panel in turn (a named barrier each) while
// the unit multiplies, and only then free the stage (its `empty` mbarrier),
// which the copying warp waits for. The clearing of C folds away: the panel
// starts at zeros and is stored once, with no atomics, in 16-byte pieces. A
// thread adds four columns of a row into the panel in one access.
// GPU-LABEL: func.func @rows
// GPU-NOT: scf.index_switch
// GPU-NOT: gpu.memset {{.+}} : memref<512x128xf32>
// GPU: %[[ARENA:.+]] = gpu.alloc  () : memref<16896xi8>
// GPU: %[[PANEL_COUNTS:.+]] = memref.view %[[ARENA]][%{{.+}}][] : memref<16896xi8> to memref<4x2xi32>
// GPU: memref.view %[[ARENA]][%{{.+}}][] : memref<16896xi8> to memref<4x2x256xi32>
// GPU: %[[CLEARED:.+]] = memref.view %[[ARENA]][%{{.+}}][] : memref<16896xi8> to memref<128xi32>
// GPU: gpu.memset  %[[CLEARED]], %{{.+}} : memref<128xi32>, i32
// GPU-NOT: gpu.memset
// GPU: gpu.launch
// GPU: gpu.launch
// GPU: memref.atomic_rmw addi %{{.+}}, %[[PANEL_COUNTS]][%{{.+}}, %{{.+}}] : (i32, memref<4x2xi32>) -> i32
// GPU: gpu.launch blocks({{.+}}) in ({{.+}} = %c2{{.*}}, {{.+}}) threads({{.+}}) in ({{.+}} = %c384{{.*}}, {{.+}}) dynamic_shared_memory_size
// GPU: memref.view {{.+}} to memref<4x64x64xf16, #gpu.address_space<workgroup>>
// GPU: memref.view {{.+}} to memref<4x2x64x64xf16, #gpu.address_space<workgroup>>
// GPU: memref.view {{.+}} to memref<256x128xf32, #gpu.address_space<workgroup>>
// GPU: memref.view {{.+}} to memref<16xi32, #gpu.address_space<workgroup>>
// GPU: memref.view {{.+}} to memref<4xi32, #gpu.address_space<workgroup>>
// GPU: memref.view {{.+}} to memref<4x64xi32, #gpu.address_space<workgroup>>
// GPU: memref.view {{.+}} to memref<8xi64, #gpu.address_space<workgroup>>
// GPU: gpu.shuffle  up
// GPU-COUNT-8: nvvm.mbarrier.init
// GPU: gpu.barrier
// GPU: nvvm.mbarrier.try_wait.parity
// GPU: nvgpu.device_async_copy
// GPU: nvvm.cp.async.mbarrier.arrive {{.+}} {noinc = true}
// GPU: nvvm.mbarrier.arrive
// GPU: } else {
// GPU: nvvm.mbarrier.try_wait.parity
// GPU: nvvm.wgmma.mma_async {{.+}} <m = 64, n = 64, k = 16>
// GPU: nvvm.wgmma.wait.group.sync.aligned 1
// GPU-NOT: nvvm.mbarrier.arrive
// GPU: nvvm.barrier id = {{.+}} number_of_threads = {{.+}}
// GPU-NOT: atomic_rmw addf
// GPU: vector.load {{.+}} : memref<256x128xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// GPU: vector.store {{.+}} : memref<256x128xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// GPU: nvvm.wgmma.wait.group.sync.aligned 0
// GPU: nvvm.mbarrier.arrive
// GPU-NOT: atomic_rmw addf
// GPU: nvvm.barrier id = {{.+}} number_of_threads = {{.+}}
// GPU: gpu.barrier
// GPU-COUNT-8: nvvm.mbarrier.inval
// GPU: vector.store %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}] {alignment = 16 : i64} : memref<512x128xf32>, vector<4xf32>
// GPU: gpu.dealloc  %[[ARENA]]

// With group_rows (variant 4: panels of 128 rows), the rows of A are first
// ordered by the segments they hold: a kernel for each slot of the index
// counts each row's segments (cleared by the call's one memset, with the
// detection's and the sort's counts) and records one; one block of 1024
// threads counts the rows of each key (4 segments + several + none) in shared
// memory, scans them in one warp and claims each row its slot, writing the
// order and each row's slot: the rows with several segments first (key 0),
// then those with one (key 1 + its segment), then the empty ones (key 5).
// The index is then sorted into panels by slot (4 panels of 128), and each
// panel block copies its part of the order into shared memory, where its
// stores find C's rows. The panels vary slowest over the blocks (block / 2
// column tiles): the long panels of rows with several segments start first.
// GROUPED-LABEL: func.func @rows
// GROUPED: %[[ARENA:.+]] = gpu.alloc  () : memref<25088xi8>
// GROUPED: %[[SEGMENTS:.+]] = memref.view %[[ARENA]][%{{.+}}][] : memref<25088xi8> to memref<512xi32>
// GROUPED: memref.view %[[ARENA]][%{{.+}}][] : memref<25088xi8> to memref<512xi32>
// GROUPED: %[[ORDER:.+]] = memref.view %[[ARENA]][%{{.+}}][] : memref<25088xi8> to memref<512xi32>
// GROUPED: %[[SLOTS:.+]] = memref.view %[[ARENA]][%{{.+}}][] : memref<25088xi8> to memref<512xi32>
// GROUPED: %[[CLEARED:.+]] = memref.view %[[ARENA]][%{{.+}}][] : memref<25088xi8> to memref<640xi32>
// GROUPED: gpu.memset  %[[CLEARED]], %{{.+}} : memref<640xi32>, i32
// GROUPED-NOT: gpu.memset
// GROUPED: gpu.launch
// GROUPED: gpu.launch
// GROUPED: memref.atomic_rmw addi %{{.+}}, %[[SEGMENTS]][%{{.+}}] : (i32, memref<512xi32>) -> i32
// GROUPED: gpu.launch blocks({{.+}}) in ({{.+}} = %c1{{.*}}, {{.+}}) threads({{.+}}) in ({{.+}} = %c1024, {{.+}}) workgroup(%[[KEYS:.+]] : memref<6xi32, #gpu.address_space<workgroup>>)
// GROUPED: %[[NONE:.+]] = arith.cmpi eq, %[[COUNT:.+]], %c0_i32
// GROUPED-NEXT: %[[NOT_ONE:.+]] = arith.select %[[NONE]], %c5_i32, %c0_i32
// GROUPED: %[[AFTER_SEVERAL:.+]] = arith.addi %[[SEGMENT:.+]], %c1_i32
// GROUPED: %[[ONE:.+]] = arith.cmpi eq, %[[COUNT]], %c1_i32
// GROUPED-NEXT: arith.select %[[ONE]], %[[AFTER_SEVERAL]], %[[NOT_ONE]]
// GROUPED: memref.atomic_rmw addi %{{.+}}, %[[KEYS]][%{{.+}}]
// GROUPED: gpu.shuffle  up
// GROUPED: memref.atomic_rmw addi %{{.+}}, %[[KEYS]][%{{.+}}]
// GROUPED: memref.store %{{.+}}, %[[ORDER]][%{{.+}}] : memref<512xi32>
// GROUPED: memref.store %{{.+}}, %[[SLOTS]][%{{.+}}] : memref<512xi32>
// GROUPED: gpu.launch
// GROUPED: memref.load %[[SLOTS]][%{{.+}}] : memref<512xi32>
// GROUPED: gpu.launch blocks(%[[BLOCK:[^,]+]], {{.+}}) in ({{.+}} = %c8{{.*}}, {{.+}}) threads({{.+}}) in ({{.+}} = %c384, {{.+}}) dynamic_shared_memory_size
// GROUPED: %[[PANEL_ORDER:.+]] = memref.view {{.+}} to memref<128xi32, #gpu.address_space<workgroup>>
// GROUPED: %[[PANEL:.+]] = arith.divui %[[BLOCK]], %c2 : index
// GROUPED: %[[COLUMN_TILE:.+]] = arith.remui %[[BLOCK]], %c2{{.*}} : index
// GROUPED: arith.muli %[[PANEL]], %c128
// GROUPED: memref.load %[[ORDER]][%{{.+}}] : memref<512xi32>
// GROUPED: memref.store %{{.+}}, %[[PANEL_ORDER]][%{{.+}}] : memref<128xi32, #gpu.address_space<workgroup>>
// GROUPED: memref.load %[[PANEL_ORDER]]
// GROUPED: vector.store %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}] {alignment = 16 : i64} : memref<512x128xf32>, vector<4xf32>
// GROUPED: gpu.dealloc  %[[ARENA]]

// With 64 columns (variant 3; the table's 4th, since its 3rd does not fit), the block's 4 panels of 256 rows keep 4
// stages, and two replicas of the multiplying warpgroup take the units in
// turn (units r, r + 2, ...): the second hands the first its first turn;
// each frees a unit's stage once it is multiplied, then takes its turn,
// adds, and hands the turn over; the replica after the last unit's takes
// the last turn.
// REPLICAS: gpu.launch blocks({{.+}}) in ({{.+}} = %c4{{.*}}, {{.+}}) threads({{.+}}) in ({{.+}} = %c384{{.*}}, {{.+}}) dynamic_shared_memory_size
// REPLICAS: memref.view {{.+}} to memref<4x1x64x64xf16, #gpu.address_space<workgroup>>
// REPLICAS: memref.view {{.+}} to memref<256x64xf32, #gpu.address_space<workgroup>>
// REPLICAS: } else {
// REPLICAS: %[[LAST:.+]] = arith.cmpi eq, %[[REPLICA:[^,]+]], %c1
// REPLICAS-NEXT: scf.if %[[LAST]] {
// REPLICAS: nvvm.barrier.arrive
// REPLICAS: scf.for %{{.+}} = %[[REPLICA]] to %{{.+}} step %c2
// REPLICAS: nvvm.wgmma.mma_async
// REPLICAS-NOT: nvvm.barrier
// REPLICAS: nvvm.mbarrier.arrive
// REPLICAS: nvvm.barrier id
// REPLICAS: nvvm.barrier.arrive
// REPLICAS: nvvm.barrier id
// REPLICAS-NOT: nvvm.barrier
// REPLICAS: gpu.barrier

// Where the panel does not fit in a block's shared memory, or the chip
// has no wgmma, the tile keeps its atomics, and says so.
// BIG: remark: panel of 512 rows left out (it needs 313008 bytes of shared memory, the chip allows 232448): the tile adds into C with atomics
// SMALL: remark: panel of 256 rows left out (it needs wgmma (sm_90a) on a tile of whole 64-column blocks): the tile adds into C with atomics
func.func @rows(%a: memref<512x256xf16>, %b: memref<256x128xf16>, %c: memref<512x128xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<512x128xf32>)
  // expected-remark @+5 {{pit-sparsify: variant 2 of the latency table left out: panel 96 is not whole micro-tiles of 1 that divide the extent 512 of loop 0}}
  // expected-remark @+4 {{pit-sparsify: variant (1x64 along loop 0, tile 64x64x64, panel 128, rows grouped) left out: never more than 5% and 3 us cheaper than dense and the variants kept}}
  // expected-remark @+3 {{pit-sparsify: variant (1x64 along loop 0, tile 64x128x64, panel 512) left out: never more than 5% and 3 us cheaper than dense and the variants kept}}
  // expected-remark @+2 {{pit-sparsify: variant (1x64 along loop 0, tile 64x64x64, panel 256) left out: never more than 5% and 3 us cheaper than dense and the variants kept}}
  // expected-remark @+1 {{pit-sparsify: chooses at run time among variant 0 (1x64 along loop 0, tile 32x64x64), variant 1 (1x64 along loop 0, tile 64x128x64, panel 256) and dense (2)}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x64]>}
      ins(%a, %b : memref<512x256xf16>, memref<256x128xf16>) outs(%c : memref<512x128xf32>)
  return
}
