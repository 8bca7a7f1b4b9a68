// A program on tensors goes through the same pipelines: pit-bufferize makes
// the arguments memrefs and writes the returned C into the argument C.
// RUN: pit-opt %s --pit-bufferize | FileCheck %s --check-prefix=BUFFERS
// RUN: pit-opt %s --pit-cpu-pipeline | FileCheck %s --check-prefix=CPU
// RUN: pit-opt %s --pit-to-ptx="chip=sm_90" | FileCheck %s --check-prefix=PTX

// BUFFERS-LABEL: func.func @sparse_matmul
// BUFFERS-SAME: (%{{.+}}: memref<256x256xf16>, %{{.+}}: memref<256x128xf16>, %[[C:.+]]: memref<256x128xf32>) {
// BUFFERS: linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>} {{.+}} outs(%[[C]] : memref<256x128xf32>)
// BUFFERS: return{{$}}
// CPU: llvm.func @sparse_matmul({{.+}}) {
// CPU-NOT: tensor
// PTX: llvm.func @sparse_matmul({{.+}}) {
// PTX: gpu.launch_func
func.func @sparse_matmul(%a: tensor<256x256xf16>, %b: tensor<256x128xf16>, %c: tensor<256x128xf32>) -> tensor<256x128xf32> {
  %r = linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : tensor<256x256xf16>, tensor<256x128xf16>) outs(%c : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %r : tensor<256x128xf32>
}
