// The PIT form of examples/sparse_matmul.mlir for 32x1 micro-tiles gathered
// along k: detect the non-zero micro-tiles of A, then compute every 32x64
// output tile from the gathered columns of A and rows of B only.
func.func @sparse_matmul_stile(%a: memref<256x256xf32>, %b: memref<256x128xf32>,
                               %c: memref<256x128xf32>) {
  %counts = memref.alloc() : memref<8xi32>
  %positions = memref.alloc() : memref<8x256xi32>
  pit.detect %a micro_tile [32, 1] axis 1 into %counts, %positions
      : memref<256x256xf32>, memref<8xi32>, memref<8x256xi32>
  pit.stile (%m, %n, %k) segment(%s) counts(%counts : memref<8xi32>)
      domain [256, 128, 256] tile [32, 64, 32] micro_tile [32, 1] pit_axis 2
      sparse_map affine_map<(m, n, k) -> (m, k)> {
    %ta = memref.alloca() : memref<32x32xf32>
    %tb = memref.alloca() : memref<32x64xf32>
    %tc = memref.alloca() : memref<32x64xf32>
    %count_i32 = memref.load %counts[%s] : memref<8xi32>
    %count = arith.index_cast %count_i32 : i32 to index
    pit.sread %a[%m, %k] into %ta gather %positions[%s] count %count axis 1 micro 1
        : memref<256x256xf32> to memref<32x32xf32>, memref<8x256xi32>
    pit.sread %b[%k, %n] into %tb gather %positions[%s] count %count axis 0 micro 1
        : memref<256x128xf32> to memref<32x64xf32>, memref<8x256xi32>
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%tc : memref<32x64xf32>)
    linalg.matmul ins(%ta, %tb : memref<32x32xf32>, memref<32x64xf32>)
                  outs(%tc : memref<32x64xf32>)
    pit.swrite %tc into %c[%m, %n] combine <add>
        : memref<32x64xf32> to memref<256x128xf32>
  }
  memref.dealloc %positions : memref<8x256xi32>
  memref.dealloc %counts : memref<8xi32>
  return
}
