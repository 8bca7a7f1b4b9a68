//===- PITDialect.td - The pit dialect ---------------------*- tablegen -*-===//
//
// The dialect of Permutation Invariant Transformation (PIT): dense computation
// tiles gathered from scattered micro-tiles of a dynamically sparse operand.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_DIALECT_PIT_IR_PITDIALECT_TD
#define PIT_DIALECT_PIT_IR_PITDIALECT_TD

include "mlir/IR/OpBase.td"

def PIT_Dialect : Dialect {
  let name = "pit";
  let cppNamespace = "::mlir::pit";
  let summary = "Permutation invariant transformation of dynamically sparse operators";
  let description = [{
    The `pit` dialect sits between `linalg` and `gpu`. It expresses the PIT
    method (SOSP'23, "Optimization of Dynamic Sparse Deep Learning Models via
    Permutation Invariant Transformation"): along an axis on which an operator
    is permutation invariant, the non-zero micro-tiles of a dynamically sparse
    operand may be gathered, in any order, into a dense computation tile,
    computed with a dense kernel, and scattered back.

    * `pit.detect` builds, at run time, the index of the non-zero micro-tiles
      of an operand. The index is unordered: permutation invariance lets it be
      built with atomics and no synchronisation.
    * `pit.stile` runs its body once for every dense computation tile of an
      iteration domain whose PIT axis is compacted by that index.
    * `pit.sread` gathers the micro-tiles selected by the index into a dense
      tile; `pit.swrite` scatters (and optionally combines) a dense tile back
      to its original positions.

    The ops work on buffers (memrefs): they are produced after bufferization
    and lower to loops on the CPU or to gpu kernels. A linalg operation names
    its dynamically sparse operand with the discardable `pit.sparse`
    attribute, which this dialect verifies. The GPU lowering marks, with the
    discardable unit attribute `pit.dependent_wait`, where a kernel of a
    run-time selection starts to depend on the kernels before it (the
    `pit-dependent-launch` pass puts its wait there).
  }];
  let useDefaultAttributePrinterParser = 1;
  // Verifies the discardable `pit.sparse` and `pit.dependent_wait` marks on
  // the ops they are attached to.
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();

    /// Name of the discardable attribute that marks a dynamically sparse
    /// operand on a linalg operation.
    static constexpr ::llvm::StringLiteral getSparseAttrName() {
      return ::llvm::StringLiteral("pit.sparse");
    }

    /// Name of the discardable attribute that records, on a matmul STile or
    /// a dense matmul, the tensor-core kernel pit-gpu-strategy chose for it
    /// (#pit.mma_config).
    static constexpr ::llvm::StringLiteral getMmaConfigAttrName() {
      return ::llvm::StringLiteral("pit.mma_config");
    }

    /// Name of the discardable unit attribute that marks, in a kernel, the
    /// point (an empty inline asm) where it starts to depend on the kernels
    /// before it in the stream: pit-dependent-launch puts its wait for them
    /// there instead of at the kernel's start. A guarded kernel that reads
    /// the choice early and is not chosen ends before it, without waiting.
    static constexpr ::llvm::StringLiteral getDependentWaitAttrName() {
      return ::llvm::StringLiteral("pit.dependent_wait");
    }
  }];
}

class PIT_Op<string mnemonic, list<Trait> traits = []>
    : Op<PIT_Dialect, mnemonic, traits>;

#endif // PIT_DIALECT_PIT_IR_PITDIALECT_TD
