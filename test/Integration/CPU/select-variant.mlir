// Run-time selection (pit.select) on the CPU: a 64x64 A gets a coarse
// pattern (8x16 micro-tiles zeroed), a fine one (8x1) and a dense one, and
// the variant chosen from the detected coverage is printed. The latency
// tables are those of test/Inputs/latency-table.json, where the coarse 8x16
// variant costs half as much as the fine 8x1 one at the same coverage and
// dense costs 100 us:
//   coarse, 90%: coverage 0.10 for both, 8x1 32 us, 8x16 16 us -> 1 (8x16);
//   fine, 90%:   8x1 coverage 0.10 (32 us), 8x16 about 0.81 (97 us) -> 0;
//   fine, 10%:   8x1 216 us, 8x16 about 120 us, dense 100 us -> 2 (dense).
// A second choice has dense tables by pattern instead (dense_latencies:
// 20-40 us on 8x1 patterns, 50 us on 8x16 ones), and takes the lowest at
// each variant's coverage: coarse 22 us against 16 -> 1; fine 22 us
// against 32 -> 2; dense 38 us -> 2.
// Then the whole program, sparsified with that table, is checked against
// float64 on each pattern, so that every case of its switch runs.
//
// RUN: pit-opt %s --pit-cpu-pipeline="latency-table=%S/../../Inputs/latency-table.json" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%pit_runner_utils,%mlir_c_runner_utils | FileCheck %s

// CHECK-LABEL: coarse pattern
// CHECK: pattern: 29 of 32 micro-tiles zero
// CHECK-NEXT: 1
// CHECK-NEXT: 1
// CHECK-NEXT: sparsity 0.90: relative error {{.*}} PASS
// CHECK-LABEL: fine pattern
// CHECK: pattern: 461 of 512 micro-tiles zero
// CHECK-NEXT: 0
// CHECK-NEXT: 2
// CHECK-NEXT: sparsity 0.90: relative error {{.*}} PASS
// CHECK-LABEL: dense pattern
// CHECK: pattern: 51 of 512 micro-tiles zero
// CHECK-NEXT: 2
// CHECK-NEXT: 2
// CHECK-NEXT: sparsity 0.10: relative error {{.*}} PASS
// CHECK-NOT: FAIL

// The variant the table picks for %a: the detections and the selection
// that pit-sparsify builds for @sparse's two candidates gathered along k;
// then the choice with dense's latency by pattern.
func.func @choose(%a: memref<64x64xf32>) -> (index, index) {
  %fine_counts = memref.alloc() : memref<8xi32>
  %fine_positions = memref.alloc() : memref<8x64xi32>
  %coarse_counts = memref.alloc() : memref<8xi32>
  %coarse_positions = memref.alloc() : memref<8x4xi32>
  pit.detect %a micro_tile [8, 1] axis 1 into %fine_counts, %fine_positions
      : memref<64x64xf32>, memref<8xi32>, memref<8x64xi32>
  pit.detect %a micro_tile [8, 16] axis 1 into %coarse_counts, %coarse_positions
      : memref<64x64xf32>, memref<8xi32>, memref<8x4xi32>
  %variant = pit.select %fine_counts, %coarse_counts capacities [64, 4]
      coverage [0.0, 0.5, 1.0]
      latencies [array<f64: 10.0, 120.0, 240.0>, array<f64: 5.0, 60.0, 120.0>]
      dense 100.0 : memref<8xi32>, memref<8xi32>
  %by_pattern = pit.select %fine_counts, %coarse_counts capacities [64, 4]
      coverage [0.0, 0.5, 1.0]
      latencies [array<f64: 10.0, 120.0, 240.0>, array<f64: 5.0, 60.0, 120.0>]
      dense 100.0
      dense_latencies [array<f64: 20.0, 30.0, 40.0>, array<f64: 50.0, 50.0, 50.0>]
      : memref<8xi32>, memref<8xi32>
  memref.dealloc %fine_counts : memref<8xi32>
  memref.dealloc %fine_positions : memref<8x64xi32>
  memref.dealloc %coarse_counts : memref<8xi32>
  memref.dealloc %coarse_positions : memref<8x4xi32>
  return %variant, %by_pattern : index, index
}

func.func @sparse(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [8x1, 8x16]>}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

func.func @reference(%a: memref<64x64xf64>, %b: memref<64x64xf64>, %c: memref<64x64xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<64x64xf64>)
  linalg.matmul ins(%a, %b : memref<64x64xf64>, memref<64x64xf64>) outs(%c : memref<64x64xf64>)
  return
}

