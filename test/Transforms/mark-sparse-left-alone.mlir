// Operations the mark does not fit are left alone, with a remark that says why.
// RUN: pit-opt %s --pit-mark-sparse="op-name=arith.addf operand=1 micro-tiles=32x1" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ADDF
// RUN: pit-opt %s --pit-mark-sparse="op-name=arith.negf operand=1 micro-tiles=32x1" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NEGF

// ADDF: remark: pit-mark-sparse: left alone, operand 1 is not ranked with the micro-tiles' rank 2
// ADDF-NEXT: arith.addf %{{.+}} : f32
// ADDF: remark: pit-mark-sparse: left alone, operand 1 is not ranked with the micro-tiles' rank 2
// ADDF-NEXT: arith.addf %{{.+}} : tensor<64xf32>
// ADDF-NOT: remark
// ADDF-LABEL: func.func @left_alone
// ADDF: arith.addf %{{.+}} : f32
// ADDF: arith.addf %{{.+}} : tensor<64xf32>
// ADDF: arith.addf %{{.+}} {pit.sparse = #pit.sparse<operand = 1, micro_tiles = [32x1]>} : tensor<64x64xf32>

// NEGF: remark: pit-mark-sparse: left alone, it has no operand 1
// NEGF-NOT: pit.sparse

func.func @left_alone(%s: f32, %v: tensor<64xf32>, %m: tensor<64x64xf32>)
    -> (f32, tensor<64xf32>, tensor<64x64xf32>) {
  %0 = arith.addf %s, %s : f32
  %1 = arith.addf %v, %v : tensor<64xf32>
  %2 = arith.addf %m, %m : tensor<64x64xf32>
  %3 = arith.negf %m : tensor<64x64xf32>
  return %0, %1, %2 : f32, tensor<64xf32>, tensor<64x64xf32>
}
