// Every option of pit-gpu-strategy out of its range is an error that names
// it, before anything runs.
// RUN: not pit-opt %s --pit-gpu-strategy="mma-block-columns=0" 2>&1 | FileCheck %s --check-prefix=COLUMNS0
// RUN: not pit-opt %s --pit-gpu-strategy="mma-block-columns=-64" 2>&1 | FileCheck %s --check-prefix=COLUMNSNEG
// RUN: not pit-opt %s --pit-gpu-strategy="mma-block-columns=12" 2>&1 | FileCheck %s --check-prefix=COLUMNS12
// RUN: not pit-opt %s --pit-gpu-strategy="mma-chunk=-1" 2>&1 | FileCheck %s --check-prefix=CHUNKNEG
// RUN: not pit-opt %s --pit-gpu-strategy="mma-chunk=24" 2>&1 | FileCheck %s --check-prefix=CHUNK24
// RUN: not pit-opt %s --pit-gpu-strategy="mma-stages=0" 2>&1 | FileCheck %s --check-prefix=STAGES0
// RUN: not pit-opt %s --pit-gpu-strategy="mma-stages=5" 2>&1 | FileCheck %s --check-prefix=STAGES5
// RUN: not pit-opt %s --pit-gpu-strategy="mma-cluster-blocks=0" 2>&1 | FileCheck %s --check-prefix=CLUSTERS
// RUN: not pit-opt %s --pit-gpu-strategy="mma-cluster-blocks=3" 2>&1 | FileCheck %s --check-prefix=CLUSTERS3
// RUN: not pit-opt %s --pit-gpu-strategy="mma-k-splits=-1" 2>&1 | FileCheck %s --check-prefix=SPLITSNEG
// RUN: not pit-opt %s --pit-gpu-strategy="mma-k-splits=9" 2>&1 | FileCheck %s --check-prefix=SPLITS9
// RUN: not pit-opt %s --pit-gpu-strategy="multiprocessors=-1" 2>&1 | FileCheck %s --check-prefix=SMSNEG
// RUN: not pit-opt %s --pit-gpu-strategy="multiprocessors=1025" 2>&1 | FileCheck %s --check-prefix=SMS1025
// RUN: not pit-opt %s --pit-gpu-strategy="chip=sm_75" 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not pit-opt %s --pit-gpu-strategy="mma-specialize=maybe" 2>&1 | FileCheck %s --check-prefix=SPECIALIZE
// RUN: not pit-opt %s --pit-gpu-strategy="mma-tensor-copies=2" 2>&1 | FileCheck %s --check-prefix=COPIES
// The values at the edges of each range are taken.
// RUN: pit-opt %s --pit-gpu-strategy="chip=sm_80 mma-block-columns=8 mma-chunk=0 mma-stages=1 mma-cluster-blocks=1 mma-k-splits=0 multiprocessors=0"
// RUN: pit-opt %s --pit-gpu-strategy="chip=sm_121a mma-block-columns=1024 mma-chunk=1024 mma-stages=4 mma-cluster-blocks=2 mma-k-splits=8 multiprocessors=1024"

// COLUMNS0: error: pit-gpu-strategy: mma-block-columns must be a multiple of 8 from 8 to 1024, got 0
// COLUMNSNEG: error: pit-gpu-strategy: mma-block-columns must be a multiple of 8 from 8 to 1024, got -64
// COLUMNS12: error: pit-gpu-strategy: mma-block-columns must be a multiple of 8 from 8 to 1024, got 12
// CHUNKNEG: error: pit-gpu-strategy: mma-chunk must be 0 (the STile's k tile) or a multiple of 16 up to 1024, got -1
// CHUNK24: error: pit-gpu-strategy: mma-chunk must be 0 (the STile's k tile) or a multiple of 16 up to 1024, got 24
// STAGES0: error: pit-gpu-strategy: mma-stages must be from 1 to 4, got 0
// STAGES5: error: pit-gpu-strategy: mma-stages must be from 1 to 4, got 5
// CLUSTERS: error: pit-gpu-strategy: mma-cluster-blocks must be 1 or 2, got 0
// CLUSTERS3: error: pit-gpu-strategy: mma-cluster-blocks must be 1 or 2, got 3
// SPLITSNEG: error: pit-gpu-strategy: mma-k-splits must be from 0 (the strategy's) to 8, got -1
// SPLITS9: error: pit-gpu-strategy: mma-k-splits must be from 0 (the strategy's) to 8, got 9
// SMSNEG: error: pit-gpu-strategy: multiprocessors must be from 0 (the chip's) to 1024, got -1
// SMS1025: error: pit-gpu-strategy: multiprocessors must be from 0 (the chip's) to 1024, got 1025
// OLD: error: pit-gpu-strategy: chip: 'sm_75' is not a chip PIT compiles for
// SPECIALIZE: for the --mma-specialize option: 'maybe' is invalid value for boolean argument
// COPIES: for the --mma-tensor-copies option: '2' is invalid value for boolean argument

func.func @f(%a: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.copy ins(%a : memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