func.func private @pitFillRandomF32(memref<*xf32>) attributes {llvm.emit_c_interface}
func.func private @pitZeroMicroTilesF32(memref<*xf32>, i64, i64, i64, f64) attributes {llvm.emit_c_interface}
func.func private @pitCopyF32ToF64(memref<*xf32>, memref<*xf64>) attributes {llvm.emit_c_interface}
func.func private @pitCheckF32(memref<*xf32>, memref<*xf64>, f64, f64) attributes {llvm.emit_c_interface}
func.func private @printI64(i64)
func.func private @printNewline()
func.func private @printString(!llvm.ptr)

// One pattern of `sparsity` in micro-tiles mt0 x mt1: the choice, then the
// checked product.
func.func @run(%mt0: i64, %mt1: i64, %sparsity: f64) {
  %a = memref.alloc() : memref<64x64xf32>
  %b = memref.alloc() : memref<64x64xf32>
  %c = memref.alloc() : memref<64x64xf32>
  %a64 = memref.alloc() : memref<64x64xf64>
  %b64 = memref.alloc() : memref<64x64xf64>
  %c64 = memref.alloc() : memref<64x64xf64>
  %a_u = memref.cast %a : memref<64x64xf32> to memref<*xf32>
  %b_u = memref.cast %b : memref<64x64xf32> to memref<*xf32>
  %c_u = memref.cast %c : memref<64x64xf32> to memref<*xf32>
  %a64_u = memref.cast %a64 : memref<64x64xf64> to memref<*xf64>
  %b64_u = memref.cast %b64 : memref<64x64xf64> to memref<*xf64>
  %c64_u = memref.cast %c64 : memref<64x64xf64> to memref<*xf64>
  %unused = arith.constant 1 : i64
  %tolerance = arith.constant 1.0e-5 : f64
  func.call @pitFillRandomF32(%a_u) : (memref<*xf32>) -> ()
  func.call @pitFillRandomF32(%b_u) : (memref<*xf32>) -> ()
  func.call @pitFillRandomF32(%c_u) : (memref<*xf32>) -> ()
  func.call @pitZeroMicroTilesF32(%a_u, %mt0, %mt1, %unused, %sparsity)
      : (memref<*xf32>, i64, i64, i64, f64) -> ()
  %variant, %by_pattern = func.call @choose(%a) : (memref<64x64xf32>) -> (index, index)
  %variant64 = arith.index_cast %variant : index to i64
  func.call @printI64(%variant64) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %by_pattern64 = arith.index_cast %by_pattern : index to i64
  func.call @printI64(%by_pattern64) : (i64) -> ()
  func.call @printNewline() : () -> ()
  func.call @pitCopyF32ToF64(%a_u, %a64_u) : (memref<*xf32>, memref<*xf64>) -> ()
  func.call @pitCopyF32ToF64(%b_u, %b64_u) : (memref<*xf32>, memref<*xf64>) -> ()
  func.call @reference(%a64, %b64, %c64) : (memref<64x64xf64>, memref<64x64xf64>, memref<64x64xf64>) -> ()
  func.call @sparse(%a, %b, %c) : (memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>) -> ()
  func.call @pitCheckF32(%c_u, %c64_u, %sparsity, %tolerance) : (memref<*xf32>, memref<*xf64>, f64, f64) -> ()
  memref.dealloc %a : memref<64x64xf32>
  memref.dealloc %b : memref<64x64xf32>
  memref.dealloc %c : memref<64x64xf32>
  memref.dealloc %a64 : memref<64x64xf64>
  memref.dealloc %b64 : memref<64x64xf64>
  memref.dealloc %c64 : memref<64x64xf64>
  return
}

llvm.mlir.global internal constant @coarse("coarse pattern\0A\00")
llvm.mlir.global internal constant @fine("fine pattern\0A\00")
llvm.mlir.global internal constant @dense("dense pattern\0A\00")

func.func @main() {
  %one = arith.constant 1 : i64
  %eight = arith.constant 8 : i64
  %sixteen = arith.constant 16 : i64
  %s10 = arith.constant 0.1 : f64
  %s90 = arith.constant 0.9 : f64
  %coarse = llvm.mlir.addressof @coarse : !llvm.ptr
  func.call @printString(%coarse) : (!llvm.ptr) -> ()
  func.call @run(%eight, %sixteen, %s90) : (i64, i64, f64) -> ()
  %fine = llvm.mlir.addressof @fine : !llvm.ptr
  func.call @printString(%fine) : (!llvm.ptr) -> ()
  func.call @run(%eight, %one, %s90) : (i64, i64, f64) -> ()
  %dense = llvm.mlir.addressof @dense : !llvm.ptr
  func.call @printString(%dense) : (!llvm.ptr) -> ()
  func.call @run(%eight, %one, %s10) : (i64, i64, f64) -> ()
  return
}
