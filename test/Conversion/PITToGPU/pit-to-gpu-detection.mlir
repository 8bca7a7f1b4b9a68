// RUN: pit-opt %s -split-input-file --pit-sparsify --convert-pit-to-gpu --pit-gpu-coalesce-allocations | FileCheck %s

// Micro-tiles wider than a 16-byte vector (1x64 f16: 8 vectors): the 8
// threads of a micro-tile OR their flags with xor shuffles (offsets 4, 2, 1),
// and the first of them holds the flag. Gathered along rows, each micro-tile
// column is its own segment, with a micro-tile in every band (row): a thread
// scans 16 rows of its vector column (16 threads of 32 vectors: 4 blocks)
// and claims its column's slots once for all of them. The rows are loaded
// streaming (ld.global.cs: A is read once). A row is tested as
// 32-bit words without the halves' sign bits (-0 is zero), OR-ed: whether
// any lane is non-zero, without comparing each.
// CHECK-LABEL: func @rows_1x64
// CHECK: gpu.launch blocks({{.+}}) in ({{.+}} = %c4{{.*}}, {{.+}}) threads({{.+}}) in ({{.+}} = %c128
// CHECK-COUNT-16: llvm.inline_asm has_side_effects "ld.global.cs.v4.b32
// CHECK-NOT: arith.cmpf
// CHECK:   %[[WORDS:.+]] = vector.bitcast %{{.+}} : vector<8xf16> to vector<4xi32>
// CHECK:   arith.andi %[[WORDS]], %cst{{.*}} : vector<4xi32>
// CHECK:   vector.reduction <or>, %{{.+}} : vector<4xi32> into i32
// CHECK:   gpu.shuffle  xor %{{.+}}, %c4_i32
// CHECK:   gpu.shuffle  xor %{{.+}}, %c2_i32
// CHECK:   gpu.shuffle  xor %{{.+}}, %c1_i32
// CHECK-NOT: memref.atomic_rmw
// CHECK:   scf.if
// CHECK:     memref.atomic_rmw addi
// CHECK-NOT: memref.atomic_rmw
// CHECK-COUNT-16: memref.store
func.func @rows_1x64(%a: memref<256x256xf16>, %b: memref<256x128xf16>, %c: memref<256x128xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x64]>}
      ins(%a, %b : memref<256x256xf16>, memref<256x128xf16>) outs(%c : memref<256x128xf32>)
  return
}

// -----

// A scan of more than 512 blocks of 128 threads takes larger blocks, up to
// 512 threads: 1x64 at 4096x4096 (16 rows a thread: 131072 threads) is
// 512 blocks of 256, not 1024 of 128. A choice that leaves the detection
// out still waits for its blocks to start and end.
// CHECK-LABEL: func @large_scan
// CHECK: gpu.launch blocks({{.+}}) in ({{.+}} = %c512{{.*}}, {{.+}}) threads({{.+}}) in ({{.+}} = %c256
// CHECK-COUNT-16: llvm.inline_asm has_side_effects "ld.global.cs.v4.b32
func.func @large_scan(%a: memref<4096x4096xf16>, %b: memref<4096x128xf16>, %c: memref<4096x128xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x64]>}
      ins(%a, %b : memref<4096x4096xf16>, memref<4096x128xf16>) outs(%c : memref<4096x128xf32>)
  return
}

// -----

// 16x16 micro-tiles gathered along k: 16 unrolled loads a thread, two
// threads a micro-tile; a warp (in one band) claims its slots with one
// atomic add.
// CHECK-LABEL: func @k_16x16
// CHECK-COUNT-16: llvm.inline_asm has_side_effects "ld.global.cs.v4.b32
// CHECK:   gpu.shuffle  xor %{{.+}}, %c1_i32
// CHECK-NOT: gpu.shuffle  xor
// CHECK-COUNT-5: gpu.shuffle  up
// CHECK:   memref.atomic_rmw addi
// CHECK-NOT: memref.atomic_rmw
func.func @k_16x16(%a: memref<256x256xf16>, %b: memref<256x128xf16>, %c: memref<256x128xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [16x16]>}
      ins(%a, %b : memref<256x256xf16>, memref<256x128xf16>) outs(%c : memref<256x128xf32>)
  return
}

// -----

// A 3-D sparse operand keeps the scan of a thread per micro-tile.
// CHECK-LABEL: func @batch
// CHECK-NOT: ld.global.cs
// CHECK: memref.atomic_rmw addi
func.func @batch(%a: memref<2x128x128xf16>, %b: memref<2x128x64xf16>, %c: memref<2x128x64xf32>) {
  linalg.batch_matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x32x1]>}
      ins(%a, %b : memref<2x128x128xf16>, memref<2x128x64xf16>) outs(%c : memref<2x128x64xf32>)
  return
}

// -----

