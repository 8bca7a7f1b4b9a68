// y = x W^T with W stored n by k (nn.Linear's layout), unmarked: the dense
// matmul kernel reads W as it is stored. On sm_90a its copying warpgroup
// copies W's chunks with the TMA in boxes of 64 rows of n x 64 of k (W's
// tensor map is 512 x 256, k innermost), which land in wgmma's own layout
// for B (k-major: "col"). No copy of W is made.
// RUN: pit-opt %s --pit-gpu-strategy="chip=sm_90a multiprocessors=1" --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations | FileCheck %s
// Without TMA copies (mma-tensor-copies=false) or on sm_80 (mma.sync), the
// kernel reads B k by n: W is first transposed into a 256 x 512 copy by the
// tiled transpose kernel (32 x 32 tiles: 128 blocks of 256 threads).
// RUN: pit-opt %s --pit-gpu-strategy="chip=sm_90a multiprocessors=1 mma-tensor-copies=false" --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations | FileCheck %s --check-prefix=COPY
// RUN: pit-opt %s --pit-gpu-strategy="chip=sm_80" --convert-pit-to-gpu="chip=sm_80" --pit-gpu-coalesce-allocations | FileCheck %s --check-prefixes=COPY,SYNC

#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @linear
// CHECK-SAME: %[[W:[a-z0-9]+]]: memref<512x256xf16>
// CHECK-NOT: memref.alloc
// CHECK-NOT: gpu.alloc
// CHECK: memref.extract_aligned_pointer_as_index %[[W]]
// CHECK: call @pitCudaTensorMap2D(%{{.+}}, %c512_i64{{.*}}, %c256_i64{{.*}}, %c64_i64{{.*}}, %c64_i64{{.*}})
// CHECK: gpu.launch
// CHECK: nvvm.wgmma.mma_async {{.+}} A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]

// COPY-LABEL: func.func @linear
// COPY-SAME: %[[W:[a-z0-9]+]]: memref<512x256xf16>
// COPY: %[[COPY:.+]] = gpu.alloc {{.*}}() : memref<256x512xf16>
// COPY: gpu.launch {{.+}} in (%{{.+}} = %c128{{.*}}, {{.+}}) threads({{.+}}) in (%{{.+}} = %c256{{.*}}, {{.+}}) workgroup(%{{.+}} : memref<32x33xf16, #gpu.address_space<workgroup>>)
// COPY: memref.load %[[W]]
// COPY: memref.store %{{.+}}, %[[COPY]]
// COPY: gpu.launch
// SYNC: nvgpu.mma.sync
// COPY: gpu.dealloc {{.*}}%[[COPY]]
func.func @linear(%x: memref<256x256xf16>, %w: memref<512x256xf16>, %y: memref<256x512xf16>) {
  %zero = arith.constant 0.0 : f16
  linalg.fill ins(%zero : f16) outs(%y : memref<256x512xf16>)
  linalg.matmul indexing_maps = [#a, #w, #c]
      ins(%x, %w : memref<256x256xf16>, memref<512x256xf16>) outs(%y : memref<256x512xf16>)
  return
}
