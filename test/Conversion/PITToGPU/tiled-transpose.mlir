// A 2-D linalg.transpose of whole 32 x 32 tiles (pit-transpose-matmul-b's
// copy of W) runs as a kernel of a block per tile: 256 threads read the
// tile's rows into shared memory (32 x 33: a padding column), meet, and
// write its columns as rows of the target. Other transposes keep the
// grid-stride kernel.
// RUN: pit-opt %s -split-input-file --convert-pit-to-gpu | FileCheck %s

// CHECK-LABEL: func @tiled
// CHECK-DAG: %[[TILES:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[THREADS:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[TILES]], {{.*}}) threads({{.*}}) in ({{.*}} = %[[THREADS]], {{.*}}) workgroup(%[[TILE:.*]] : memref<32x33xf16, #gpu.address_space<workgroup>>)
// CHECK-COUNT-4: memref.store {{.*}}, %[[TILE]]
// CHECK: gpu.barrier
// CHECK-COUNT-4: memref.store {{.*}} : memref<32x64xf16>
// CHECK-NOT: linalg.transpose
func.func @tiled(%w: memref<64x32xf16>, %copy: memref<32x64xf16>) {
  linalg.transpose ins(%w : memref<64x32xf16>) outs(%copy : memref<32x64xf16>) permutation = [1, 0]
  return
}

// -----

// 48 rows are not whole tiles: the grid-stride kernel, no shared memory.
// CHECK-LABEL: func @partial
// CHECK: gpu.launch
// CHECK-NOT: workgroup
// CHECK-NOT: linalg.transpose
func.func @partial(%w: memref<48x32xf16>, %copy: memref<32x48xf16>) {
  linalg.transpose ins(%w : memref<48x32xf16>) outs(%copy : memref<32x48xf16>) permutation = [1, 0]
  return
}
