// pit_manifest(), the JSON from which PIT's runtime calls a library, the
// same whichever driver compiled it: target, each public function's
// arguments (element type, shape; a dynamic extent is negative) and the
// extents its loops tie together.
// RUN: pit-translate --pit-to-c-manifest --pit-manifest-target=sm_90a %s | FileCheck %s
// RUN: pit-translate --pit-to-c-manifest --pit-manifest-target=cpu %s | FileCheck %s --check-prefix=CPU
// RUN: not pit-translate --pit-to-c-manifest %S/../Inputs/c-manifest-invalid.mlir 2>&1 | FileCheck %s --check-prefix=INVALID

// CHECK: __attribute__((visibility("default"))) const char *pit_manifest(void) {
// CHECK-NEXT: return "{\"functions\":[{\"args\":[{\"dtype\":\"f16\",\"shape\":[-9223372036854775808,64]},{\"dtype\":\"f16\",\"shape\":[64,32]},{\"dtype\":\"f32\",\"shape\":[-9223372036854775808,32]}],
// CHECK-SAME: \"name\":\"rows\",\"ties\":{{\[\[}}2,0,0,0,-1{{\]\]}}}],\"target\":\"sm_90a\"}";
// CPU: \"target\":\"cpu\"
// INVALID: error: argument 0 of 'scalar' has type 'f32'; compiled functions take memrefs

func.func @rows(%a: memref<?x64xf16>, %b: memref<64x32xf16>, %c: memref<?x32xf32>) {
  linalg.matmul ins(%a, %b : memref<?x64xf16>, memref<64x32xf16>) outs(%c : memref<?x32xf32>)
  return
}

func.func private @helper(%a: memref<4xf32>) {
  return
}
