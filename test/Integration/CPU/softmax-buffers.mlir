// linalg.softmax on buffers through pit-cpu-pipeline (decomposed by
// pit-decompose-aggregated-ops), run: rows x[i, j] = 100 i + j, whose
// exponentials overflow f32 from row 1 on unless the row's maximum is
// taken off first. Every row's softmax is then that of 0..7:
// e^j / (e^0 + ... + e^7).
// RUN: pit-opt %s --pit-cpu-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils | FileCheck %s

// CHECK-COUNT-4: 0.00057661{{[0-9]}},   0.001567{{[0-9]}},   0.0042606{{[0-9]}},   0.011581{{[0-9]}},   0.03148{{[0-9]}},   0.085576{{[0-9]}},   0.23262{{[0-9]}},   0.63233{{[0-9]}}]

func.func @softmax(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  linalg.softmax dimension(1) ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>)
  return
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %x = memref.alloc() : memref<4x8xf32>
  %y = memref.alloc() : memref<4x8xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%x : memref<4x8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %hundred = arith.constant 100 : index
    %shifted = arith.muli %i, %hundred : index
    %value = arith.addi %shifted, %j : index
    %integer = arith.index_cast %value : index to i64
    %float = arith.sitofp %integer : i64 to f32
    linalg.yield %float : f32
  }
  call @softmax(%x, %y) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
  %printed = memref.cast %y : memref<4x8xf32> to memref<*xf32>
  call @printMemrefF32(%printed) : (memref<*xf32>) -> ()
  memref.dealloc %x : memref<4x8xf32>
  memref.dealloc %y : memref<4x8xf32>
  return
}
