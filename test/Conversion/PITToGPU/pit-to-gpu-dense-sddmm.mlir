// A dense SDDMM (no mark, or the dense fallback of run-time selection) runs
// over C's own 64 x 64 tiles: a wave of blocks (as many as fit on each
// multiprocessor) walks the tiles, taking k whole up to 128 (by chunks of
// 64 beyond): a tile's turn loads its C where its weights (loaded
// the turn before) are not all zero, then copies the next tile's A and B
// into the other stage and loads its weights, and only then waits for its
// own copies, multiplies, and goes through shared memory to read and write
// the mask and C 8 elements a thread.
// RUN: pit-opt %s -split-input-file --pit-sparsify="latency-table=%S/../../Inputs/latency-table.json" --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations 2>/dev/null | FileCheck %s
// RUN: pit-opt %s -split-input-file --pit-sparsify="latency-table=%S/../../Inputs/latency-table.json" 2>/dev/null | FileCheck %s --check-prefix=SELECT

// Two blocks a multiprocessor: 2 stages of 32 KiB and the sums' 18 KiB.
// CHECK-LABEL: func @sddmm
// CHECK: %[[SMS:.+]] = call @pitCudaMultiprocessorCount()
// CHECK: %[[SMS_INDEX:.+]] = arith.index_cast %[[SMS]]
// CHECK: %[[BLOCKS:.+]] = arith.muli %[[SMS_INDEX]], %c2
// CHECK: %[[GRID:.+]] = arith.minui %c16, %[[BLOCKS]]
// CHECK: gpu.launch blocks(%[[BLOCK:.+]], %{{.+}}, %{{.+}}) in (%[[GRID_SIZE:.+]] = %[[GRID]], {{.+}}) threads({{.+}}) in ({{.+}} = %c128{{.*}}, {{.+}}) dynamic_shared_memory_size %c83968_i32
// CHECK:   %[[SA:.+]] = memref.view {{.+}} to memref<2x64x128xf16, #gpu.address_space<workgroup>>
// CHECK:   %[[SUMS:.+]] = memref.view {{.+}} to memref<64x72xf32, #gpu.address_space<workgroup>>
// CHECK:   nvgpu.device_async_copy %[[A:arg[0-9]+]]
// CHECK:   nvvm.cp.async.commit.group
// CHECK:   %[[W0:.+]] = vector.load %[[MASK:arg[0-9]+]][{{.+}}] {alignment = 16 : i64} : memref<256x256xf16>, vector<8xf16>
// CHECK-COUNT-3: vector.load %[[MASK]]
// CHECK:   scf.for %[[TILE:.+]] = %[[BLOCK]] to %c16{{.*}} step %[[GRID_SIZE]] iter_args(%[[W:.+]] = %[[W0]], %{{.+}}, %{{.+}}, %{{.+}}, %[[STAGE:.+]] = %c0{{.*}}) -> (vector<8xf16>, vector<8xf16>, vector<8xf16>, vector<8xf16>, index) {
// CHECK:     %[[NONZERO:.+]] = arith.cmpf une, %[[W]], %{{.+}} : vector<8xf16>
// CHECK:     %[[LIVE:.+]] = vector.reduction <or>, %[[NONZERO]] : vector<8xi1> into i1
// CHECK:     %[[ROW:.+]] = arith.select %[[LIVE]], %{{.+}}, %[[M0:.+]] : index
// CHECK:     %[[COLUMN:.+]] = arith.select %[[LIVE]], %{{.+}}, %[[N0:.+]] : index
// CHECK:     %[[OLD:.+]] = vector.load %[[C:arg[0-9]+]][%[[ROW]], %[[COLUMN]]] {alignment = 16 : i64} : memref<256x256xf16>, vector<8xf16>
// CHECK-COUNT-3: vector.load %[[C]]
// CHECK:     %[[AFTER:.+]] = arith.addi %[[TILE]], %[[GRID_SIZE]]
// CHECK:     %[[IN:.+]] = arith.cmpi ult, %[[AFTER]], %c16
// CHECK:     %[[NEXT:.+]] = arith.select %[[IN]], %[[AFTER]], %[[TILE]]
// CHECK:     %[[NEXT_STAGE:.+]] = arith.subi %c1{{.*}}, %[[STAGE]]
// CHECK:     nvgpu.device_async_copy %[[A]][{{.+}}], %[[SA]][%[[NEXT_STAGE]], {{.+}}]
// CHECK:     nvvm.cp.async.commit.group
// CHECK:     %[[NEXT_W:.+]] = vector.load %[[MASK]]
// CHECK-COUNT-3: vector.load %[[MASK]]
// CHECK:     nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK:     nvgpu.ldmatrix %[[SA]][%[[STAGE]],
// CHECK:     nvgpu.mma.sync
// CHECK:     vector.store %{{.+}}, %[[SUMS]][{{.+}}] {alignment = 8 : i64} : memref<64x72xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK:     gpu.barrier
// CHECK:     %[[WIDE_WEIGHTS:.+]] = arith.extf %[[W]] : vector<8xf16> to vector<8xf32>
// CHECK:     %[[RUN_SUMS:.+]] = vector.load %[[SUMS]][{{.+}}] {alignment = 16 : i64} : memref<64x72xf32, #gpu.address_space<workgroup>>, vector<8xf32>
// CHECK:     %[[SCALED:.+]] = arith.mulf %[[RUN_SUMS]], %[[WIDE_WEIGHTS]] : vector<8xf32>
// CHECK:     %[[WIDE:.+]] = arith.extf %[[OLD]] : vector<8xf16> to vector<8xf32>
// CHECK:     %[[SUM:.+]] = arith.addf %[[WIDE]], %[[SCALED]] : vector<8xf32>
// CHECK:     %[[ROUNDED:.+]] = arith.truncf %[[SUM]] : vector<8xf32> to vector<8xf16>
// CHECK:     scf.if %[[LIVE]] {
// CHECK:       vector.store %[[ROUNDED]], %[[C]][{{.+}}] {alignment = 16 : i64} : memref<256x256xf16>, vector<8xf16>
// CHECK:     scf.yield %[[NEXT_W]], %{{.+}}, %{{.+}}, %{{.+}}, %[[NEXT_STAGE]]
// CHECK:   nvvm.cp.async.wait.group 0
func.func @sddmm(%a: memref<256x128xf16>, %b: memref<128x256xf16>, %mask: memref<256x256xf16>, %c: memref<256x256xf16>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b, %mask : memref<256x128xf16>, memref<128x256xf16>, memref<256x256xf16>)
      outs(%c : memref<256x256xf16>) {
  ^bb0(%x: f16, %y: f16, %w: f16, %acc: f16):
    %p = arith.mulf %x, %y : f16
    %q = arith.mulf %p, %w : f16
    %s = arith.addf %acc, %q : f16
    linalg.yield %s : f16
  }
  return
}

