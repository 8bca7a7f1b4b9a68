//===- PITBindings.cpp - pit attributes and PIT's translations ------------===//

#include "IRObjects.h"

#include "PIT-c/Dialects.h"
#include "PIT-c/Target.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Dialect/GPU.h"

#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <functional>

#include <map>
#include <utility>

namespace pit::python {
namespace {

using MicroTile = std::vector<int64_t>;

Attribute getSparseAttr(nb::object contextObject, unsigned operand,
                        const std::vector<MicroTile> &microTiles) {
  Context &context = nb::cast<Context &>(contextObject);
  // Ragged lists are refused here; the attribute verifier reports the rest
  // (no candidates, mixed ranks, non-positive extents).
  size_t rank = microTiles.empty() ? 0 : microTiles.front().size();
  std::vector<int64_t> extents;
  for (const MicroTile &tile : microTiles) {
    if (tile.size() != rank)
      throw nb::value_error("all micro-tiles must have the same rank");
    extents.insert(extents.end(), tile.begin(), tile.end());
  }
  context.clearDiagnostics();
  MlirAttribute attr = mlirPITSparseAttrGet(
      context.get(), operand, microTiles.size(), rank, extents.data());
  if (mlirAttributeIsNull(attr))
    throwMLIRError(context, "invalid #pit.sparse attribute");
  return Attribute(contextObject, attr);
}

MlirAttribute requireSparseAttr(const Attribute &attribute) {
  if (!mlirAttributeIsAPITSparseAttr(attribute.get()))
    throw nb::type_error("expects a #pit.sparse attribute");
  return attribute.get();
}

Attribute getCombinerAttr(nb::object contextObject, const std::string &kind) {
  Context &context = nb::cast<Context &>(contextObject);
  context.clearDiagnostics();
  MlirAttribute attr = mlirPITCombinerAttrGet(
      context.get(), mlirStringRefCreate(kind.data(), kind.size()));
  if (mlirAttributeIsNull(attr))
    throwMLIRError(context, "invalid #pit.combiner attribute");
  return Attribute(contextObject, attr);
}

/// Runs one of PIT's C translations on `module` and returns its text.
std::string translate(
    const Module &module,
    const std::function<MlirLogicalResult(MlirOperation, MlirStringCallback,
                                          void *)> &translation,
    const char *what) {
  Context &context = module.getContext();
  context.clearDiagnostics();
  MlirLogicalResult result = mlirLogicalResultSuccess();
  std::string text = printToString([&](MlirStringCallback cb, void *d) {
    result = translation(module.getOperation(), cb, d);
  });
  if (mlirLogicalResultIsFailure(result))
    throwMLIRError(context, std::string("cannot translate the module to ") + what);
  return text;
}

/// The (symbol name, object bytes) of every gpu.binary at the top of the
/// module: PTX text or a cubin, as gpu-module-to-binary embedded them.
std::vector<std::pair<std::string, nb::bytes>>
getGPUBinaries(const Module &module) {
  std::vector<std::pair<std::string, nb::bytes>> binaries;
  MlirBlock body = mlirModuleGetBody(mlirModuleFromOperation(module.getOperation()));
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
    if (std::string(name.data, name.length) != "gpu.binary")
      continue;
    MlirAttribute symbol = mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString("sym_name"));
    MlirAttribute objects = mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString("objects"));
    MlirStringRef symbolName = mlirStringAttrGetValue(symbol);
    for (intptr_t i = 0, e = mlirArrayAttrGetNumElements(objects); i < e; ++i) {
      MlirStringRef object =
          mlirGPUObjectAttrGetObject(mlirArrayAttrGetElement(objects, i));
      binaries.emplace_back(std::string(symbolName.data, symbolName.length),
                            nb::bytes(object.data, object.length));
    }
  }
  return binaries;
}

using ExtentTie = std::vector<int64_t>;

/// {function: [[argument, dim, other argument, other dim, extent]]}: the
/// extents of each public function's arguments that its loops tie together.
std::map<std::string, std::vector<ExtentTie>>
getExtentTies(const Module &module) {
  std::map<std::string, std::vector<ExtentTie>> ties;
  Context &context = module.getContext();
  context.clearDiagnostics();
  auto collect = [](MlirStringRef function, PITExtentTie tie,
                    void *userData) {
    auto &ties =
        *static_cast<std::map<std::string, std::vector<ExtentTie>> *>(userData);
    ties[std::string(function.data, function.length)].push_back(
        {tie.argument, tie.dim, tie.otherArgument, tie.otherDim, tie.extent});
  };
  if (mlirLogicalResultIsFailure(
          mlirPITModuleGetExtentTies(module.getOperation(), collect, &ties)))
    throwMLIRError(context, "cannot read the module's extent ties");
  return ties;
}

} // namespace

