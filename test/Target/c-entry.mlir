// RUN: pit-translate --pit-to-c-entry %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK: #include "PIT-runtime/Entry.h"
// The compiled function, in func-to-llvm's calling convention.
// CHECK: extern void sparse_matmul(void *, void *, int64_t, int64_t, int64_t, int64_t, int64_t, void *, void *, int64_t, int64_t, int64_t, int64_t, int64_t, void *, void *, int64_t, int64_t, int64_t, int64_t, int64_t);
// CHECK: static const int64_t sparse_matmul_shape0[] = {128, 256};
// CHECK: static const int64_t sparse_matmul_numTies = 0;
// CHECK: static const PITArgSpec sparse_matmul_args[] = {
// CHECK-NEXT: {"arg0", PIT_F16, 2, sparse_matmul_shape0},
// CHECK-NEXT: {"arg1", PIT_BF16, 2, sparse_matmul_shape1},
// CHECK-NEXT: {"arg2", PIT_F32, 2, sparse_matmul_shape2},
// The call's host code, which pitRunCall runs or replays as a graph.
// CHECK: static void sparse_matmul_call(const void *closure) {
// CHECK-NEXT: const PITTensor *args = (const PITTensor *)closure;
// Contiguous row-major descriptors: offset 0, sizes, then strides.
// CHECK-NEXT: sparse_matmul(args[0].data, args[0].data, 0, 128, 256, 256, 1,
// CHECK-NEXT: args[1].data, args[1].data, 0, 256, 64, 64, 1,
// CHECK-NEXT: args[2].data, args[2].data, 0, 128, 64, 64, 1);
// CHECK-NEXT: }
// CHECK: PIT_ENTRY_EXPORT int pit_sparse_matmul(const PITTensor *args, int64_t numArgs) {
// A static program ties no dynamic extents: the list is empty.
// CHECK-NEXT: if (pitCheckArgs("sparse_matmul", sparse_matmul_args, 3, args, numArgs) ||
// CHECK-NEXT:     pitCheckExtentTies("sparse_matmul", sparse_matmul_ties, sparse_matmul_numTies, args))
// CHECK-NEXT:   return 1;
// CHECK-NEXT: pitRunCall(sparse_matmul_call, args, numArgs);
// CHECK-NEXT: return pitFinishCall("sparse_matmul");
// Private functions get no entry point.
// CHECK-NOT: pit_helper
func.func @sparse_matmul(%a: memref<128x256xf16>, %b: memref<256x64xbf16>, %c: memref<128x64xf32>) {
  return
}
func.func private @helper(%a: memref<4xf32>) {
  return
}

// -----

// A dynamic extent is -1 in the spec, and the checked tensor's own extent
// in the call; the strides multiply it in.
// CHECK-LABEL: static const int64_t dynamic_shape0[] = {-1, 64, -1};
// CHECK: static const int64_t dynamic_shape1[] = {-1};
// CHECK: dynamic(args[0].data, args[0].data, 0, args[0].shape[0], 64, args[0].shape[2], 64 * args[0].shape[2], 1 * args[0].shape[2], 1,
// CHECK-NEXT: args[1].data, args[1].data, 0, args[1].shape[0], 1);
func.func @dynamic(%a: memref<?x64x?xf32>, %b: memref<?xf16>) {
  return
}

// -----

// The extents a linalg op's loops tie together, checked at the call: C's
// rows (dynamic) must equal A's rows (dynamic, the class's first); B's rows
// (dynamic) must equal A's columns (static 64), also through a memref.cast.
// CHECK-LABEL: static const PITExtentTie tied_ties[] = {
// CHECK-NEXT: {1, 0, -1, -1, 64},
// CHECK-NEXT: {2, 0, 0, 0, -1},
// CHECK-NEXT: };
// CHECK-NEXT: static const int64_t tied_numTies = 2;
func.func @tied(%a: memref<?x64xf32>, %b: memref<?x32xf32>, %c: memref<?x32xf32>) {
  %bs = memref.cast %b : memref<?x32xf32> to memref<64x32xf32>
  linalg.matmul ins(%a, %bs : memref<?x64xf32>, memref<64x32xf32>)
                outs(%c : memref<?x32xf32>)
  return
}

// -----

// expected-error @below {{a C entry point cannot return values; write the results into output arguments}}
func.func @returns(%a: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %0 = memref.load %a[%c0] : memref<4xf32>
  return %0 : f32
}