// -----

// k = 256: four chunks of 64 a tile (3 blocks a multiprocessor), each
// waited for and multiplied in turn while the next one comes in.
// CHECK-LABEL: func @sddmm_long_k
// CHECK: gpu.launch {{.+}} dynamic_shared_memory_size %c51200_i32
// CHECK:   scf.for
// CHECK-COUNT-4: nvvm.cp.async.wait.group 1
// CHECK-NOT: nvvm.cp.async.wait.group 1
// CHECK:     scf.yield
// CHECK:   nvvm.cp.async.wait.group 0
func.func @sddmm_long_k(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %mask: memref<256x256xf16>, %c: memref<256x256xf16>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b, %mask : memref<256x256xf16>, memref<256x256xf16>, memref<256x256xf16>)
      outs(%c : memref<256x256xf16>) {
  ^bb0(%x: f16, %y: f16, %w: f16, %acc: f16):
    %p = arith.mulf %x, %y : f16
    %q = arith.mulf %p, %w : f16
    %s = arith.addf %acc, %q : f16
    linalg.yield %s : f16
  }
  return
}

// -----

// n does not divide the block tile (64 columns): the SDDMM keeps the
// element-by-element lowering, which takes any extents.
// CHECK-LABEL: func @sddmm_narrow
// CHECK-NOT: nvgpu.mma.sync
// CHECK: gpu.launch
// CHECK:   scf.for
// CHECK:     memref.load %{{.+}} : memref<256x96xf16>
// CHECK-NOT: nvgpu.mma.sync
// CHECK: return
func.func @sddmm_narrow(%a: memref<256x64xf16>, %b: memref<64x96xf16>, %mask: memref<256x96xf16>, %c: memref<256x96xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b, %mask : memref<256x64xf16>, memref<64x96xf16>, memref<256x96xf16>)
      outs(%c : memref<256x96xf32>) {
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

// -----

// Run-time selection between the SDDMM's STile and dense (the lit tests'
// table, which has dense's latency on the STile's patterns too): the dense
// fallback walks the tiles (two stages of 64 x 64 x 64:
// three blocks a multiprocessor), the STile runs its own kernel, each
// guarded by the choice.
// CHECK-LABEL: func @sddmm_selected
// CHECK: gpu.launch {{.+}} workgroup(%{{.+}} : memref<1x32x64xf16, #gpu.address_space<workgroup>>, %{{.+}} : memref<1x64x32xf16, #gpu.address_space<workgroup>>)
// CHECK: arith.muli %{{.+}}, %c3
// CHECK: gpu.launch {{.+}} dynamic_shared_memory_size
// CHECK:   memref.view {{.+}} to memref<2x64x64xf16, #gpu.address_space<workgroup>>
// CHECK:   scf.for
// CHECK:     nvgpu.mma.sync
// CHECK:     vector.store %{{.+}} : memref<256x256xf16>, vector<8xf16>
// SELECT-LABEL: func @sddmm_selected
// SELECT: pit.select {{.+}} dense 4.000000e+01 dense_latencies [array<f64: 3.600000e+01, 3.800000e+01, 4.000000e+01>]
// SELECT: scf.index_switch
// SELECT: pit.stile
// SELECT: default {
// SELECT-NEXT: linalg.generic
func.func @sddmm_selected(%a: memref<256x64xf16>, %b: memref<64x256xf16>, %mask: memref<256x256xf16>, %c: memref<256x256xf16>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b, %mask : memref<256x64xf16>, memref<64x256xf16>, memref<256x256xf16>)
      outs(%c : memref<256x256xf16>)
      attrs = {pit.sparse = #pit.sparse<operand = 2, micro_tiles = [32x1]>} {
  ^bb0(%x: f16, %y: f16, %w: f16, %acc: f16):
    %p = arith.mulf %x, %y : f16
    %q = arith.mulf %p, %w : f16
    %s = arith.addf %acc, %q : f16
    linalg.yield %s : f16
  }
  return
}