void populatePITBindings(nb::module_ &m) {
  m.def("sparse_attr_get", &getSparseAttr, nb::arg("context"),
        nb::arg("operand"), nb::arg("micro_tiles"),
        "#pit.sparse<operand = N, micro_tiles = [...]>.");
  m.def("sparse_attr_operand", [](const Attribute &attr) {
    return mlirPITSparseAttrGetOperand(requireSparseAttr(attr));
  });
  m.def("sparse_attr_micro_tiles", [](const Attribute &attr) {
    MlirAttribute sparse = requireSparseAttr(attr);
    std::vector<MicroTile> tiles(mlirPITSparseAttrGetNumMicroTiles(sparse));
    intptr_t rank = mlirPITSparseAttrGetMicroTileRank(sparse);
    for (size_t tile = 0; tile < tiles.size(); ++tile)
      for (intptr_t dim = 0; dim < rank; ++dim)
        tiles[tile].push_back(
            mlirPITSparseAttrGetMicroTileExtent(sparse, tile, dim));
    return tiles;
  });
  m.def("is_sparse_attr", [](const Attribute &attr) {
    return mlirAttributeIsAPITSparseAttr(attr.get());
  });
  m.def("sparse_attr_name", [] {
    MlirStringRef name = mlirPITGetSparseAttrName();
    return std::string(name.data, name.length);
  });
  m.def("combiner_attr_get", &getCombinerAttr, nb::arg("context"),
        nb::arg("kind"), "#pit.combiner<kind>; kind is add, maxsi, ...");
  m.def("is_combiner_attr", [](const Attribute &attr) {
    return mlirAttributeIsAPITCombinerAttr(attr.get());
  });
  m.def("combiner_attr_kind", [](const Attribute &attr) {
    if (!mlirAttributeIsAPITCombinerAttr(attr.get()))
      throw nb::type_error("expects a #pit.combiner attribute");
    MlirStringRef kind = mlirPITCombinerAttrGetKind(attr.get());
    return std::string(kind.data, kind.length);
  });

  m.def(
      "translate_to_llvm_ir",
      [](const Module &module) {
        return translate(module, mlirPITTranslateModuleToLLVMIR, "LLVM IR");
      },
      nb::arg("module"),
      "The LLVM IR of a module lowered to the LLVM dialect.");
  m.def(
      "translate_to_c_entry",
      [](const Module &module) {
        return translate(module, mlirPITTranslateModuleToCEntry,
                         "C entry points");
      },
      nb::arg("module"),
      "C source of the checked entry points pit_NAME (PIT-runtime/Entry.h).");
  m.def(
      "translate_to_object",
      [](const Module &module) {
        std::string object = translate(module, mlirPITTranslateModuleToObject,
                                       "an object file");
        return nb::bytes(object.data(), object.size());
      },
      nb::arg("module"),
      "The host code of a lowered module as an object file for this machine "
      "(PIT/Target/ObjectFile.h): what pit-compile links too.");
  m.def(
      "translate_to_c_manifest",
      [](const Module &module, const std::string &target) {
        return translate(
            module,
            [&](MlirOperation op, MlirStringCallback callback, void *data) {
              return mlirPITTranslateModuleToCManifest(
                  op, mlirStringRefCreate(target.data(), target.size()),
                  callback, data);
            },
            "a manifest");
      },
      nb::arg("module"), nb::arg("target"),
      "C source of pit_manifest(), the JSON of the module's public functions "
      "compiled for `target` (PIT/Target/Manifest.h).");
  m.def("extent_ties", &getExtentTies, nb::arg("module"),
        "{function: [[argument, dim, other argument, other dim, extent]]}: "
        "the argument extents each public function's loops tie together "
        "(other argument < 0: the static extent).");
  m.def("gpu_binaries", &getGPUBinaries, nb::arg("module"),
        "[(gpu.binary symbol, object bytes)] of a module after pit-to-ptx.");
}

} // namespace pit::python
