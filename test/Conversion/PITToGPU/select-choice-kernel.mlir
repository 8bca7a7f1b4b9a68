// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../../Inputs/latency-table.json sample-every=0" --convert-pit-to-gpu="chip=sm_90" | FileCheck %s

// A choice from more than 64 counts (here the full detections', 128 + 64,
// sample-every=0) is one kernel's: a block of 256 threads sums each index's
// counts in shared memory (by halves, 8 steps, no atomics) and writes the
// chosen index into a device buffer, which every guarded kernel reads
// instead of summing the counts itself.
// CHECK-LABEL: func @full_counts
// CHECK: %[[FINE:.+]] = memref.view %{{.+}} to memref<128xi32>
// CHECK: %[[COARSE:.+]] = memref.view %{{.+}} to memref<64xi32>
// CHECK: %[[CHOICE:.+]] = memref.view %{{.+}} to memref<1xi32>
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256{{.*}}, {{.*}} workgroup(%[[SUMS:.+]] : memref<2x256xi64, #gpu.address_space<workgroup>>)
// CHECK: memref.load %[[FINE]]
// CHECK: memref.store {{.*}}, %[[SUMS]]
// CHECK: memref.load %[[COARSE]]
// CHECK: memref.store {{.*}}, %[[SUMS]]
// CHECK-NOT: memref.atomic_rmw
// CHECK-COUNT-8: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: memref.store {{.*}}, %[[CHOICE]]
// CHECK: gpu.launch
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0 : index
// CHECK-NEXT: memref.load %[[CHOICE]][%[[ZERO]]]
// CHECK-NOT: memref.load %[[FINE]][%c1
// CHECK: gpu.launch
// CHECK-NEXT: %[[ZERO2:.+]] = arith.constant 0 : index
// CHECK-NEXT: memref.load %[[CHOICE]][%[[ZERO2]]]
func.func @full_counts(%a: memref<1024x64xf32>, %b: memref<64x64xf32>, %c: memref<1024x64xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [8x1, 16x16]>}
      ins(%a, %b : memref<1024x64xf32>, memref<64x64xf32>) outs(%c : memref<1024x64xf32>)
  return
}
