//===- TileTransfer.cpp - Element-level lowering of sread and swrite ------===//
//
// pit.sread and pit.swrite become loops over the elements of their tile that
// go through the micro-tile index. The CPU and GPU lowerings share this and
// differ only in who runs the loops and how combined writes are made.
//
//===----------------------------------------------------------------------===//

#include "PIT/Conversion/TileTransfer.h"

#include "PIT/Dialect/PIT/IR/PITCombiner.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::pit;

Value mlir::pit::constantIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

SmallVector<Value> mlir::pit::getMemRefExtents(OpBuilder &b, Location loc,
                                               Value memref) {
  SmallVector<Value> extents;
  auto type = cast<MemRefType>(memref.getType());
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    extents.push_back(
        type.isDynamicDim(dim)
            ? Value(memref::DimOp::create(b, loc, memref, dim))
            : constantIndex(b, loc, type.getDimSize(dim)));
  return extents;
}

/// `dest[indices] = kind(dest[indices], value)`, atomically: a hardware
/// atomic where one exists, a compare-and-swap loop otherwise.
static void buildAtomicCombine(OpBuilder &b, Location loc, CombinerKind kind,
                               Value value, Value dest, ValueRange indices) {
  bool isFloat = isa<FloatType>(value.getType());
  std::optional<arith::AtomicRMWKind> native;
  switch (kind) {
  case CombinerKind::Add:
    native = isFloat ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi;
    break;
  case CombinerKind::MaxSI:
    native = arith::AtomicRMWKind::maxs;
    break;
  case CombinerKind::MinSI:
    native = arith::AtomicRMWKind::mins;
    break;
  case CombinerKind::MaxUI:
    native = arith::AtomicRMWKind::maxu;
    break;
  case CombinerKind::MinUI:
    native = arith::AtomicRMWKind::minu;
    break;
  case CombinerKind::AndI:
    native = arith::AtomicRMWKind::andi;
    break;
  case CombinerKind::OrI:
    native = arith::AtomicRMWKind::ori;
    break;
  case CombinerKind::XOrI:
    native = arith::AtomicRMWKind::xori;
    break;
  default:
    break;
  }
  if (native) {
    memref::AtomicRMWOp::create(b, loc, *native, value, dest, indices);
    return;
  }
  auto rmw = memref::GenericAtomicRMWOp::create(b, loc, dest, indices);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(rmw.getBody());
  memref::AtomicYieldOp::create(
      b, loc, buildCombine(b, loc, kind, rmw.getCurrentValue(), value));
}

namespace {

/// Where a tile element lives in the buffer it is read from or written to,
/// through the index along the gathered dimension when there is one.
struct BufferAccess {
  SmallVector<Value> indices;
  /// False for padding past the segment's count; null when always valid.
  Value valid;

  /// Replaces the compacted coordinate by the original one, read from the
  /// index; only for elements under `valid`, so the index is never read
  /// past the count.
  void resolve(OpBuilder &b, Location loc) {
    Value position32 =
        memref::LoadOp::create(b, loc, positions, ValueRange{segment, slot});
    Value position =
        arith::IndexCastOp::create(b, loc, b.getIndexType(), position32);
    indices[axis] = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, position, micro), within);
  }

  Value positions, segment, slot, within, micro;
  int64_t axis = 0;
};

/// Computes the buffer coordinates of tile element `tileIvs`, in compacted
/// coordinates along the gathered dimension until resolved.
BufferAccess getBufferAccess(OpBuilder &b, Location loc, ValueRange offsets,
                             ValueRange tileIvs, Value positions,
                             Value segment, Value count,
                             std::optional<int64_t> axis,
                             std::optional<int64_t> micro) {
  BufferAccess access;
  for (auto [offset, iv] : llvm::zip(offsets, tileIvs))
    access.indices.push_back(arith::AddIOp::create(b, loc, offset, iv));
  if (!positions)
    return access;
  access.positions = positions;
  access.segment = segment;
  access.axis = *axis;
  access.micro = constantIndex(b, loc, *micro);
  Value compacted = access.indices[*axis];
  access.slot = arith::DivUIOp::create(b, loc, compacted, access.micro);
  access.within = arith::RemUIOp::create(b, loc, compacted, access.micro);
  access.valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       access.slot, count);
  return access;
}

} // namespace

void mlir::pit::lowerSReadToElements(RewriterBase &rewriter, SReadOp op,
                                     ElementLoopBuilder buildLoops) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  OpBuilder &b = rewriter;
  Type elementType = op.getDest().getType().getElementType();
  buildLoops(b, loc, getMemRefExtents(b, loc, op.getDest()),
             [&](OpBuilder &b, Location loc, ValueRange ivs) {
    BufferAccess access = getBufferAccess(
        b, loc, op.getOffsets(), ivs, op.getPositions(), op.getSegment(),
        op.getCount(), op.getAxis(), op.getMicro());
    Value value;
    if (!access.valid) {
      value = memref::LoadOp::create(b, loc, op.getSource(), access.indices);
    } else {
      auto ifOp = scf::IfOp::create(
          b, loc, access.valid,
          [&](OpBuilder &b, Location loc) {
            access.resolve(b, loc);
            scf::YieldOp::create(b, loc,
                                 ValueRange{memref::LoadOp::create(
                                     b, loc, op.getSource(), access.indices)});
          },
          [&](OpBuilder &b, Location loc) {
            // Padding reads as zero, the neutral element of a sum.
            scf::YieldOp::create(
                b, loc,
                ValueRange{arith::ConstantOp::create(
                    b, loc, b.getZeroAttr(elementType))});
          });
      value = ifOp.getResult(0);
    }
    memref::StoreOp::create(b, loc, value, op.getDest(), ivs);
  });
  rewriter.eraseOp(op);
}

void mlir::pit::lowerSWriteToElements(RewriterBase &rewriter, SWriteOp op,
                                      ElementLoopBuilder buildLoops,
                                      CombineWrite combineWrite) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  OpBuilder &b = rewriter;
  std::optional<CombinerKind> combiner = op.getCombiner();
  buildLoops(b, loc, getMemRefExtents(b, loc, op.getSource()),
             [&](OpBuilder &b, Location loc, ValueRange ivs) {
    Value value = memref::LoadOp::create(b, loc, op.getSource(), ivs);
    BufferAccess access = getBufferAccess(
        b, loc, op.getOffsets(), ivs, op.getPositions(), op.getSegment(),
        op.getCount(), op.getAxis(), op.getMicro());
    auto write = [&](OpBuilder &b, Location loc) {
      if (!combiner) {
        memref::StoreOp::create(b, loc, value, op.getDest(), access.indices);
      } else if (combineWrite == CombineWrite::Atomic) {
        buildAtomicCombine(b, loc, *combiner, value, op.getDest(),
                           access.indices);
      } else {
        Value old = memref::LoadOp::create(b, loc, op.getDest(), access.indices);
        memref::StoreOp::create(b, loc,
                                buildCombine(b, loc, *combiner, old, value),
                                op.getDest(), access.indices);
      }
    };
    if (!access.valid) {
      write(b, loc);
      return;
    }
    // Padding past the count is never written back.
    scf::IfOp::create(b, loc, access.valid, [&](OpBuilder &b, Location loc) {
      access.resolve(b, loc);
      write(b, loc);
      scf::YieldOp::create(b, loc);
    });
  });
  rewriter.eraseOp(op);
}

