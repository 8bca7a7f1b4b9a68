// Integer C += A x B (i32), A dynamically sparse: the result must be exact.
//
// RUN: sed -e 's/MT0/32/g; s/MT1/1/g' %s | pit-opt --pit-cpu-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%pit_runner_utils,%mlir_c_runner_utils | FileCheck %s
// RUN: sed -e 's/MT0/16/g; s/MT1/16/g' %s | pit-opt --pit-cpu-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%pit_runner_utils,%mlir_c_runner_utils | FileCheck %s
// RUN: sed -e 's/MT0/1/g; s/MT1/64/g' %s | pit-opt --pit-cpu-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%pit_runner_utils,%mlir_c_runner_utils | FileCheck %s

// CHECK: seed
// CHECK-COUNT-10: {{^}}sparsity {{.*}}: 0 mismatches PASS
// CHECK-NOT: FAIL

func.func @sparse(%a: memref<64x128xi32>, %b: memref<128x64xi32>, %c: memref<64x64xi32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [MT0xMT1]>}
      ins(%a, %b : memref<64x128xi32>, memref<128x64xi32>) outs(%c : memref<64x64xi32>)
  return
}

func.func @reference(%a: memref<64x128xi32>, %b: memref<128x64xi32>, %c: memref<64x64xi32>) {
  linalg.matmul ins(%a, %b : memref<64x128xi32>, memref<128x64xi32>) outs(%c : memref<64x64xi32>)
  return
}

func.func private @pitFillRandomI32(memref<*xi32>) attributes {llvm.emit_c_interface}
func.func private @pitZeroMicroTilesI32(memref<*xi32>, i64, i64, i64, f64) attributes {llvm.emit_c_interface}
func.func private @pitCheckI32(memref<*xi32>, memref<*xi32>, f64) attributes {llvm.emit_c_interface}

func.func @run(%sparsity: f64) {
  %a = memref.alloc() : memref<64x128xi32>
  %b = memref.alloc() : memref<128x64xi32>
  %c = memref.alloc() : memref<64x64xi32>
  %ref = memref.alloc() : memref<64x64xi32>
  %a_u = memref.cast %a : memref<64x128xi32> to memref<*xi32>
  %b_u = memref.cast %b : memref<128x64xi32> to memref<*xi32>
  %c_u = memref.cast %c : memref<64x64xi32> to memref<*xi32>
  %ref_u = memref.cast %ref : memref<64x64xi32> to memref<*xi32>
  %mt0 = arith.constant MT0 : i64
  %mt1 = arith.constant MT1 : i64
  %unused = arith.constant 1 : i64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %call = %c0 to %c2 step %c1 {
    func.call @pitFillRandomI32(%a_u) : (memref<*xi32>) -> ()
    func.call @pitFillRandomI32(%b_u) : (memref<*xi32>) -> ()
    func.call @pitFillRandomI32(%c_u) : (memref<*xi32>) -> ()
    func.call @pitZeroMicroTilesI32(%a_u, %mt0, %mt1, %unused, %sparsity)
        : (memref<*xi32>, i64, i64, i64, f64) -> ()
    memref.copy %c, %ref : memref<64x64xi32> to memref<64x64xi32>
    func.call @reference(%a, %b, %ref) : (memref<64x128xi32>, memref<128x64xi32>, memref<64x64xi32>) -> ()
    func.call @sparse(%a, %b, %c) : (memref<64x128xi32>, memref<128x64xi32>, memref<64x64xi32>) -> ()
    func.call @pitCheckI32(%c_u, %ref_u, %sparsity) : (memref<*xi32>, memref<*xi32>, f64) -> ()
  }
  memref.dealloc %a : memref<64x128xi32>
  memref.dealloc %b : memref<128x64xi32>
  memref.dealloc %c : memref<64x64xi32>
  memref.dealloc %ref : memref<64x64xi32>
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
