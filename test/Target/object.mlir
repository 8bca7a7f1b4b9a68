// The host code of a lowered module as an object file for this machine, from
// LLVM's code generator in process: what both pit-compile and pit.compile
// link. Position independent (a shared library takes it). A module not
// lowered to the LLVM dialect is refused.
// RUN: pit-opt %s --pit-cpu-pipeline | pit-translate --pit-to-object -o %t.o
// RUN: llvm-nm %t.o | FileCheck %s
// RUN: llvm-readelf -h %t.o | FileCheck %s --check-prefix=ELF
// RUN: not pit-translate --pit-to-object %S/../Inputs/c-manifest-invalid.mlir 2>&1 | FileCheck %s --check-prefix=NOT-LOWERED

// CHECK: T scale
// ELF: Type: REL (Relocatable file)
// NOT-LOWERED: error: Dialect `func' not found for custom op 'func.func'

func.func @scale(%x: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %x[%i] : memref<16xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %x[%i] : memref<16xf32>
  }
  return
}
