// Options of pit-sparsify out of their range are errors that name them.
// RUN: not pit-opt %s --pit-sparsify="sample-every=-1" 2>&1 | FileCheck %s --check-prefix=SAMPLE
// RUN: not pit-opt %s --pit-sparsify="pit-loop=-2" 2>&1 | FileCheck %s --check-prefix=LOOP
// RUN: not pit-opt %s --pit-sparsify="variant=-2" 2>&1 | FileCheck %s --check-prefix=VARIANT
// RUN: not pit-opt %s --pit-sparsify="variant=0" 2>&1 | FileCheck %s --check-prefix=NOTABLE
// RUN: not pit-opt %s --pit-sparsify="candidate=-1" 2>&1 | FileCheck %s --check-prefix=CANDIDATE
// RUN: not pit-opt %s --pit-sparsify="latency-table=%t.missing.json" 2>&1 | FileCheck %s --check-prefix=TABLE
// RUN: not pit-opt %s --pit-cpu-pipeline="pit-loop=-5" 2>&1 | FileCheck %s --check-prefix=PIPELINE

// SAMPLE: error: pit-sparsify: sample-every must be 0 (no sample) or positive, got -1
// LOOP: error: pit-sparsify: pit-loop must be -1 (the analysis' choice) or a loop number, got -2
// VARIANT: error: pit-sparsify: variant must be -1 (choose at run time) or a variant number, got -2
// NOTABLE: error: pit-sparsify: variant must be -1 without a latency-table (variants come from it), got 0
// CANDIDATE: for the --candidate option: '-1' value invalid for uint argument
// TABLE: error: pit-sparsify: latency-table:
// PIPELINE: error: pit-sparsify: pit-loop must be -1 (the analysis' choice) or a loop number, got -5

func.func @f(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
