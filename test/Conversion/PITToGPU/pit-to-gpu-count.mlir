// RUN: pit-opt %s -split-input-file --convert-pit-to-gpu --pit-gpu-coalesce-allocations --canonicalize | FileCheck %s

// pit.count on the GPU: the detection's scan over a sample of the segments,
// counts only.

// A count of every 4th band (segment) of 32x1 micro-tiles: threads scan the
// sampled bands only (2 of 8), each band column split among 4 lanes of 8
// rows (a sample has few bands: so it reaches more multiprocessors), which
// OR their flags with xor shuffles; a warp adds its band's count with one
// atomic at the sampled index (band / 4), and no position is recorded.
// CHECK-LABEL: func @count_bands
// CHECK: gpu.memset
// CHECK: gpu.launch blocks({{.+}}) in ({{.+}} = %c2{{.*}}, {{.+}}) threads({{.+}}) in ({{.+}} = %c128
// CHECK: %[[COLUMN:.+]] = arith.divui %{{.+}}, %c4 : index
// CHECK: %[[SAMPLED:.+]] = arith.divui %[[COLUMN]], %c32 : index
// CHECK: %[[BAND:.+]] = arith.muli %[[SAMPLED]], %c4 : index
// CHECK-COUNT-8: ld.global.cs
// CHECK-NOT: ld.global.cs
// CHECK: gpu.shuffle  xor %{{.+}}, %c1_i32
// CHECK: gpu.shuffle  xor %{{.+}}, %c2_i32
// CHECK-NOT: memref.store
// CHECK: %[[SLOT:.+]] = arith.divui %[[BAND]], %c4
// CHECK: memref.atomic_rmw addi %{{.+}}, %{{.+}}[%[[SLOT]]]
// CHECK-NOT: memref.store
// CHECK: return
func.func @count_bands(%a: memref<256x256xf16>, %counts: memref<2xi32>) {
  pit.count %a micro_tile [32, 1] axis 1 every 4 into %counts : memref<256x256xf16>, memref<2xi32>
  return
}

// -----

// Every 4th band of 64x1 micro-tiles: a band column split among 8 lanes of
// 8 rows each (as the detection that writes the compacted copy splits it),
// their flags ORed with xor shuffles over the 8; no loop over the rows.
// CHECK-LABEL: func @count_tall_bands
// CHECK: gpu.launch
// CHECK-NOT: scf.for
// CHECK-COUNT-8: ld.global.cs
// CHECK-NOT: ld.global.cs
// CHECK: gpu.shuffle  xor %{{.+}}, %c1_i32
// CHECK: gpu.shuffle  xor %{{.+}}, %c2_i32
// CHECK: gpu.shuffle  xor %{{.+}}, %c4_i32
// CHECK: memref.atomic_rmw addi
// CHECK: return
func.func @count_tall_bands(%a: memref<512x256xf16>, %counts: memref<2xi32>) {
  pit.count %a micro_tile [64, 1] axis 1 every 4 into %counts : memref<512x256xf16>, memref<2xi32>
  return
}

// -----

// Every 2nd micro-tile column of 1x64 (8 vectors each): the threads take
// the 8 vectors of each sampled column (16 a row, 4 rows each, where a
// detection takes 16: 1024 threads), skipping the others.
// CHECK-LABEL: func @count_columns
// CHECK: gpu.launch blocks({{.+}}) in ({{.+}} = %c8{{.*}}, {{.+}}) threads({{.+}}) in ({{.+}} = %c128
// CHECK: %[[SCANNED:.+]] = arith.remui %{{.+}}, %c16 : index
// CHECK: %[[PART:.+]] = arith.remui %[[SCANNED]], %c8 : index
// CHECK: %[[SAMPLE:.+]] = arith.divui %[[SCANNED]], %c8 : index
// CHECK: %[[FIRST:.+]] = arith.muli %[[SAMPLE]], %c16 : index
// CHECK: %[[VECTOR:.+]] = arith.addi %[[FIRST]], %[[PART]] : index
// CHECK: arith.muli %[[VECTOR]], %c8 : index
// CHECK-COUNT-4: ld.global.cs
// CHECK-NOT: ld.global.cs
// CHECK: memref.atomic_rmw addi
// CHECK-NOT: memref.store
// CHECK: return
func.func @count_columns(%a: memref<256x256xf16>, %counts: memref<2xi32>) {
  pit.count %a micro_tile [1, 64] axis 0 every 2 into %counts : memref<256x256xf16>, memref<2xi32>
  return
}

// -----

// Sampled micro-tile columns narrower than a vector keep the scan of a
// thread per micro-tile, over the sampled segments' micro-tiles (32 x 256).
// CHECK-LABEL: func @count_narrow
// CHECK-NOT: ld.global.cs
// CHECK: scf.for %{{.+}} = %{{.+}} to %c8192
// CHECK: memref.atomic_rmw addi
// CHECK-NOT: memref.store
// CHECK: return
func.func @count_narrow(%a: memref<256x256xf16>, %counts: memref<32xi32>) {
  pit.count %a micro_tile [1, 4] axis 0 every 2 into %counts : memref<256x256xf16>, memref<32xi32>
  return
}

// -----

// Micro-tiles two vectors wide, sampled along the columns: the band column's
// rows are split between 2 lanes (OR-ed with xor 1), so the two vectors of
// a micro-tile lie 2 lanes apart (OR-ed with xor 2).
// CHECK-LABEL: func @count_wide
// CHECK: gpu.shuffle  xor %{{.+}}, %c1_i32
// CHECK-NOT: gpu.shuffle  xor %{{.+}}, %c1_i32
// CHECK: gpu.shuffle  xor %{{.+}}, %c2_i32
// CHECK-NOT: gpu.shuffle  xor
// CHECK: memref.atomic_rmw addi
// CHECK: return
func.func @count_wide(%a: memref<256x256xf16>, %counts: memref<8xi32>) {
  pit.count %a micro_tile [16, 16] axis 1 every 2 into %counts : memref<256x256xf16>, memref<8xi32>
  return
}

// -----

// Counts of a dynamic size: the scan's extent comes from the static source
// (32 sampled segments of 256 micro-tiles).
// CHECK-LABEL: func @count_dynamic
// CHECK: gpu.launch blocks({{.+}}) in ({{.+}} = %c64{{.*}}, {{.+}}) threads
// CHECK: scf.for %{{.+}} = %{{.+}} to %c8192
// CHECK: memref.atomic_rmw addi
func.func @count_dynamic(%a: memref<256x256xf16>, %counts: memref<?xi32>) {
  pit.count %a micro_tile [1, 4] axis 0 every 2 into %counts : memref<256x256xf16>, memref<?xi32>
  return
}
