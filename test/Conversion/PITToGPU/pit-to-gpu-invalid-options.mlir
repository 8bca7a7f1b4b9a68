// Every option of convert-pit-to-gpu out of its range is an error that
// names it, before anything runs.
// RUN: not pit-opt %s --convert-pit-to-gpu="threads-per-block=0" 2>&1 | FileCheck %s --check-prefix=THREADS0
// RUN: not pit-opt %s --convert-pit-to-gpu="threads-per-block=-1" 2>&1 | FileCheck %s --check-prefix=THREADSNEG
// RUN: not pit-opt %s --convert-pit-to-gpu="threads-per-block=100" 2>&1 | FileCheck %s --check-prefix=THREADSWARP
// RUN: not pit-opt %s --convert-pit-to-gpu="threads-per-block=2048" 2>&1 | FileCheck %s --check-prefix=THREADSBIG
// RUN: not pit-opt %s --convert-pit-to-gpu="mma-block-columns=0" 2>&1 | FileCheck %s --check-prefix=COLUMNS0
// RUN: not pit-opt %s --convert-pit-to-gpu="mma-block-columns=-64" 2>&1 | FileCheck %s --check-prefix=COLUMNSNEG
// RUN: not pit-opt %s --convert-pit-to-gpu="mma-block-columns=12" 2>&1 | FileCheck %s --check-prefix=COLUMNS12
// RUN: not pit-opt %s --convert-pit-to-gpu="mma-chunk=-1" 2>&1 | FileCheck %s --check-prefix=CHUNKNEG
// RUN: not pit-opt %s --convert-pit-to-gpu="mma-chunk=24" 2>&1 | FileCheck %s --check-prefix=CHUNK24
// RUN: not pit-opt %s --convert-pit-to-gpu="mma-stages=0" 2>&1 | FileCheck %s --check-prefix=STAGES0
// RUN: not pit-opt %s --convert-pit-to-gpu="mma-stages=5" 2>&1 | FileCheck %s --check-prefix=STAGES5
// RUN: not pit-opt %s --convert-pit-to-gpu="mma-cluster-blocks=0" 2>&1 | FileCheck %s --check-prefix=CLUSTERS
// RUN: not pit-opt %s --convert-pit-to-gpu="chip=bogus" 2>&1 | FileCheck %s --check-prefix=BOGUS
// RUN: not pit-opt %s --convert-pit-to-gpu="chip=sm_75" 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not pit-opt %s --convert-pit-to-gpu="chip=sm_80a" 2>&1 | FileCheck %s --check-prefix=SUFFIX
// RUN: not pit-opt %s --pit-to-ptx="chip=sm_90x" 2>&1 | FileCheck %s --check-prefix=PIPELINE
// The values at the edges of each range are taken.
// RUN: pit-opt %s --convert-pit-to-gpu="threads-per-block=32 mma-block-columns=8 mma-chunk=0 mma-stages=1 mma-cluster-blocks=1 chip=sm_80"
// RUN: pit-opt %s --convert-pit-to-gpu="threads-per-block=1024 mma-block-columns=1024 mma-chunk=1024 mma-stages=4 chip=sm_121a"

// THREADS0: error: convert-pit-to-gpu: threads-per-block must be a multiple of 32 from 32 to 1024, got 0
// THREADSNEG: error: convert-pit-to-gpu: threads-per-block must be a multiple of 32 from 32 to 1024, got -1
// THREADSWARP: error: convert-pit-to-gpu: threads-per-block must be a multiple of 32 from 32 to 1024, got 100
// THREADSBIG: error: convert-pit-to-gpu: threads-per-block must be a multiple of 32 from 32 to 1024, got 2048
// COLUMNS0: error: convert-pit-to-gpu: mma-block-columns must be a multiple of 8 from 8 to 1024, got 0
// COLUMNSNEG: error: convert-pit-to-gpu: mma-block-columns must be a multiple of 8 from 8 to 1024, got -64
// COLUMNS12: error: convert-pit-to-gpu: mma-block-columns must be a multiple of 8 from 8 to 1024, got 12
// CHUNKNEG: error: convert-pit-to-gpu: mma-chunk must be 0 (the STile's k tile) or a multiple of 16 up to 1024, got -1
// CHUNK24: error: convert-pit-to-gpu: mma-chunk must be 0 (the STile's k tile) or a multiple of 16 up to 1024, got 24
// STAGES0: error: convert-pit-to-gpu: mma-stages must be from 1 to 4, got 0
// STAGES5: error: convert-pit-to-gpu: mma-stages must be from 1 to 4, got 5
// CLUSTERS: error: convert-pit-to-gpu: mma-cluster-blocks must be 1 or 2, got 0
// BOGUS: error: convert-pit-to-gpu: chip: 'bogus' is not a chip PIT compiles for
// OLD: error: convert-pit-to-gpu: chip: 'sm_75' is not a chip PIT compiles for
// SUFFIX: error: convert-pit-to-gpu: chip: 'sm_80a' has a suffix that only 'a' from sm_90 on may be
// PIPELINE: error: convert-pit-to-gpu: chip: 'sm_90x' has a suffix

func.func @f(%a: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.copy ins(%a : memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
