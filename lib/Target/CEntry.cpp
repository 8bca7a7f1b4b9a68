//===- CEntry.cpp - Checked C entry points for compiled functions ---------===//

#include "PIT/Target/CEntry.h"

#include "PIT/InitAllPIT.h"
#include "PIT/Target/ExtentTies.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Tools/mlir-translate/Translation.h"

using namespace mlir;
using namespace mlir::pit;

namespace {

/// The PITDType enumerator of an element type (PIT-runtime/Entry.h).
std::optional<StringRef> getDTypeName(Type type) {
  if (type.isF16())
    return StringRef("PIT_F16");
  if (type.isBF16())
    return StringRef("PIT_BF16");
  if (type.isF32())
    return StringRef("PIT_F32");
  if (type.isF64())
    return StringRef("PIT_F64");
  if (type.isSignlessInteger(8))
    return StringRef("PIT_I8");
  if (type.isSignlessInteger(32))
    return StringRef("PIT_I32");
  if (type.isSignlessInteger(64))
    return StringRef("PIT_I64");
  return std::nullopt;
}

LogicalResult checkSignature(func::FuncOp func) {
  if (func.getNumResults() != 0)
    return func.emitError(
        "a C entry point cannot return values; write the results into output "
        "arguments (on tensors, return only what updates an argument in "
        "place, such as a linalg op's destination)");
  for (auto [number, type] : llvm::enumerate(func.getArgumentTypes())) {
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref || !memref.getLayout().isIdentity() ||
        !getDTypeName(memref.getElementType()))
      return func.emitError("argument ")
             << number << " has type " << type
             << "; a C entry point takes row-major memrefs of f16, bf16, "
                "f32, f64, i8, i32 or i64"
             << (isa<TensorType>(type)
                     ? " (bufferize a program on tensors first: pit-opt "
                       "--pit-bufferize)"
                     : "");
  }
  return success();
}

/// C expressions of argument `number`'s extents: a constant, or its
/// checked tensor's extent where the type's is dynamic.
SmallVector<std::string> getExtentExpressions(MemRefType type,
                                              size_t number) {
  SmallVector<std::string> extents;
  for (auto [dim, extent] : llvm::enumerate(type.getShape()))
    extents.push_back(ShapedType::isDynamic(extent)
                          ? ("args[" + Twine(number) + "].shape[" +
                             Twine(dim) + "]")
                                .str()
                          : std::to_string(extent));
  return extents;
}

/// C expressions of the row-major strides of `extents`: constants folded,
/// dynamic extents multiplied in.
SmallVector<std::string> getRowMajorStrides(ArrayRef<std::string> extents) {
  SmallVector<std::string> strides(extents.size());
  int64_t constant = 1;
  std::string dynamic;
  for (int64_t dim = extents.size() - 1; dim >= 0; --dim) {
    strides[dim] = dynamic.empty() ? std::to_string(constant)
                                   : std::to_string(constant) + dynamic;
    int64_t value;
    if (StringRef(extents[dim]).getAsInteger(10, value))
      dynamic += " * " + extents[dim];
    else
      constant *= value;
  }
  return strides;
}

/// The extents the function's linalg ops tie together, which
/// pitCheckExtentTies compares at the call (ExtentTies.h).
void emitExtentTies(func::FuncOp func, raw_ostream &os) {
  StringRef name = func.getSymName();
  SmallVector<ExtentTie> ties = getExtentTies(func);
  os << "static const PITExtentTie " << name << "_ties[] = {\n";
  for (const ExtentTie &tie : ties)
    os << "    {" << tie.argument << ", " << tie.dim << ", "
       << tie.otherArgument << ", " << tie.otherDim << ", " << tie.extent
       << "},\n";
  if (ties.empty())
    os << "    {0, 0, 0, 0, 0},\n";
  os << "};\nstatic const int64_t " << name << "_numTies = " << ties.size()
     << ";\n";
}

