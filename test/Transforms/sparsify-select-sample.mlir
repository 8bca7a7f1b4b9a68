// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../Inputs/latency-table.json" | FileCheck %s
// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../Inputs/latency-table.json sample-every=4" | FileCheck %s --check-prefix=EVERY4
// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../Inputs/latency-table.json sample-every=0" | FileCheck %s --check-prefix=FULL
// RUN: not pit-opt %s --pit-sparsify="sample-every=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// The choice reads a count of every 16th segment of each index (sample-every
// = 16, the default), taken denser where that would leave fewer than 8: the
// 8x1 index has 128 segments (8 counted), the 16x16 one 64 (every 8th: 8
// counted). The detections run after the choice, each where a variant that
// reads its index is chosen, and fill every segment.
// CHECK-LABEL: func @sampled
// CHECK: pit.count %{{.+}} micro_tile [8, 1] axis 1 every 16 into %[[FINE:[^ ]+]] : memref<1024x64xf32>, memref<8xi32>
// CHECK: pit.count %{{.+}} micro_tile [16, 16] axis 1 every 8 into %[[COARSE:[^ ]+]] : memref<1024x64xf32>, memref<8xi32>
// CHECK: %[[CHOICE:.+]] = pit.select %[[FINE]], %[[COARSE]] capacities [64, 4]
// CHECK: scf.if
// CHECK-NEXT: pit.detect %{{.+}} micro_tile [8, 1] axis 1 into {{.*}} : memref<1024x64xf32>, memref<128xi32>, memref<128x64xi32>
// CHECK: scf.if
// CHECK-NEXT: pit.detect %{{.+}} micro_tile [16, 16] axis 1 into {{.*}} : memref<1024x64xf32>, memref<64xi32>, memref<64x4xi32>
// CHECK: scf.index_switch %[[CHOICE]]
// EVERY4-LABEL: func @sampled
// EVERY4: pit.count %{{.+}} micro_tile [8, 1] axis 1 every 4 into %{{.+}} : memref<1024x64xf32>, memref<32xi32>
// EVERY4: pit.count %{{.+}} micro_tile [16, 16] axis 1 every 4 into %{{.+}} : memref<1024x64xf32>, memref<16xi32>
// FULL-LABEL: func @sampled
// FULL-NOT: pit.count
// FULL-NOT: scf.if
// FULL: pit.select
// NEGATIVE: pit-sparsify: sample-every must be 0 (no sample) or positive, got -1
func.func @sampled(%a: memref<1024x64xf32>, %b: memref<64x64xf32>, %c: memref<1024x64xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [8x1, 16x16]>}
      ins(%a, %b : memref<1024x64xf32>, memref<64x64xf32>) outs(%c : memref<1024x64xf32>)
  return
}