// Rows of 16 vectors: a warp spans two bands (segments), so each thread
// claims its own slots.
// CHECK-LABEL: func @k_16x16_short_rows
// CHECK: gpu.shuffle  xor %{{.+}}, %c1_i32
// CHECK-NOT: gpu.shuffle
// CHECK: scf.if
// CHECK:   memref.atomic_rmw addi
func.func @k_16x16_short_rows(%a: memref<256x128xf16>, %b: memref<128x128xf16>, %c: memref<256x128xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [16x16]>}
      ins(%a, %b : memref<256x128xf16>, memref<128x128xf16>) outs(%c : memref<256x128xf32>)
  return
}

// -----

// 32x1 f16 with the compacted copy that the tensor-core STile reads: the 32
// rows of a band's vector column are split among 4 neighbouring lanes, 8
// rows each (8 bands x 32 vectors x 4 lanes: 8 blocks). The 4 lanes OR
// their flags (xor shuffles 1, 2); the warp claims once; the first of the 4
// records the positions; each lane writes its 8 rows of a micro-tile column
// as one 16-byte piece, next to those of the other three. The 8 rows'
// magnitude words (0x7FFF in each half) are OR-ed, and each lane is tested
// once, as a 16-bit integer.
// CHECK-LABEL: func @k_32x1_compacted
// CHECK: gpu.launch blocks({{.+}}) in ({{.+}} = %c8{{.*}}, {{.+}}) threads({{.+}}) in ({{.+}} = %c128
// CHECK-COUNT-8: llvm.inline_asm has_side_effects "ld.global.cs.v4.b32
// CHECK-NOT: ld.global.cs
// CHECK: arith.constant dense<2147450879> : vector<4xi32>
// CHECK-COUNT-8: arith.andi %{{.+}}, %{{.+}} : vector<4xi32>
// CHECK: %[[LANES:.+]] = vector.bitcast %{{.+}} : vector<4xi32> to vector<8xi16>
// CHECK: arith.cmpi ne, %[[LANES]], %{{.+}} : vector<8xi16>
// CHECK: gpu.shuffle  xor %{{.+}}, %c1_i32
// CHECK: gpu.shuffle  xor %{{.+}}, %c2_i32
// CHECK-COUNT-5: gpu.shuffle  up
// CHECK: memref.atomic_rmw addi
// CHECK-NOT: memref.atomic_rmw
// CHECK: scf.if
// CHECK:   memref.store %{{.+}} : memref<8x256xi32>
// CHECK: vector.store %{{.+}} {alignment = 16 : i64} : memref<8x256x32xf16>, vector<8xf16>
func.func @k_32x1_compacted(%a: memref<256x256xf16>, %b: memref<256x128xf16>, %c: memref<256x128xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<256x256xf16>, memref<256x128xf16>) outs(%c : memref<256x128xf32>)
  return
}

// -----

// A float's negative zero is zero: its bits are left out of the words
// tested (fp8 E4M3FN: 0x80 in each byte). In the FNUZ types that pattern
// is NaN, not zero: every bit counts.
// CHECK-LABEL: func @fp8_signed_zero
// CHECK: vector.bitcast %{{.+}} : vector<4xi32> to vector<16xf8E4M3FN>
// CHECK: arith.constant dense<2139062143> : vector<4xi32>
// CHECK-LABEL: func @fp8_fnuz
// CHECK: vector.bitcast %{{.+}} : vector<4xi32> to vector<16xf8E4M3FNUZ>
// CHECK: arith.constant dense<-1> : vector<4xi32>
func.func @fp8_signed_zero(%a: memref<256x256xf8E4M3FN>, %b: memref<256x128xf16>, %c: memref<256x128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<256x256xf8E4M3FN>, memref<256x128xf16>) outs(%c : memref<256x128xf32>) attrs = {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>} {
  ^bb0(%x: f8E4M3FN, %y: f16, %z: f32):
    %xf = arith.extf %x : f8E4M3FN to f32
    %yf = arith.extf %y : f16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  }
  return
}
func.func @fp8_fnuz(%a: memref<256x256xf8E4M3FNUZ>, %b: memref<256x128xf16>, %c: memref<256x128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<256x256xf8E4M3FNUZ>, memref<256x128xf16>) outs(%c : memref<256x128xf32>) attrs = {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>} {
  ^bb0(%x: f8E4M3FNUZ, %y: f16, %z: f32):
    %xf = arith.extf %x : f8E4M3FNUZ to f32
    %yf = arith.extf %y : f16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// f8E8M0FNU has no zero at all (its zero bits are 2^-127): no word test;
// a thread scans each micro-tile, comparing its elements.
// CHECK-LABEL: func @fp8_no_zero
// CHECK-NOT: ld.global.cs
// CHECK: arith.cmpf une
func.func @fp8_no_zero(%a: memref<256x256xf8E8M0FNU>, %b: memref<256x128xf16>, %c: memref<256x128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<256x256xf8E8M0FNU>, memref<256x128xf16>) outs(%c : memref<256x128xf32>) attrs = {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>} {
  ^bb0(%x: f8E8M0FNU, %y: f16, %z: f32):
    %xf = arith.extf %x : f8E8M0FNU to f32
    %yf = arith.extf %y : f16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  }
  return
}
