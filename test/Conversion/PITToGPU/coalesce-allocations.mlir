// pit-gpu-coalesce-allocations: the static buffers a call allocates and
// frees itself become views of one arena (each 256-byte aligned, in the
// order of their first memsets), and the memsets of neighbouring views one
// memset of the bytes they span. A buffer of dynamic shape keeps its own.
// RUN: pit-opt %s --pit-gpu-coalesce-allocations | FileCheck %s

// CHECK-LABEL: func.func @call
// CHECK: %[[ARENA:.+]] = gpu.alloc  () : memref<8448xi8>
// CHECK: memref.view %[[ARENA]][%{{.+}}][] : memref<8448xi8> to memref<8xi32>
// CHECK: %[[C256:.+]] = arith.constant 256 : index
// CHECK: memref.view %[[ARENA]][%[[C256]]][] : memref<8448xi8> to memref<8x256xi32>
// CHECK: %[[DYNAMIC:.+]] = gpu.alloc  (%{{.+}}) : memref<?xi32>
// CHECK: %[[BOTH:.+]] = memref.view %[[ARENA]][%{{.+}}][] : memref<8448xi8> to memref<2112xi32>
// CHECK: gpu.memset  %[[BOTH]]
// CHECK-NOT: gpu.memset
// CHECK: gpu.dealloc  %[[DYNAMIC]]
// CHECK-NEXT: gpu.dealloc  %[[ARENA]]
// CHECK-NEXT: return
func.func @call(%n: index) {
  %counts = gpu.alloc () : memref<8xi32>
  %positions = gpu.alloc () : memref<8x256xi32>
  %dynamic = gpu.alloc (%n) : memref<?xi32>
  %zero = arith.constant 0 : i32
  gpu.memset %counts, %zero : memref<8xi32>, i32
  gpu.memset %positions, %zero : memref<8x256xi32>, i32
  gpu.dealloc %dynamic : memref<?xi32>
  gpu.dealloc %positions : memref<8x256xi32>
  gpu.dealloc %counts : memref<8xi32>
  return
}
