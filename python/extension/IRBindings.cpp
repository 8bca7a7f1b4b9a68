//===- IRBindings.cpp - Context, module, operations, types, attributes ----===//

#include "IRObjects.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <map>
#include <optional>
#include <functional>
#include <tuple>

namespace pit::python {
namespace {

using FileLocation = std::tuple<std::string, int, int>;

MlirStringRef toStringRef(const std::string &text) {
  return mlirStringRefCreate(text.data(), text.size());
}

std::string toString(MlirStringRef text) {
  return std::string(text.data, text.length);
}

MlirLocation makeLocation(Context &context,
                          const std::optional<FileLocation> &location) {
  if (!location)
    return mlirLocationUnknownGet(context.get());
  auto &[file, line, column] = *location;
  return mlirLocationFileLineColGet(context.get(), toStringRef(file), line,
                                    column);
}

/// The `count(raw)` children `get(raw, i)` of a C API handle (operands,
/// regions, block arguments, function inputs ...), each wrapped with `owner`,
/// the object that keeps them alive.
template <typename Wrapper, typename Raw, typename Child>
std::vector<Wrapper> listChildren(const nb::object &owner, Raw raw,
                                  intptr_t (*count)(Raw),
                                  Child (*get)(Raw, intptr_t)) {
  std::vector<Wrapper> children;
  for (intptr_t i = 0, e = count(raw); i < e; ++i)
    children.emplace_back(owner, get(raw, i));
  return children;
}

/// A fresh root owning `operation`, which is not in any block.
nb::object makeRoot(nb::object context, MlirOperation operation) {
  return nb::cast(new IRRoot(std::move(context), operation),
                  nb::rv_policy::take_ownership);
}

void verifyOrThrow(Context &context, MlirOperation operation) {
  context.clearDiagnostics();
  if (!mlirOperationVerify(operation))
    throwMLIRError(context, "'" +
                                toString(mlirIdentifierStr(
                                    mlirOperationGetName(operation))) +
                                "' failed to verify");
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

Type parseType(nb::object contextObject, const std::string &text) {
  Context &context = nb::cast<Context &>(contextObject);
  context.clearDiagnostics();
  MlirType type = mlirTypeParseGet(context.get(), toStringRef(text));
  if (mlirTypeIsNull(type))
    throwMLIRError(context, "cannot parse type '" + text + "'");
  return Type(contextObject, type);
}

Type makeShapedType(const std::string &kind, const std::vector<int64_t> &shape,
                    const Type &elementType) {
  nb::object contextObject = elementType.getContextObject();
  Context &context = nb::cast<Context &>(contextObject);
  context.clearDiagnostics();
  MlirLocation unknown = mlirLocationUnknownGet(context.get());
  MlirType type =
      kind == "memref"
          ? mlirMemRefTypeContiguousGetChecked(
                unknown, elementType.get(), shape.size(), shape.data(),
                mlirAttributeGetNull())
          : mlirRankedTensorTypeGetChecked(unknown, shape.size(), shape.data(),
                                           elementType.get(),
                                           mlirAttributeGetNull());
  if (mlirTypeIsNull(type))
    throwMLIRError(context, "invalid " + kind + " type");
  return Type(contextObject, type);
}

MlirType requireShaped(const Type &type) {
  if (!mlirTypeIsAShaped(type.get()) || !mlirShapedTypeHasRank(type.get()))
    throw nb::type_error("expects a ranked shaped type (memref or tensor)");
  return type.get();
}

MlirType requireFunction(const Type &type) {
  if (!mlirTypeIsAFunction(type.get()))
    throw nb::type_error("expects a function type");
  return type.get();
}

void bindType(nb::module_ &m) {
  nb::class_<Type>(m, "Type", "An MLIR type, uniqued in its context.")
      .def_static("parse", &parseType, nb::arg("context"), nb::arg("text"),
                  "Parses a type such as 'memref<4x8xf32>'.")
      .def_static(
          "memref",
          [](const std::vector<int64_t> &shape, const Type &elementType) {
            return makeShapedType("memref", shape, elementType);
          },
          nb::arg("shape"), nb::arg("element_type"),
          "A row-major memref of static shape.")
      .def_static(
          "tensor",
          [](const std::vector<int64_t> &shape, const Type &elementType) {
            return makeShapedType("tensor", shape, elementType);
          },
          nb::arg("shape"), nb::arg("element_type"))
      .def_static(
          "function",
          [](nb::object contextObject, const std::vector<Type> &inputs,
             const std::vector<Type> &results) {
            std::vector<MlirType> in, out;
            for (const Type &type : inputs) {
              requireSameContext(contextObject, type.getContextObject(),
                                 "an input type");
              in.push_back(type.get());
            }
            for (const Type &type : results) {
              requireSameContext(contextObject, type.getContextObject(),
                                 "a result type");
              out.push_back(type.get());
            }
            return Type(contextObject,
                        mlirFunctionTypeGet(
                            nb::cast<Context &>(contextObject).get(),
                            in.size(), in.data(), out.size(), out.data()));
          },
          nb::arg("context"), nb::arg("inputs"), nb::arg("results"))
      .def_prop_ro("context", &Type::getContextObject)
      .def_prop_ro("is_memref",
                   [](const Type &t) { return mlirTypeIsAMemRef(t.get()); })
      .def_prop_ro("is_tensor",
                   [](const Type &t) { return mlirTypeIsATensor(t.get()); })
      .def_prop_ro("is_function",
                   [](const Type &t) { return mlirTypeIsAFunction(t.get()); })
      .def_prop_ro("is_float",
                   [](const Type &t) { return mlirTypeIsAFloat(t.get()); })
      .def_prop_ro("is_integer",
                   [](const Type &t) { return mlirTypeIsAInteger(t.get()); })
      .def_prop_ro("is_index",
                   [](const Type &t) { return mlirTypeIsAIndex(t.get()); })
      .def_prop_ro("shape",
                   [](const Type &t) {
                     MlirType shaped = requireShaped(t);
                     nb::list shape;
                     for (intptr_t d = 0, e = mlirShapedTypeGetRank(shaped);
                          d < e; ++d)
                       shape.append(mlirShapedTypeGetDimSize(shaped, d));
                     return nb::tuple(shape);
                   })
      .def_prop_ro("element_type",
                   [](const Type &t) {
                     return Type(t.getContextObject(),
                                 mlirShapedTypeGetElementType(requireShaped(t)));
                   })
      .def_prop_ro("inputs",
                   [](const Type &t) {
                     return listChildren<Type>(t.getContextObject(),
                                               requireFunction(t),
                                               mlirFunctionTypeGetNumInputs,
                                               mlirFunctionTypeGetInput);
                   })
      .def_prop_ro("results",
                   [](const Type &t) {
                     return listChildren<Type>(t.getContextObject(),
                                               requireFunction(t),
                                               mlirFunctionTypeGetNumResults,
                                               mlirFunctionTypeGetResult);
                   })
      .def("__eq__",
           [](const Type &a, const Type &b) {
             return mlirTypeEqual(a.get(), b.get());
           })
      .def("__hash__",
           [](const Type &t) {
             return std::hash<const void *>()(t.get().ptr);
           })
      .def("__str__", [](const Type &t) {
        return printToString([&](MlirStringCallback cb, void *d) {
          mlirTypePrint(t.get(), cb, d);
        });
      });
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

Attribute parseAttribute(nb::object contextObject, const std::string &text) {
  Context &context = nb::cast<Context &>(contextObject);
  context.clearDiagnostics();
  MlirAttribute attribute =
      mlirAttributeParseGet(context.get(), toStringRef(text));
  if (mlirAttributeIsNull(attribute))
    throwMLIRError(context, "cannot parse attribute '" + text + "'");
  return Attribute(contextObject, attribute);
}

/// The attribute as a Python value, for the kinds that have an obvious one.
nb::object attributeValue(const Attribute &attribute) {
  MlirAttribute attr = attribute.get();
  if (mlirAttributeIsABool(attr))
    return nb::bool_(mlirBoolAttrGetValue(attr));
  if (mlirAttributeIsAInteger(attr))
    return nb::int_(mlirIntegerAttrGetValueInt(attr));
  if (mlirAttributeIsAFloat(attr))
    return nb::float_(mlirFloatAttrGetValueDouble(attr));
  if (mlirAttributeIsAString(attr))
    return nb::str(toString(mlirStringAttrGetValue(attr)).c_str());
  if (mlirAttributeIsAType(attr))
    return nb::cast(
        Type(attribute.getContextObject(), mlirTypeAttrGetValue(attr)));
  if (mlirAttributeIsADenseI64Array(attr)) {
    nb::list values;
    for (intptr_t i = 0, e = mlirDenseArrayGetNumElements(attr); i < e; ++i)
      values.append(mlirDenseI64ArrayGetElement(attr, i));
    return values;
  }
  if (mlirAttributeIsADenseI32Array(attr)) {
    nb::list values;
    for (intptr_t i = 0, e = mlirDenseArrayGetNumElements(attr); i < e; ++i)
      values.append(mlirDenseI32ArrayGetElement(attr, i));
    return values;
  }
  if (mlirAttributeIsAArray(attr)) {
    nb::list values;
    for (intptr_t i = 0, e = mlirArrayAttrGetNumElements(attr); i < e; ++i)
      values.append(attributeValue(
          Attribute(attribute.getContextObject(),
                    mlirArrayAttrGetElement(attr, i))));
    return values;
  }
  throw nb::type_error(
      "this attribute has no plain Python value; use str() or a dialect "
      "wrapper such as pit.SparseAttr");
}

Attribute arrayAttribute(nb::object contextObject,
                         const std::vector<Attribute> &elements) {
  std::vector<MlirAttribute> raw;
  for (const Attribute &element : elements) {
    requireSameContext(contextObject, element.getContextObject(),
                       "an element");
    raw.push_back(element.get());
  }
  return Attribute(contextObject,
                   mlirArrayAttrGet(nb::cast<Context &>(contextObject).get(),
                                    raw.size(), raw.data()));
}

void bindAttribute(nb::module_ &m) {
  nb::class_<Attribute>(m, "Attribute", "An MLIR attribute, uniqued in its context.")
      .def_static("parse", &parseAttribute, nb::arg("context"), nb::arg("text"))
      .def_static(
          "string",
          [](nb::object ctx, const std::string &value) {
            return Attribute(ctx, mlirStringAttrGet(nb::cast<Context &>(ctx).get(),
                                                    toStringRef(value)));
          },
          nb::arg("context"), nb::arg("value"))
      .def_static(
          "integer",
          [](const Type &type, int64_t value) {
            if (!mlirTypeIsAInteger(type.get()) && !mlirTypeIsAIndex(type.get()))
              throw nb::type_error("expects an integer or index type");
            return Attribute(type.getContextObject(),
                             mlirIntegerAttrGet(type.get(), value));
          },
          nb::arg("type"), nb::arg("value"))
      .def_static(
          "float",
          [](const Type &type, double value) {
            if (!mlirTypeIsAFloat(type.get()))
              throw nb::type_error("expects a float type");
            MlirContext ctx = nb::cast<Context &>(type.getContextObject()).get();
            return Attribute(type.getContextObject(),
                             mlirFloatAttrDoubleGet(ctx, type.get(), value));
          },
          nb::arg("type"), nb::arg("value"))
      .def_static(
          "type",
          [](const Type &type) {
            return Attribute(type.getContextObject(),
                             mlirTypeAttrGet(type.get()));
          },
          nb::arg("type"))
      .def_static(
          "unit",
          [](nb::object ctx) {
            return Attribute(ctx, mlirUnitAttrGet(nb::cast<Context &>(ctx).get()));
          },
          nb::arg("context"))
      .def_static(
          "dense_i64_array",
          [](nb::object ctx, const std::vector<int64_t> &values) {
            return Attribute(ctx, mlirDenseI64ArrayGet(
                                      nb::cast<Context &>(ctx).get(),
                                      values.size(), values.data()));
          },
          nb::arg("context"), nb::arg("values"))
      .def_static(
          "dense_i32_array",
          [](nb::object ctx, const std::vector<int32_t> &values) {
            return Attribute(ctx, mlirDenseI32ArrayGet(
                                      nb::cast<Context &>(ctx).get(),
                                      values.size(), values.data()));
          },
          nb::arg("context"), nb::arg("values"))
      .def_static("array", &arrayAttribute, nb::arg("context"),
                  nb::arg("elements"))
      .def_prop_ro("context", &Attribute::getContextObject)
      .def_prop_ro("value", &attributeValue,
                   "The attribute as a Python value (int, float, str, bool, "
                   "Type, or a list of them).")
      .def("__eq__",
           [](const Attribute &a, const Attribute &b) {
             return mlirAttributeEqual(a.get(), b.get());
           })
      .def("__hash__",
           [](const Attribute &a) {
             return std::hash<const void *>()(a.get().ptr);
           })
      .def("__str__", [](const Attribute &a) {
        return printToString([&](MlirStringCallback cb, void *d) {
          mlirAttributePrint(a.get(), cb, d);
        });
      });
}

//===----------------------------------------------------------------------===//
// Operations, blocks, regions, values
//===----------------------------------------------------------------------===//

std::vector<Value> blockArguments(const Block &block) {
  return listChildren<Value>(block.getRootObject(), block.get(),
                             mlirBlockGetNumArguments, mlirBlockGetArgument);
}

std::vector<Operation> blockOperations(const Block &block) {
  std::vector<Operation> operations;
  for (MlirOperation op = mlirBlockGetFirstOperation(block.get());
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    operations.emplace_back(block.getRootObject(), op);
  return operations;
}

/// Inserts the detached `operation` into `block`, before `anchor` if given.
void insertIntoBlock(const Block &block, const Operation &operation,
                     const std::optional<Operation> &anchor) {
  IRRoot &operationRoot = operation.getRoot().current();
  MlirOperation raw = operation.get();
  if (!mlirOperationEqual(operationRoot.getOwned(), raw))
    throw nb::value_error("the operation is already in a block; an operation "
                          "is inserted once, right after it is created");
  requireSameContext(block.getContextObject(), operation.getContextObject(),
                     "the operation");
  if (&block.getRoot().current() == &operationRoot)
    throw nb::value_error("cannot insert an operation into its own region");
  if (anchor) {
    MlirOperation anchorOp = anchor->get();
    if (!mlirBlockEqual(mlirOperationGetBlock(anchorOp), block.get()))
      throw nb::value_error("the anchor operation is not in this block");
    mlirBlockInsertOwnedOperationBefore(block.get(), anchorOp, raw);
  } else {
    mlirBlockAppendOwnedOperation(block.get(), raw);
  }
  operationRoot.adoptInto(block.getRootObject());
}

Operation createOperation(nb::object contextObject, const std::string &name,
                          const std::vector<Value> &operands,
                          const std::vector<Type> &resultTypes,
                          const std::map<std::string, Attribute> &attributes,
                          int numRegions,
                          const std::optional<FileLocation> &location) {
  Context &context = nb::cast<Context &>(contextObject);
  context.requireRegisteredOperation(name);
  if (numRegions < 0)
    throw nb::value_error("the number of regions cannot be negative");

  MlirOperationState state =
      mlirOperationStateGet(toStringRef(name), makeLocation(context, location));
  std::vector<MlirValue> rawOperands;
  for (const Value &operand : operands) {
    requireSameContext(contextObject, operand.getContextObject(),
                       "an operand");
    rawOperands.push_back(operand.get());
  }
  std::vector<MlirType> rawResults;
  for (const Type &type : resultTypes) {
    requireSameContext(contextObject, type.getContextObject(),
                       "a result type");
    rawResults.push_back(type.get());
  }
  std::vector<MlirNamedAttribute> rawAttributes;
  for (const auto &[attrName, attribute] : attributes) {
    requireSameContext(contextObject, attribute.getContextObject(),
                       "an attribute");
    rawAttributes.push_back(mlirNamedAttributeGet(
        mlirIdentifierGet(context.get(), toStringRef(attrName)),
        attribute.get()));
  }
  std::vector<MlirRegion> regions;
  for (int i = 0; i < numRegions; ++i)
    regions.push_back(mlirRegionCreate());
  mlirOperationStateAddOperands(&state, rawOperands.size(), rawOperands.data());
  mlirOperationStateAddResults(&state, rawResults.size(), rawResults.data());
  mlirOperationStateAddAttributes(&state, rawAttributes.size(),
                                  rawAttributes.data());
  mlirOperationStateAddOwnedRegions(&state, regions.size(), regions.data());

  context.clearDiagnostics();
  MlirOperation operation = mlirOperationCreate(&state);
  if (mlirOperationIsNull(operation))
    throwMLIRError(context, "cannot create '" + name + "'");
  return Operation(makeRoot(contextObject, operation), operation);
}

void bindOperation(nb::module_ &m) {
  nb::class_<Value>(m, "Value", "An SSA value: a block argument or an op result.")
      .def_prop_ro("type",
                   [](const Value &v) {
                     return Type(v.getContextObject(), mlirValueGetType(v.get()));
                   })
      .def("__str__", [](const Value &v) {
        return printToString([&](MlirStringCallback cb, void *d) {
          mlirValuePrint(v.get(), cb, d);
        });
      });

  nb::class_<Block>(m, "Block")
      .def_prop_ro("arguments", &blockArguments)
      .def_prop_ro("operations", &blockOperations)
      .def("append", [](const Block &block, const Operation &op) {
        insertIntoBlock(block, op, std::nullopt);
      }, nb::arg("operation"), "Appends a newly created operation.")
      .def("insert_before", [](const Block &block, const Operation &op,
                               const Operation &anchor) {
        insertIntoBlock(block, op, anchor);
      }, nb::arg("operation"), nb::arg("anchor"));

  nb::class_<Region>(m, "Region")
      .def_prop_ro("blocks",
                   [](const Region &region) {
                     std::vector<Block> blocks;
                     for (MlirBlock b = mlirRegionGetFirstBlock(region.get());
                          !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
                       blocks.emplace_back(region.getRootObject(), b);
                     return blocks;
                   })
      .def(
          "append_block",
          [](const Region &region, const std::vector<Type> &argumentTypes) {
            std::vector<MlirType> types;
            std::vector<MlirLocation> locations;
            MlirLocation unknown =
                mlirLocationUnknownGet(region.getContext().get());
            for (const Type &type : argumentTypes) {
              types.push_back(type.get());
              locations.push_back(unknown);
            }
            MlirBlock block =
                mlirBlockCreate(types.size(), types.data(), locations.data());
            mlirRegionAppendOwnedBlock(region.get(), block);
            return Block(region.getRootObject(), block);
          },
          nb::arg("argument_types") = std::vector<Type>(),
          "Appends a block whose arguments have these types.");

  nb::class_<Operation>(m, "Operation")
      .def_static("create", &createOperation, nb::arg("context"),
                  nb::arg("name"), nb::arg("operands") = std::vector<Value>(),
                  nb::arg("result_types") = std::vector<Type>(),
                  nb::arg("attributes") = std::map<std::string, Attribute>(),
                  nb::arg("num_regions") = 0,
                  nb::arg("location") = std::nullopt,
                  "Creates an operation outside any block; insert it with "
                  "Block.append. `location` is (file, line, column).")
      .def_prop_ro("context", &Operation::getContextObject)
      .def_prop_ro("name",
                   [](const Operation &op) {
                     return toString(
                         mlirIdentifierStr(mlirOperationGetName(op.get())));
                   })
      .def_prop_ro(
          "location",
          [](const Operation &op) {
            return printToString([&](MlirStringCallback cb, void *d) {
              mlirLocationPrint(mlirOperationGetLocation(op.get()), cb, d);
            });
          },
          "The operation's location as MLIR prints it, as diagnostics "
          "give it.")
      .def_prop_ro("operands",
                   [](const Operation &op) {
                     return listChildren<Value>(op.getRootObject(), op.get(),
                                                mlirOperationGetNumOperands,
                                                mlirOperationGetOperand);
                   })
      .def_prop_ro("results",
                   [](const Operation &op) {
                     return listChildren<Value>(op.getRootObject(), op.get(),
                                                mlirOperationGetNumResults,
                                                mlirOperationGetResult);
                   })
      .def_prop_ro("regions",
                   [](const Operation &op) {
                     return listChildren<Region>(op.getRootObject(), op.get(),
                                                 mlirOperationGetNumRegions,
                                                 mlirOperationGetRegion);
                   })
      .def_prop_ro("attributes",
                   [](const Operation &op) {
                     std::map<std::string, Attribute> attributes;
                     MlirOperation raw = op.get();
                     for (intptr_t i = 0,
                                   e = mlirOperationGetNumAttributes(raw);
                          i < e; ++i) {
                       MlirNamedAttribute named =
                           mlirOperationGetAttribute(raw, i);
                       attributes.emplace(
                           toString(mlirIdentifierStr(named.name)),
                           Attribute(op.getContextObject(), named.attribute));
                     }
                     return attributes;
                   },
                   "The operation's attributes, as a new dict.")
      .def(
          "get_attribute",
          [](const Operation &op, const std::string &name) {
            MlirAttribute attr =
                mlirOperationGetAttributeByName(op.get(), toStringRef(name));
            if (mlirAttributeIsNull(attr))
              throw nb::key_error(name.c_str());
            return Attribute(op.getContextObject(), attr);
          },
          nb::arg("name"))
      .def(
          "set_attribute",
          [](const Operation &op, const std::string &name,
             const Attribute &attribute) {
            mlirOperationSetAttributeByName(op.get(), toStringRef(name),
                                            attribute.get());
          },
          nb::arg("name"), nb::arg("attribute"))
      .def(
          "verify",
          [](const Operation &op) { verifyOrThrow(op.getContext(), op.get()); },
          "Raises MLIRError with the verifier's diagnostics if the "
          "operation, or anything nested in it, is invalid.")
      .def("__str__", [](const Operation &op) {
        return printToString([&](MlirStringCallback cb, void *d) {
          mlirOperationPrint(op.get(), cb, d);
        });
      });
}

//===----------------------------------------------------------------------===//
// Context and module
//===----------------------------------------------------------------------===//

Module moduleFromOwnedOperation(nb::object contextObject,
                                MlirOperation operation) {
  return Module(makeRoot(contextObject, operation), operation);
}

void bindModule(nb::module_ &m) {
  nb::class_<Context>(m, "Context",
                      "An MLIR context with the pit dialect, every upstream "
                      "dialect and every pass registered. Diagnostics are "
                      "raised as pit.MLIRError, not printed.")
      .def(nb::init<>())
      .def("take_diagnostics", &Context::takeDiagnostics,
           "The diagnostics collected since the last step that raised or "
           "cleared them (the remarks of a pass run that succeeded), one "
           "string each, and forgets them.");

  nb::class_<Module>(m, "Module")
      .def_static(
          "parse",
          [](nb::object contextObject, const std::string &text) {
            Context &context = nb::cast<Context &>(contextObject);
            context.clearDiagnostics();
            MlirModule module =
                mlirModuleCreateParse(context.get(), toStringRef(text));
            if (mlirModuleIsNull(module))
              throwMLIRError(context, "cannot parse the module");
            return moduleFromOwnedOperation(contextObject,
                                            mlirModuleGetOperation(module));
          },
          nb::arg("context"), nb::arg("text"))
      .def_static(
          "create",
          [](nb::object contextObject,
             const std::optional<FileLocation> &location) {
            Context &context = nb::cast<Context &>(contextObject);
            MlirModule module =
                mlirModuleCreateEmpty(makeLocation(context, location));
            return moduleFromOwnedOperation(contextObject,
                                            mlirModuleGetOperation(module));
          },
          nb::arg("context"), nb::arg("location") = std::nullopt)
      .def_prop_ro("context", &Module::getContextObject)
      .def_prop_ro("operation",
                   [](const Module &module) {
                     return Operation(module.getRootObject(),
                                      module.getOperation());
                   })
      .def_prop_ro("body",
                   [](const Module &module) {
                     return Block(module.getRootObject(),
                                  mlirModuleGetBody(mlirModuleFromOperation(
                                      module.getOperation())));
                   })
      .def(
          "verify",
          [](const Module &module) {
            verifyOrThrow(module.getContext(), module.getOperation());
          },
          "Raises MLIRError with the verifier's diagnostics if invalid.")
      .def(
          "clone",
          [](const Module &module) {
            return moduleFromOwnedOperation(
                module.getContextObject(),
                mlirOperationClone(module.getOperation()));
          },
          "A deep copy, for example to run a pipeline on.")
      .def("__str__", [](const Module &module) {
        return printToString([&](MlirStringCallback cb, void *d) {
          mlirOperationPrint(module.getOperation(), cb, d);
        });
      });
}

} // namespace

void populateIRBindings(nb::module_ &m) {
  nb::class_<IRRoot>(m, "_IRRoot",
                     "Owner of a top-level operation (internal).");
  bindModule(m);
  bindType(m);
  bindAttribute(m);
  bindOperation(m);
}

} // namespace pit::python
