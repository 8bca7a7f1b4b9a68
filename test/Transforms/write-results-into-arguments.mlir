// RUN: pit-opt %s -split-input-file --pit-write-results-into-arguments | FileCheck %s

// A result that is an argument (through a cast) is dropped, public or not,
// and the calls use the argument instead.
// CHECK-LABEL: func.func @updates
// CHECK-SAME: (%{{.+}}: memref<4x4xf32>, %{{.+}}: memref<4x4xf32>) -> memref<4x4xf32> {
// CHECK:   %[[NEW:.+]] = memref.alloc
// CHECK:   return %[[NEW]] : memref<4x4xf32>
// The caller's own first result is then a cast of its argument: dropped too.
// CHECK-LABEL: func.func @caller
// CHECK-SAME: -> memref<4x4xf32> {
// CHECK:   %[[R:.+]] = call @updates(%{{.+}}, %[[ARG:.+]]) : (memref<4x4xf32>, memref<4x4xf32>) -> memref<4x4xf32>
// CHECK:   memref.cast %[[ARG]] : memref<4x4xf32> to memref<?x4xf32>
// CHECK:   return %[[R]] : memref<4x4xf32>
func.func @updates(%a: memref<4x4xf32>, %c: memref<4x4xf32>) -> (memref<?x4xf32>, memref<4x4xf32>) {
  linalg.matmul ins(%a, %a : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  %cast = memref.cast %c : memref<4x4xf32> to memref<?x4xf32>
  %new = memref.alloc() : memref<4x4xf32>
  return %cast, %new : memref<?x4xf32>, memref<4x4xf32>
}
func.func @caller(%a: memref<4x4xf32>, %c: memref<4x4xf32>) -> (memref<?x4xf32>, memref<4x4xf32>) {
  %r:2 = call @updates(%a, %c) : (memref<4x4xf32>, memref<4x4xf32>) -> (memref<?x4xf32>, memref<4x4xf32>)
  return %r#0, %r#1 : memref<?x4xf32>, memref<4x4xf32>
}

// -----

// External functions are left alone.
// CHECK-LABEL: func.func private @external(memref<4xf32>) -> memref<4xf32>
func.func private @external(memref<4xf32>) -> memref<4xf32>
