// Batched C += A x B (2 batches of 64x128 by 128x64, f32), A dynamically
// sparse with a different pattern in each batch, checked against float64.
//
// RUN: sed -e 's/MT0/1/g; s/MT1/1/g' %s | pit-opt --pit-cpu-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%pit_runner_utils,%mlir_c_runner_utils | FileCheck %s
// RUN: sed -e 's/MT0/32/g; s/MT1/1/g' %s | pit-opt --pit-cpu-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%pit_runner_utils,%mlir_c_runner_utils | FileCheck %s
// RUN: sed -e 's/MT0/1/g; s/MT1/64/g' %s | pit-opt --pit-cpu-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%pit_runner_utils,%mlir_c_runner_utils | FileCheck %s
// RUN: sed -e 's/MT0/16/g; s/MT1/16/g' %s | pit-opt --pit-cpu-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%pit_runner_utils,%mlir_c_runner_utils | FileCheck %s
// RUN: sed -e 's/MT0/32/g; s/MT1/64/g' %s | pit-opt --pit-cpu-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%pit_runner_utils,%mlir_c_runner_utils | FileCheck %s

// CHECK: seed
// CHECK-COUNT-10: {{^}}sparsity {{.*}} PASS
// CHECK-NOT: FAIL

func.func @sparse(%a: memref<2x64x128xf32>, %b: memref<2x128x64xf32>, %c: memref<2x64x64xf32>) {
  linalg.batch_matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1xMT0xMT1]>}
      ins(%a, %b : memref<2x64x128xf32>, memref<2x128x64xf32>) outs(%c : memref<2x64x64xf32>)
  return
}

func.func @reference(%a: memref<2x64x128xf64>, %b: memref<2x128x64xf64>, %c: memref<2x64x64xf64>) {
  linalg.batch_matmul ins(%a, %b : memref<2x64x128xf64>, memref<2x128x64xf64>) outs(%c : memref<2x64x64xf64>)
  return
}

func.func private @pitFillRandomF32(memref<*xf32>) attributes {llvm.emit_c_interface}
func.func private @pitZeroMicroTilesF32(memref<*xf32>, i64, i64, i64, f64) attributes {llvm.emit_c_interface}
func.func private @pitCopyF32ToF64(memref<*xf32>, memref<*xf64>) attributes {llvm.emit_c_interface}
func.func private @pitCheckF32(memref<*xf32>, memref<*xf64>, f64, f64) attributes {llvm.emit_c_interface}

func.func @run(%sparsity: f64) {
  %a = memref.alloc() : memref<2x64x128xf32>
  %b = memref.alloc() : memref<2x128x64xf32>
  %c = memref.alloc() : memref<2x64x64xf32>
  %a64 = memref.alloc() : memref<2x64x128xf64>
  %b64 = memref.alloc() : memref<2x128x64xf64>
  %c64 = memref.alloc() : memref<2x64x64xf64>
  %a_u = memref.cast %a : memref<2x64x128xf32> to memref<*xf32>
  %b_u = memref.cast %b : memref<2x128x64xf32> to memref<*xf32>
  %c_u = memref.cast %c : memref<2x64x64xf32> to memref<*xf32>
  %a64_u = memref.cast %a64 : memref<2x64x128xf64> to memref<*xf64>
  %b64_u = memref.cast %b64 : memref<2x128x64xf64> to memref<*xf64>
  %c64_u = memref.cast %c64 : memref<2x64x64xf64> to memref<*xf64>
  %one = arith.constant 1 : i64
  %mt0 = arith.constant MT0 : i64
  %mt1 = arith.constant MT1 : i64
  %tolerance = arith.constant 1.0e-5 : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %call = %c0 to %c2 step %c1 {
    func.call @pitFillRandomF32(%a_u) : (memref<*xf32>) -> ()
    func.call @pitFillRandomF32(%b_u) : (memref<*xf32>) -> ()
    func.call @pitFillRandomF32(%c_u) : (memref<*xf32>) -> ()
    func.call @pitZeroMicroTilesF32(%a_u, %one, %mt0, %mt1, %sparsity)
        : (memref<*xf32>, i64, i64, i64, f64) -> ()
    func.call @pitCopyF32ToF64(%a_u, %a64_u) : (memref<*xf32>, memref<*xf64>) -> ()
    func.call @pitCopyF32ToF64(%b_u, %b64_u) : (memref<*xf32>, memref<*xf64>) -> ()
    func.call @pitCopyF32ToF64(%c_u, %c64_u) : (memref<*xf32>, memref<*xf64>) -> ()
    func.call @reference(%a64, %b64, %c64) : (memref<2x64x128xf64>, memref<2x128x64xf64>, memref<2x64x64xf64>) -> ()
    func.call @sparse(%a, %b, %c) : (memref<2x64x128xf32>, memref<2x128x64xf32>, memref<2x64x64xf32>) -> ()
    func.call @pitCheckF32(%c_u, %c64_u, %sparsity, %tolerance) : (memref<*xf32>, memref<*xf64>, f64, f64) -> ()
  }
  memref.dealloc %a : memref<2x64x128xf32>
  memref.dealloc %b : memref<2x128x64xf32>
  memref.dealloc %c : memref<2x64x64xf32>
  memref.dealloc %a64 : memref<2x64x128xf64>
  memref.dealloc %b64 : memref<2x128x64xf64>
  memref.dealloc %c64 : memref<2x64x64xf64>
  return
}

func.func @main() {
  %s0 = arith.constant 0.0 : f64
  %s50 = arith.constant 0.5 : f64
  %s90 = arith.constant 0.9 : f64
  %s99 = arith.constant 0.99 : f64
  %s100 = arith.constant 1.0 : f64
  func.call @run(%s0) : (f64) -> ()
  func.call @run(%s50) : (f64) -> ()
  func.call @run(%s90) : (f64) -> ()
  func.call @run(%s99) : (f64) -> ()
  func.call @run(%s100) : (f64) -> ()
  return
}
