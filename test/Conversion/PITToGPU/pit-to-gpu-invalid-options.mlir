// Every option of convert-pit-to-gpu out of its range is an error that
// names it, before anything runs.
// RUN: not pit-opt %s --convert-pit-to-gpu="threads-per-block=0" --pit-gpu-coalesce-allocations 2>&1 | FileCheck %s --check-prefix=THREADS0
// RUN: not pit-opt %s --convert-pit-to-gpu="threads-per-block=-1" --pit-gpu-coalesce-allocations 2>&1 | FileCheck %s --check-prefix=THREADSNEG
// RUN: not pit-opt %s --convert-pit-to-gpu="threads-per-block=100" --pit-gpu-coalesce-allocations 2>&1 | FileCheck %s --check-prefix=THREADSWARP
// RUN: not pit-opt %s --convert-pit-to-gpu="threads-per-block=2048" --pit-gpu-coalesce-allocations 2>&1 | FileCheck %s --check-prefix=THREADSBIG
// RUN: not pit-opt %s --convert-pit-to-gpu="chip=bogus" --pit-gpu-coalesce-allocations 2>&1 | FileCheck %s --check-prefix=BOGUS
// RUN: not pit-opt %s --convert-pit-to-gpu="chip=sm_75" --pit-gpu-coalesce-allocations 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not pit-opt %s --convert-pit-to-gpu="chip=sm_80a" --pit-gpu-coalesce-allocations 2>&1 | FileCheck %s --check-prefix=SUFFIX
// RUN: not pit-opt %s --pit-to-ptx="chip=sm_90x" 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: not pit-opt %s --convert-pit-to-gpu="tensor-cores=maybe" 2>&1 | FileCheck %s --check-prefix=BOOL
// RUN: not pit-opt %s --pit-to-ptx="format=bogus" 2>&1 | FileCheck %s --check-prefix=FORMAT
// The values at the edges of each range are taken.
// RUN: pit-opt %s --convert-pit-to-gpu="threads-per-block=32 chip=sm_80" --pit-gpu-coalesce-allocations
// RUN: pit-opt %s --convert-pit-to-gpu="threads-per-block=1024 chip=sm_121a" --pit-gpu-coalesce-allocations

// THREADS0: error: convert-pit-to-gpu: threads-per-block must be a multiple of 32 from 32 to 1024, got 0
// THREADSNEG: error: convert-pit-to-gpu: threads-per-block must be a multiple of 32 from 32 to 1024, got -1
// THREADSWARP: error: convert-pit-to-gpu: threads-per-block must be a multiple of 32 from 32 to 1024, got 100
// THREADSBIG: error: convert-pit-to-gpu: threads-per-block must be a multiple of 32 from 32 to 1024, got 2048
// BOGUS: error: convert-pit-to-gpu: chip: 'bogus' is not a chip PIT compiles for
// OLD: error: convert-pit-to-gpu: chip: 'sm_75' is not a chip PIT compiles for
// SUFFIX: error: convert-pit-to-gpu: chip: 'sm_80a' has a suffix that only 'a' from sm_90 on may be
// PIPELINE: error: pit-gpu-strategy: chip: 'sm_90x' has a suffix
// BOOL: for the --tensor-cores option: 'maybe' is invalid value for boolean argument
// FORMAT: error: pit-to-ptx: format must be isa, bin or fatbin, not 'bogus'

func.func @f(%a: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.copy ins(%a : memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