void emitEntry(func::FuncOp func, raw_ostream &os) {
  StringRef name = func.getSymName();
  SmallVector<MemRefType> types;
  for (Type type : func.getArgumentTypes())
    types.push_back(cast<MemRefType>(type));

  // The compiled function, in the calling convention func-to-llvm gives a
  // memref: allocated and aligned pointers, offset, sizes, strides.
  os << "extern void " << name << "(";
  bool first = true;
  for (MemRefType type : types) {
    os << (first ? "" : ", ") << "void *, void *, int64_t";
    for (int64_t i = 0; i < 2 * type.getRank(); ++i)
      os << ", int64_t";
    first = false;
  }
  os << (types.empty() ? "void" : "") << ");\n\n";

  // A dynamic extent is -1 in the spec: pitCheckArgs takes any there.
  for (auto [number, type] : llvm::enumerate(types)) {
    os << "static const int64_t " << name << "_shape" << number << "[] = {";
    llvm::interleaveComma(type.getShape(), os, [&](int64_t extent) {
      os << (ShapedType::isDynamic(extent) ? -1 : extent);
    });
    os << "};\n";
  }
  emitExtentTies(func, os);
  os << "static const PITArgSpec " << name << "_args[] = {\n";
  for (auto [number, type] : llvm::enumerate(types))
    os << "    {\"arg" << number << "\", " << *getDTypeName(type.getElementType())
       << ", " << type.getRank() << ", " << name << "_shape" << number
       << "},\n";
  if (types.empty())
    os << "    {0, 0, 0, 0},\n";
  os << "};\n\n";

  // The call's host code, on the checked tensors: pitRunCall runs it, or
  // launches the graph of an earlier call with the same tensors.
  os << "static void " << name << "_call(const void *closure) {\n";
  if (types.empty())
    os << "  (void)closure;\n";
  else
    os << "  const PITTensor *args = (const PITTensor *)closure;\n";
  os << "  " << name << "(";
  first = true;
  for (auto [number, type] : llvm::enumerate(types)) {
    os << (first ? "" : ",\n      ") << "args[" << number << "].data, args["
       << number << "].data, 0";
    SmallVector<std::string> extents = getExtentExpressions(type, number);
    for (const std::string &extent : extents)
      os << ", " << extent;
    for (const std::string &stride : getRowMajorStrides(extents))
      os << ", " << stride;
    first = false;
  }
  os << ");\n}\n\n";
  os << "PIT_ENTRY_EXPORT int pit_" << name
     << "(const PITTensor *args, int64_t numArgs) {\n";
  os << "  if (pitCheckArgs(\"" << name << "\", " << name << "_args, "
     << types.size() << ", args, numArgs) ||\n      pitCheckExtentTies(\""
     << name << "\", " << name << "_ties, " << name
     << "_numTies, args))\n    return 1;\n";
  os << "  pitRunCall(" << name << "_call, args, numArgs);\n";
  os << "  return pitFinishCall(\"" << name << "\");\n}\n\n";
}

} // namespace

LogicalResult mlir::pit::translateToCEntry(ModuleOp module, raw_ostream &os) {
  SmallVector<func::FuncOp> entries;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      entries.push_back(func);
  for (func::FuncOp func : entries)
    if (failed(checkSignature(func)))
      return failure();
  os << "// Checked C entry points, generated by pit-translate "
        "--pit-to-c-entry.\n// Do not edit.\n\n";
  os << "#include \"PIT-runtime/Entry.h\"\n\n#include <stdint.h>\n\n";
  for (func::FuncOp func : entries)
    emitEntry(func, os);
  return success();
}

void mlir::pit::registerToCEntryTranslation() {
  TranslateFromMLIRRegistration registration(
      "pit-to-c-entry",
      "Write checked C entry points for the module's public functions",
      [](ModuleOp module, raw_ostream &os) {
        return translateToCEntry(module, os);
      },
      [](DialectRegistry &registry) {
        registerAllDialects(registry);
        registerAllPITDialects(registry);
      });
}
