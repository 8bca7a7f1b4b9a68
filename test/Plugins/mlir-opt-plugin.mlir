// Debian's stock mlir-opt (version 22) loads PIT as a dialect plugin and a pass plugin.
// RUN: mlir-opt %s --load-dialect-plugin=%pit_lib_dir/PITPlugin%shlibext \
// RUN:   --load-pass-plugin=%pit_lib_dir/PITPlugin%shlibext \
// RUN:   --pass-pipeline="builtin.module(pit-mark-sparse{op-name=linalg.matmul micro-tiles=16x16})" \
// RUN:   | FileCheck %s
// RUN: mlir-opt %s --load-dialect-plugin=%pit_lib_dir/PITPlugin%shlibext \
// RUN:   --load-pass-plugin=%pit_lib_dir/PITPlugin%shlibext \
// RUN:   --pass-pipeline="builtin.module(pit-mark-sparse{op-name=linalg.matmul micro-tiles=16x16},pit-strip-sparse-marks)" \
// RUN:   | FileCheck %s --check-prefix=STRIP
// Without the plugin, mlir-opt does not know the dialect.
// RUN: not mlir-opt %s 2>&1 | FileCheck %s --check-prefix=NO-PLUGIN

// NO-PLUGIN: error: Dialect `pit' not found for custom op 'pit.detect'

// CHECK-LABEL: func @plugin
// STRIP-LABEL: func @plugin
// STRIP-NOT: pit.sparse
func.func @plugin(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>,
                  %counts: memref<4xi32>, %positions: memref<4x4xi32>) {
  // CHECK: pit.detect %{{.+}} micro_tile [16, 16] axis 1
  pit.detect %a micro_tile [16, 16] axis 1 into %counts, %positions
      : memref<64x64xf32>, memref<4xi32>, memref<4x4xi32>
  // CHECK: linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [16x16]>}
  // STRIP: linalg.matmul ins
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
