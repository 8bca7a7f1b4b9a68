func.func @bad(%a: memref<128x256xf16>, %c: memref<4xi32>, %p: memref<4x256xi32>) {
  pit.detect %a micro_tile [32, 1] axis 7 into %c, %p : memref<128x256xf16>, memref<4xi32>, memref<4x256xi32>
  return
}
