//===- BlockMmaDetail.h - What the BlockMma files share ---------*- C++ -*-===//
//
// The helpers and constants that the files of BlockMma's mechanisms
// (mma.sync, wgmma, the TMA, warp specialisation, stage barriers) share;
// not part of BlockMma's interface.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_LIB_CONVERSION_PITTOGPU_BLOCKMMADETAIL_H
#define PIT_LIB_CONVERSION_PITTOGPU_BLOCKMMADETAIL_H

#include "BlockMma.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

namespace mlir::pit::detail {

/// wgmma's 128-byte swizzle: rows of kSwizzleRowElements f16/bf16 elements,
/// 8 rows (1024 bytes) to one pattern of the 16-byte pieces.
constexpr int64_t kSwizzleAtomBytes = 1024;

/// `c + a x b` on the tensor cores, m16n8k16 (MmaSync.cpp).
Value buildMma(OpBuilder &b, Location loc, Value a, Value bFragment, Value c);

/// LLVM pointers into this block's shared memory, and into the shared
/// memory of the blocks of its cluster (addresses from nvvm.mapa).
LLVM::LLVMPointerType sharedPointerType(MLIRContext *context);
LLVM::LLVMPointerType clusterPointerType(MLIRContext *context);

/// The shared-memory pointer `offset` (index) bytes past shared address
/// `address` (i64), as the TMA's instructions and nvvm.mapa take it.
Value sharedPointerAt(KernelBuilder &k, Value address, Value offset);

/// Orders this thread's writes to shared memory (stores, landed copies)
/// before reads through the async proxy (wgmma's, TMA's).
void fenceForAsyncProxy(OpBuilder &b, Location loc);

} // namespace mlir::pit::detail

#endif // PIT_LIB_CONVERSION_PITTOGPU_BLOCKMMADETAIL_H
