// RUN: pit-opt %s -split-input-file --pit-free-temporaries --buffer-deallocation-simplification --bufferization-lower-deallocations --canonicalize -verify-diagnostics | FileCheck %s

// A buffer that bufferization allocated for an intermediate result is freed
// after its last use.
// CHECK-LABEL: func.func @intermediate
// CHECK: %[[T:.+]] = memref.alloc()
// CHECK: linalg.matmul {{.+}} outs(%[[T]]
// CHECK: linalg.add ins(%[[T]]
// CHECK-NEXT: memref.dealloc %[[T]]
// CHECK-NEXT: return
func.func @intermediate(%a: memref<16x16xf32>, %b: memref<16x16xf32>, %c: memref<16x16xf32>) {
  %t = memref.alloc() : memref<16x16xf32>
  linalg.matmul ins(%a, %b : memref<16x16xf32>, memref<16x16xf32>) outs(%t : memref<16x16xf32>)
  linalg.add ins(%t, %c : memref<16x16xf32>, memref<16x16xf32>) outs(%c : memref<16x16xf32>)
  return
}

// -----

// A function that frees memory itself manages its buffers: left as it is,
// the buffer it never frees included.
// CHECK-LABEL: func.func @frees_itself
// CHECK: %[[S:.+]] = memref.alloc()
// CHECK: %[[T:.+]] = memref.alloc()
// CHECK: memref.dealloc %[[S]]
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @frees_itself(%a: memref<16x16xf32>, %c: memref<16x16xf32>) {
  %s = memref.alloc() : memref<16x16xf32>
  %t = memref.alloc() : memref<16x16xf32>
  linalg.add ins(%a, %c : memref<16x16xf32>, memref<16x16xf32>) outs(%s : memref<16x16xf32>)
  linalg.add ins(%s, %c : memref<16x16xf32>, memref<16x16xf32>) outs(%t : memref<16x16xf32>)
  // expected-remark @below {{pit-free-temporaries: function 'frees_itself' frees memory itself; its buffers are left as it manages them}}
  memref.dealloc %s : memref<16x16xf32>
  linalg.add ins(%t, %c : memref<16x16xf32>, memref<16x16xf32>) outs(%c : memref<16x16xf32>)
  return
}

// -----

// Nothing allocated, nothing to free.
// CHECK-LABEL: func.func @no_buffers
// CHECK-NOT: memref.dealloc
func.func @no_buffers(%a: memref<16x16xf32>, %c: memref<16x16xf32>) {
  linalg.add ins(%a, %c : memref<16x16xf32>, memref<16x16xf32>) outs(%c : memref<16x16xf32>)
  return
}
