// SDDMM: C[m, n] += M[m, n] * sum_k A[m, k] B[k, n] (f32), the mask M
// dynamically sparse with a random pattern, checked against float64.
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

func.func @sparse(%a: memref<128x64xf32>, %b: memref<64x128xf32>, %mask: memref<128x128xf32>,
                  %c: memref<128x128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                   affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b, %mask : memref<128x64xf32>, memref<64x128xf32>, memref<128x128xf32>)
      outs(%c : memref<128x128xf32>)
      attrs = {pit.sparse = #pit.sparse<operand = 2, micro_tiles = [MT0xMT1]>} {
  ^bb0(%x: f32, %y: f32, %m: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %q = arith.mulf %p, %m : f32
    %s = arith.addf %acc, %q : f32
    linalg.yield %s : f32
  }
  return
}

func.func @reference(%a: memref<128x64xf64>, %b: memref<64x128xf64>, %mask: memref<128x128xf64>,
                     %c: memref<128x128xf64>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                   affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b, %mask : memref<128x64xf64>, memref<64x128xf64>, memref<128x128xf64>)
      outs(%c : memref<128x128xf64>) {
  ^bb0(%x: f64, %y: f64, %m: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.mulf %p, %m : f64
    %s = arith.addf %acc, %q : f64
    linalg.yield %s : f64
  }
  return
}

func.func private @pitFillRandomF32(memref<*xf32>) attributes {llvm.emit_c_interface}
func.func private @pitZeroMicroTilesF32(memref<*xf32>, i64, i64, i64, f64) attributes {llvm.emit_c_interface}
func.func private @pitCopyF32ToF64(memref<*xf32>, memref<*xf64>) attributes {llvm.emit_c_interface}
func.func private @pitCheckF32(memref<*xf32>, memref<*xf64>, f64, f64) attributes {llvm.emit_c_interface}

func.func @run(%sparsity: f64) {
  %a = memref.alloc() : memref<128x64xf32>
  %b = memref.alloc() : memref<64x128xf32>
  %mask = memref.alloc() : memref<128x128xf32>
  %c = memref.alloc() : memref<128x128xf32>
  %a64 = memref.alloc() : memref<128x64xf64>
  %b64 = memref.alloc() : memref<64x128xf64>
  %mask64 = memref.alloc() : memref<128x128xf64>
  %c64 = memref.alloc() : memref<128x128xf64>
  %a_u = memref.cast %a : memref<128x64xf32> to memref<*xf32>
  %b_u = memref.cast %b : memref<64x128xf32> to memref<*xf32>
  %mask_u = memref.cast %mask : memref<128x128xf32> to memref<*xf32>
  %c_u = memref.cast %c : memref<128x128xf32> to memref<*xf32>
  %a64_u = memref.cast %a64 : memref<128x64xf64> to memref<*xf64>
  %b64_u = memref.cast %b64 : memref<64x128xf64> to memref<*xf64>
  %mask64_u = memref.cast %mask64 : memref<128x128xf64> to memref<*xf64>
  %c64_u = memref.cast %c64 : memref<128x128xf64> to memref<*xf64>
  %mt0 = arith.constant MT0 : i64
  %mt1 = arith.constant MT1 : i64
  %unused = arith.constant 1 : i64
  %tolerance = arith.constant 1.0e-5 : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %call = %c0 to %c2 step %c1 {
    func.call @pitFillRandomF32(%a_u) : (memref<*xf32>) -> ()
    func.call @pitFillRandomF32(%b_u) : (memref<*xf32>) -> ()
    func.call @pitFillRandomF32(%mask_u) : (memref<*xf32>) -> ()
    func.call @pitFillRandomF32(%c_u) : (memref<*xf32>) -> ()
    func.call @pitZeroMicroTilesF32(%mask_u, %mt0, %mt1, %unused, %sparsity)
        : (memref<*xf32>, i64, i64, i64, f64) -> ()
    func.call @pitCopyF32ToF64(%a_u, %a64_u) : (memref<*xf32>, memref<*xf64>) -> ()
    func.call @pitCopyF32ToF64(%b_u, %b64_u) : (memref<*xf32>, memref<*xf64>) -> ()
    func.call @pitCopyF32ToF64(%mask_u, %mask64_u) : (memref<*xf32>, memref<*xf64>) -> ()
    func.call @pitCopyF32ToF64(%c_u, %c64_u) : (memref<*xf32>, memref<*xf64>) -> ()
    func.call @reference(%a64, %b64, %mask64, %c64)
        : (memref<128x64xf64>, memref<64x128xf64>, memref<128x128xf64>, memref<128x128xf64>) -> ()
    func.call @sparse(%a, %b, %mask, %c)
        : (memref<128x64xf32>, memref<64x128xf32>, memref<128x128xf32>, memref<128x128xf32>) -> ()
    func.call @pitCheckF32(%c_u, %c64_u, %sparsity, %tolerance) : (memref<*xf32>, memref<*xf64>, f64, f64) -> ()
  }
  memref.dealloc %a : memref<128x64xf32>
  memref.dealloc %b : memref<64x128xf32>
  memref.dealloc %mask : memref<128x128xf32>
  memref.dealloc %c : memref<128x128xf32>
  memref.dealloc %a64 : memref<128x64xf64>
  memref.dealloc %b64 : memref<64x128xf64>
  memref.dealloc %mask64 : memref<128x128xf64>
  memref.dealloc %c64 : memref<128x128xf64>
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
