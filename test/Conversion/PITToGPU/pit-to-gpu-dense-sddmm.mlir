// A dense SDDMM (no mark, or the dense fallback of run-time selection) runs
// over C's own 64 x 64 tiles: a wave of blocks (as many as fit on each
// multiprocessor) walks the tiles, taking k whole up to 128 (by chunks of
// 64 beyond): a tile's turn loads its C where its weights (loaded
// the turn before) are not all zero, then copies the next tile's A and B
// into the other stage and loads its weights, and only then waits for its
// own copies, multiplies, and goes through shared memory to read and write
// the mask and C 8 elements a thread.
// The input is what pit-sparsify gives (pit IR):
// each run starts at the strategy or the conversion.
// RUN: pit-opt %s -split-input-file --convert-pit-to-gpu=chip=sm_90a --pit-gpu-coalesce-allocations 2>/dev/null | FileCheck %s

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
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @sddmm(%arg0: memref<256x128xf16>, %arg1: memref<128x256xf16>, %arg2: memref<256x256xf16>, %arg3: memref<256x256xf16>) {
    linalg.generic {indexing_maps = [#map, #map1, #map2, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1, %arg2 : memref<256x128xf16>, memref<128x256xf16>, memref<256x256xf16>) outs(%arg3 : memref<256x256xf16>) {
    ^bb0(%in: f16, %in_0: f16, %in_1: f16, %out: f16):
      %0 = arith.mulf %in, %in_0 : f16
      %1 = arith.mulf %0, %in_1 : f16
      %2 = arith.addf %out, %1 : f16
      linalg.yield %2 : f16
    }
    return
  }
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
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @sddmm_long_k(%arg0: memref<256x256xf16>, %arg1: memref<256x256xf16>, %arg2: memref<256x256xf16>, %arg3: memref<256x256xf16>) {
    linalg.generic {indexing_maps = [#map, #map1, #map2, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1, %arg2 : memref<256x256xf16>, memref<256x256xf16>, memref<256x256xf16>) outs(%arg3 : memref<256x256xf16>) {
    ^bb0(%in: f16, %in_0: f16, %in_1: f16, %out: f16):
      %0 = arith.mulf %in, %in_0 : f16
      %1 = arith.mulf %0, %in_1 : f16
      %2 = arith.addf %out, %1 : f16
      linalg.yield %2 : f16
    }
    return
  }
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
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @sddmm_narrow(%arg0: memref<256x64xf16>, %arg1: memref<64x96xf16>, %arg2: memref<256x96xf16>, %arg3: memref<256x96xf32>) {
    linalg.generic {indexing_maps = [#map, #map1, #map2, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1, %arg2 : memref<256x64xf16>, memref<64x96xf16>, memref<256x96xf16>) outs(%arg3 : memref<256x96xf32>) {
    ^bb0(%in: f16, %in_0: f16, %in_1: f16, %out: f32):
      %0 = arith.extf %in : f16 to f32
      %1 = arith.extf %in_0 : f16 to f32
      %2 = arith.extf %in_1 : f16 to f32
      %3 = arith.mulf %0, %1 : f32
      %4 = arith.mulf %3, %2 : f32
      %5 = arith.addf %out, %4 : f32
      linalg.yield %5 : f32
    }
    return
  }
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
#map = affine_map<(d0, d1, d2) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
module {
  func.func @sddmm_selected(%arg0: memref<256x64xf16>, %arg1: memref<64x256xf16>, %arg2: memref<256x256xf16>, %arg3: memref<256x256xf16>) {
    %alloc = memref.alloc() : memref<8xi32>
    %alloc_0 = memref.alloc() : memref<8x256xi32>
    %alloc_1 = memref.alloc() : memref<8xi32>
    pit.count %arg2 micro_tile [32, 1] axis 1 every 1 into %alloc_1 : memref<256x256xf16>, memref<8xi32>
    %0 = pit.select %alloc_1 capacities [256] coverage [0.000000e+00, 5.000000e-01, 1.000000e+00] latencies [array<f64: 1.800000e+01, 1.000000e+02, 1.600000e+02>] dense 4.000000e+01 dense_latencies [array<f64: 3.600000e+01, 3.800000e+01, 4.000000e+01>] : memref<8xi32>
    %c0 = arith.constant 0 : index
    %1 = arith.cmpi eq, %0, %c0 : index
    scf.if %1 {
      pit.detect %arg2 micro_tile [32, 1] axis 1 into %alloc, %alloc_0 : memref<256x256xf16>, memref<8xi32>, memref<8x256xi32>
    }
    scf.index_switch %0 
    case 0 {
      pit.stile (%arg4, %arg5, %arg6) segment(%arg7) counts(%alloc : memref<8xi32>) domain [256, 256, 64] tile [32, 32, 64] micro_tile [32, 1] pit_axis 1 sparse_map #map attributes {keep_tile} {
        %2 = memref.load %alloc[%arg7] : memref<8xi32>
        %3 = arith.index_cast %2 : i32 to index
        %alloca = memref.alloca() : memref<32x64xf16>
        %alloca_2 = memref.alloca() : memref<64x32xf16>
        %alloca_3 = memref.alloca() : memref<32x32xf16>
        %alloca_4 = memref.alloca() : memref<32x32xf16>
        pit.sread %arg0[%arg4, %arg6] into %alloca : memref<256x64xf16> to memref<32x64xf16>
        pit.sread %arg1[%arg6, %arg5] into %alloca_2 gather %alloc_0[%arg7] count %3 axis 1 micro 1 : memref<64x256xf16> to memref<64x32xf16>, memref<8x256xi32>
        pit.sread %arg2[%arg4, %arg5] into %alloca_3 gather %alloc_0[%arg7] count %3 axis 1 micro 1 : memref<256x256xf16> to memref<32x32xf16>, memref<8x256xi32>
        %cst = arith.constant 0.000000e+00 : f16
        linalg.fill ins(%cst : f16) outs(%alloca_4 : memref<32x32xf16>)
        linalg.generic {indexing_maps = [#map1, #map2, #map, #map], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_2, %alloca_3 : memref<32x64xf16>, memref<64x32xf16>, memref<32x32xf16>) outs(%alloca_4 : memref<32x32xf16>) {
        ^bb0(%in: f16, %in_5: f16, %in_6: f16, %out: f16):
          %4 = arith.mulf %in, %in_5 : f16
          %5 = arith.mulf %4, %in_6 : f16
          %6 = arith.addf %out, %5 : f16
          linalg.yield %6 : f16
        }
        pit.swrite %alloca_4 into %arg3[%arg4, %arg5] scatter %alloc_0[%arg7] count %3 axis 1 micro 1 combine <add> : memref<32x32xf16> to memref<256x256xf16>, memref<8x256xi32>
      }
      scf.yield
    }
    default {
      linalg.generic {indexing_maps = [#map1, #map2, #map, #map], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1, %arg2 : memref<256x64xf16>, memref<64x256xf16>, memref<256x256xf16>) outs(%arg3 : memref<256x256xf16>) {
      ^bb0(%in: f16, %in_2: f16, %in_3: f16, %out: f16):
        %2 = arith.mulf %in, %in_2 : f16
        %3 = arith.mulf %2, %in_3 : f16
        %4 = arith.addf %out, %3 : f16
        linalg.yield %4 : f16
      }
    }
    memref.dealloc %alloc_0 : memref<8x256xi32>
    memref.dealloc %alloc : memref<8xi32>
    memref.dealloc %alloc_1 : memref<8xi32>
    return
  }
}
