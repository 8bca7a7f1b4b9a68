// The input is what pit-sparsify and pit-gpu-strategy give
// (its configs included): the conversion runs alone.
// RUN: pit-opt %s --convert-pit-to-gpu=chip=sm_90 --pit-gpu-coalesce-allocations | FileCheck %s

// Run-time selection on the GPU, made on the device: each index's count
// (every segment of A's 8 here: a sample needs 8 or more) is a memset and a
// kernel that adds to the counts, with no positions; a one-block kernel sums
// both counts in shared memory (by halves, 8 steps, no atomics) and writes
// the chosen index plus one into a device buffer (volatile: kernels may
// read it while it is written; the buffer is cleared at the call's start,
// so that none chosen yet reads as zero). Each detection runs after the
// choice, its kernel doing its work only where a variant that reads its
// index was chosen (the memset of its counts runs anyway, at the start of
// the call: only those variants read them, and a memset between two
// kernels would stop the second from being launched as a dependent of the
// first), and so does every variant's kernel, the default
// case where neither was chosen. The host never waits: no copy back, no
// switch. The 32x1 variant reads the compacted copy of A that its detection
// writes (freed after the variants); the dense fallback is a tensor-core
// kernel with 128x128 blocks, chunks of 64 of k in 3 stages (96 KiB of
// dynamic shared memory), and C's zero fill folded away. The device buffers
// of the call (both indices and counts, the choice, the compacted copy)
// are views of one allocation, made at its start, the buffers the call
// clears first, in the order of their memsets: those memsets (both
// indices' counts, both samples', the choice's, the second sample's moved
// up from between the two sampling kernels) are one memset of 1280 bytes,
// before any kernel.
// The choosing kernel also writes its choice into slot 0 of the runtime's
// record of choices (pitCudaChoiceRecord, asked at the entry; no store
// where the runtime had none), which pitCudaLastChoice reads back.
// CHECK: func.func private @pitCudaChoiceRecord() -> i64
// CHECK-LABEL: func @matmul
// CHECK-NEXT: %[[RECORD:.+]] = call @pitCudaChoiceRecord() : () -> i64
// CHECK: %[[ARENA:.+]] = gpu.alloc () : memref<140800xi8>
// CHECK: %[[FINE:.+]] = memref.view %[[ARENA]][%c0][] : memref<140800xi8> to memref<8xi32>
// CHECK: %[[COARSE:.+]] = memref.view %[[ARENA]][%c256][] : memref<140800xi8> to memref<8xi32>
// CHECK: %[[FINE_SAMPLE:.+]] = memref.view %[[ARENA]][%c512][] : memref<140800xi8> to memref<8xi32>
// CHECK: %[[COARSE_SAMPLE:.+]] = memref.view %[[ARENA]][%c768][] : memref<140800xi8> to memref<8xi32>
// CHECK: %[[CHOICE:.+]] = memref.view %[[ARENA]][%c1024][] : memref<140800xi8> to memref<1xi32>
// CHECK: %[[COPY:.+]] = memref.view %[[ARENA]][%c9728][] : memref<140800xi8> to memref<8x256x32xf16>
// CHECK-NOT: gpu.launch
// CHECK: %[[CLEARED:.+]] = memref.view %[[ARENA]][%c0_7][] : memref<140800xi8> to memref<320xi32>
// CHECK: gpu.memset %[[CLEARED]]
// CHECK-NOT: gpu.memset
// CHECK: gpu.launch
// CHECK-NOT: memref.store
// CHECK: memref.atomic_rmw addi %{{.+}}, %[[FINE_SAMPLE]]
// CHECK-NOT: memref.store
// CHECK: gpu.launch
// CHECK: memref.atomic_rmw addi %{{.+}}, %[[COARSE_SAMPLE]]
// CHECK-NOT: gpu.memcpy
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256{{.*}}, {{.*}} workgroup(%[[SUMS:.+]] : memref<2x256xi64, #gpu.address_space<workgroup>>)
// CHECK: memref.load %[[FINE_SAMPLE]]
// CHECK: memref.store {{.*}}, %[[SUMS]]
// CHECK: memref.load %[[COARSE_SAMPLE]]
// CHECK: memref.store {{.*}}, %[[SUMS]]
// CHECK-NOT: memref.atomic_rmw
// CHECK-COUNT-8: gpu.barrier
// CHECK-NOT: gpu.barrier
// Each choice's latency gets what the guarded kernels it leaves unused
// cost (they launch, and their blocks exit): 0.7 us a kernel and 0.0011 a
// block. Variant 0 leaves variant 1's detection and STile and the dense
// kernel (3 kernels, 14 blocks), variant 1 variant 0's (and dense: 3, 20),
// dense both variants' 4 kernels (26 blocks).
// CHECK: %[[OVERHEAD0:.+]] = arith.constant 2.1153{{[0-9]*}} : f64
// CHECK-NEXT: arith.addf %{{.+}}, %[[OVERHEAD0]] : f64
// CHECK: %[[OVERHEAD1:.+]] = arith.constant 2.122{{0*}}e+00 : f64
// CHECK-NEXT: arith.addf %{{.+}}, %[[OVERHEAD1]] : f64
// CHECK: %[[DENSE:.+]] = arith.constant 1002.8286{{[0-9]*}} : f64
// CHECK-NEXT: arith.cmpf olt, %[[DENSE]]
// CHECK: %[[CHOSEN:.+]] = arith.index_cast %{{.+}} : index to i32
// CHECK: %[[CHOICE_INDEX:.+]] = memref.extract_aligned_pointer_as_index %[[CHOICE]]
// CHECK: %[[CHOICE_BYTE:.+]] = arith.addi %[[CHOICE_INDEX]], %{{.+}} : index
// CHECK: %[[CHOICE_ADDRESS:.+]] = arith.index_cast %[[CHOICE_BYTE]] : index to i64
// CHECK: %[[STORED:.+]] = arith.addi %[[CHOSEN]], %c1_i32 : i32
// CHECK: llvm.inline_asm has_side_effects "st.volatile.b32 [$0], $1;", "l,r,~{memory}" %[[CHOICE_ADDRESS]], %[[STORED]]
// CHECK: %[[WRITES:.+]] = arith.cmpi ne, %[[RECORD]], %{{.+}} : i64
// CHECK: scf.if %[[WRITES]]
// CHECK: %[[SLOT:.+]] = arith.addi %[[RECORD]], %c0_i64{{.*}} : i64
// CHECK: %[[SLOT_POINTER:.+]] = llvm.inttoptr %[[SLOT]] : i64 to !llvm.ptr
// CHECK: llvm.store %[[CHOSEN]], %[[SLOT_POINTER]] : i32, !llvm.ptr
// CHECK-NOT: scf.index_switch
// CHECK-NOT: gpu.memset
// CHECK: gpu.launch
// CHECK: %[[DETECT_STORED:.+]] = memref.load %[[CHOICE]]
// CHECK: %[[DETECT_CHOSEN:.+]] = arith.subi %[[DETECT_STORED]], %c1_i32
// CHECK: %[[DETECT_VARIANT:.+]] = arith.index_cast %[[DETECT_CHOSEN]] : i32 to index
// CHECK: %[[DETECTS:.+]] = arith.cmpi eq, %[[DETECT_VARIANT]], %c0
// CHECK: scf.if %[[DETECTS]]
// CHECK: vector.store {{.*}}, %[[COPY]]
// CHECK-NOT: gpu.memset
// CHECK: gpu.launch
// CHECK: memref.load %[[CHOICE]]
// CHECK: gpu.launch {{.*}} workgroup({{.*}} : memref<2x32x32xf16, #gpu.address_space<workgroup>>, {{.*}} : memref<2x32x256xf16, #gpu.address_space<workgroup>>)
// CHECK: %[[STORED0:.+]] = memref.load %[[CHOICE]]
// CHECK: %[[CHOSEN0:.+]] = arith.subi %[[STORED0]], %c1_i32
// CHECK: %[[IS0:.+]] = arith.cmpi eq, %[[CHOSEN0]], %c0_i32
// CHECK: scf.if %[[IS0]]
// The kernels of the second variant and of dense come after another
// variant's: they read the choice before waiting for the kernels before
// them, and where it is written and leaves them out, end there.
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size %c73728_i32
// CHECK: %[[EARLY1:.+]] = llvm.inline_asm has_side_effects "ld.volatile.b32 $0, [$1];", "=r,l"
// CHECK: %[[NOT_YET1:.+]] = arith.cmpi ult, %[[EARLY1]], %c1_i32
// CHECK: %[[EARLY_CHOSEN1:.+]] = arith.subi %[[EARLY1]], %c1_i32
// CHECK: %[[EARLY_IS1:.+]] = arith.cmpi eq, %[[EARLY_CHOSEN1]], %c1_i32
// CHECK: %[[RUNS1:.+]] = arith.ori %[[NOT_YET1]], %[[EARLY_IS1]]
// CHECK: scf.if %[[RUNS1]] {
// CHECK-NEXT: llvm.inline_asm has_side_effects {pit.dependent_wait} "", "~{memory}"
// CHECK-NEXT: %[[CHOSEN1:.+]] = scf.if %[[NOT_YET1]] -> (i32) {
// CHECK: memref.load %[[CHOICE]]
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[EARLY_CHOSEN1]]
// CHECK: %[[IS1:.+]] = arith.cmpi eq, %[[CHOSEN1]], %c1_i32
// CHECK: scf.if %[[IS1]]
// CHECK: memref.view {{.*}} to memref<2x32x64xf16, #gpu.address_space<workgroup>>
// CHECK: memref.view {{.*}} to memref<2x64x256xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.memset
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size %c98304_i32
// CHECK: llvm.inline_asm has_side_effects "ld.volatile.b32 $0, [$1];", "=r,l"
// CHECK: {pit.dependent_wait}
// CHECK: %[[CHOSEN2:.+]] = scf.if
// CHECK: arith.cmpi ne, %[[CHOSEN2]], %c0_i32
// CHECK: arith.cmpi ne, %[[CHOSEN2]], %c1_i32
// CHECK: memref.view {{.*}} to memref<3x128x64xf16, #gpu.address_space<workgroup>>
// CHECK: memref.view {{.*}} to memref<3x64x128xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.dealloc
// CHECK: gpu.dealloc %[[ARENA]]
// CHECK-NEXT: return
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @matmul(%arg0: memref<256x256xf16>, %arg1: memref<256x256xf16>, %arg2: memref<256x256xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() : memref<8xi32>
    %alloc_0 = memref.alloc() : memref<8x256xi32>
    %alloc_1 = memref.alloc() : memref<8xi32>
    %alloc_2 = memref.alloc() : memref<8x4xi32>
    %alloc_3 = memref.alloc() : memref<8xi32>
    pit.count %arg0 micro_tile [32, 1] axis 1 every 1 into %alloc_3 : memref<256x256xf16>, memref<8xi32>
    %alloc_4 = memref.alloc() : memref<8xi32>
    pit.count %arg0 micro_tile [32, 64] axis 1 every 1 into %alloc_4 : memref<256x256xf16>, memref<8xi32>
    %0 = pit.select %alloc_3, %alloc_4 capacities [256, 4] coverage [0.000000e+00, 5.000000e-01, 1.000000e+00] latencies [array<f64: 1.000000e+02, 1.200000e+03, 2.400000e+03>, array<f64: 5.000000e+01, 6.000000e+02, 1.200000e+03>] dense 1.000000e+03 : memref<8xi32>, memref<8xi32>
    %c0 = arith.constant 0 : index
    %1 = arith.cmpi eq, %0, %c0 : index
    scf.if %1 {
      pit.detect %arg0 micro_tile [32, 1] axis 1 into %alloc, %alloc_0 : memref<256x256xf16>, memref<8xi32>, memref<8x256xi32>
    }
    %c1 = arith.constant 1 : index
    %2 = arith.cmpi eq, %0, %c1 : index
    scf.if %2 {
      pit.detect %arg0 micro_tile [32, 64] axis 1 into %alloc_1, %alloc_2 : memref<256x256xf16>, memref<8xi32>, memref<8x4xi32>
    }
    scf.index_switch %0 
    case 0 {
      linalg.fill ins(%cst : f32) outs(%arg2 : memref<256x256xf32>)
      pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc : memref<8xi32>) domain [256, 256, 256] tile [32, 64, 32] micro_tile [32, 1] pit_axis 2 sparse_map #map attributes {pit.mma_config = #pit.mma_config<block = [32, 256, 32], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 2>} {
        %3 = memref.load %alloc[%arg6] : memref<8xi32>
        %4 = arith.index_cast %3 : i32 to index
        %alloca = memref.alloca() : memref<32x32xf16>
        %alloca_5 = memref.alloca() : memref<32x64xf16>
        %alloca_6 = memref.alloca() : memref<32x64xf32>
        pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_0[%arg6] count %4 axis 1 micro 1 : memref<256x256xf16> to memref<32x32xf16>, memref<8x256xi32>
        pit.sread %arg1[%arg5, %arg4] into %alloca_5 gather %alloc_0[%arg6] count %4 axis 0 micro 1 : memref<256x256xf16> to memref<32x64xf16>, memref<8x256xi32>
        %cst_7 = arith.constant 0.000000e+00 : f32
        linalg.fill ins(%cst_7 : f32) outs(%alloca_6 : memref<32x64xf32>)
        linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_5 : memref<32x32xf16>, memref<32x64xf16>) outs(%alloca_6 : memref<32x64xf32>) {
        ^bb0(%in: f16, %in_8: f16, %out: f32):
          %5 = arith.extf %in : f16 to f32
          %6 = arith.extf %in_8 : f16 to f32
          %7 = arith.mulf %5, %6 : f32
          %8 = arith.addf %out, %7 : f32
          linalg.yield %8 : f32
        }
        pit.swrite %alloca_6 into %arg2[%arg3, %arg4] combine <add> : memref<32x64xf32> to memref<256x256xf32>
      }
      scf.yield
    }
    case 1 {
      linalg.fill ins(%cst : f32) outs(%arg2 : memref<256x256xf32>)
      pit.stile (%arg3, %arg4, %arg5) segment(%arg6) counts(%alloc_1 : memref<8xi32>) domain [256, 256, 256] tile [32, 64, 64] micro_tile [32, 64] pit_axis 2 sparse_map #map attributes {pit.mma_config = #pit.mma_config<block = [32, 256, 64], stages = 2, specialize = true, tensor_copies = true, cluster_blocks = 2>} {
        %3 = memref.load %alloc_1[%arg6] : memref<8xi32>
        %4 = arith.index_cast %3 : i32 to index
        %alloca = memref.alloca() : memref<32x64xf16>
        %alloca_5 = memref.alloca() : memref<64x64xf16>
        %alloca_6 = memref.alloca() : memref<32x64xf32>
        pit.sread %arg0[%arg3, %arg5] into %alloca gather %alloc_2[%arg6] count %4 axis 1 micro 64 : memref<256x256xf16> to memref<32x64xf16>, memref<8x4xi32>
        pit.sread %arg1[%arg5, %arg4] into %alloca_5 gather %alloc_2[%arg6] count %4 axis 0 micro 64 : memref<256x256xf16> to memref<64x64xf16>, memref<8x4xi32>
        %cst_7 = arith.constant 0.000000e+00 : f32
        linalg.fill ins(%cst_7 : f32) outs(%alloca_6 : memref<32x64xf32>)
        linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%alloca, %alloca_5 : memref<32x64xf16>, memref<64x64xf16>) outs(%alloca_6 : memref<32x64xf32>) {
        ^bb0(%in: f16, %in_8: f16, %out: f32):
          %5 = arith.extf %in : f16 to f32
          %6 = arith.extf %in_8 : f16 to f32
          %7 = arith.mulf %5, %6 : f32
          %8 = arith.addf %out, %7 : f32
          linalg.yield %8 : f32
        }
        pit.swrite %alloca_6 into %arg2[%arg3, %arg4] combine <add> : memref<32x64xf32> to memref<256x256xf32>
      }
      scf.yield
    }
    default {
      linalg.fill ins(%cst : f32) outs(%arg2 : memref<256x256xf32>)
      linalg.matmul {pit.mma_config = #pit.mma_config<block = [128, 128, 64], stages = 3, specialize = true, tensor_copies = true, cluster_blocks = 2>} ins(%arg0, %arg1 : memref<256x256xf16>, memref<256x256xf16>) outs(%arg2 : memref<256x256xf32>)
    }
    memref.dealloc %alloc_0 : memref<8x256xi32>
    memref.dealloc %alloc : memref<8xi32>
    memref.dealloc %alloc_3 : memref<8xi32>
    memref.dealloc %alloc_2 : memref<8x4xi32>
    memref.dealloc %alloc_1 : memref<8xi32>
    memref.dealloc %alloc_4 : memref<8xi32>
    return
  }
}
