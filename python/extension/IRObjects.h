//===- IRObjects.h - The Python objects over MLIR's C API -------*- C++ -*-===//
//
// MLIR's C API hands out raw, non-owning handles. The Python objects here
// pair each handle with what keeps it valid, so that no Python program can
// reach freed IR:
//   - a Context owns its MlirContext; every object holds a reference to it;
//   - an IRRoot owns one top-level operation (a module, or an operation not
//     inserted anywhere yet); operations, blocks, regions and values hold a
//     reference to the root that owns them;
//   - a pass run may erase any operation under its root, so it bumps the
//     root's generation, and a handle taken before the run refuses to be used.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_PYTHON_IROBJECTS_H
#define PIT_PYTHON_IROBJECTS_H

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <nanobind/nanobind.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace pit::python {

namespace nb = nanobind;

/// An MLIR context with PIT and upstream dialects and passes registered. It
/// collects diagnostics instead of printing them, so that a failing call can
/// raise them as an MLIRError.
class Context {
public:
  Context();
  ~Context();
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  MlirContext get() const { return context; }

  /// Loads the dialect of `operationName` and checks that it defines the
  /// operation; throws MLIRError otherwise.
  void requireRegisteredOperation(const std::string &operationName);

  /// Forgets the diagnostics collected so far. Call it before a step whose
  /// failure you will report with takeDiagnostics().
  void clearDiagnostics() { diagnostics.clear(); }
  std::vector<std::string> takeDiagnostics();

private:
  static MlirLogicalResult collectDiagnostic(MlirDiagnostic diagnostic,
                                             void *userData);

  MlirContext context;
  std::vector<std::string> diagnostics;
};

/// Owner of one top-level operation. Once that operation is inserted into a
/// block owned by another root, ownership moves there, and this root keeps
/// that one alive.
class IRRoot {
public:
  IRRoot(nb::object context, MlirOperation operation)
      : context(std::move(context)), owned(operation) {}
  ~IRRoot();
  IRRoot(const IRRoot &) = delete;
  IRRoot &operator=(const IRRoot &) = delete;

  /// The root that owns the IR now.
  IRRoot &current();
  Context &getContext() { return nb::cast<Context &>(context); }
  nb::object getContextObject() const { return context; }
  uint64_t getGeneration() { return current().generation; }
  /// Called after IR under this root may have been erased (a pass run).
  void invalidateHandles() { ++current().generation; }
  /// Moves ownership of the top-level operation to `adopter`.
  void adoptInto(nb::object adopter);
  /// The operation this root owns until it is inserted somewhere, or null.
  MlirOperation getOwned() const { return owned; }

private:
  nb::object context;
  MlirOperation owned;
  nb::object adoptedBy;
  uint64_t generation = 0;
};

/// Base of the handles into IR owned by an IRRoot.
class IRHandle {
public:
  explicit IRHandle(nb::object root)
      : root(std::move(root)), generation(getRoot().getGeneration()) {}

  IRRoot &getRoot() const { return nb::cast<IRRoot &>(root); }
  nb::object getRootObject() const { return root; }
  Context &getContext() const { return getRoot().getContext(); }
  nb::object getContextObject() const { return getRoot().getContextObject(); }
  /// Throws if a pass run may have erased what this handle points to.
  void checkValid() const;

private:
  nb::object root;
  uint64_t generation;
};

class Operation : public IRHandle {
public:
  Operation(nb::object root, MlirOperation operation)
      : IRHandle(std::move(root)), operation(operation) {}
  MlirOperation get() const {
    checkValid();
    return operation;
  }

private:
  MlirOperation operation;
};

class Block : public IRHandle {
public:
  Block(nb::object root, MlirBlock block)
      : IRHandle(std::move(root)), block(block) {}
  MlirBlock get() const {
    checkValid();
    return block;
  }

private:
  MlirBlock block;
};

class Region : public IRHandle {
public:
  Region(nb::object root, MlirRegion region)
      : IRHandle(std::move(root)), region(region) {}
  MlirRegion get() const {
    checkValid();
    return region;
  }

private:
  MlirRegion region;
};

class Value : public IRHandle {
public:
  Value(nb::object root, MlirValue value)
      : IRHandle(std::move(root)), value(value) {}
  MlirValue get() const {
    checkValid();
    return value;
  }

private:
  MlirValue value;
};

/// A module: the root of the IR it holds.
class Module {
public:
  Module(nb::object root, MlirOperation operation)
      : root(std::move(root)), operation(operation) {}
  IRRoot &getRoot() const { return nb::cast<IRRoot &>(root); }
  nb::object getRootObject() const { return root; }
  Context &getContext() const { return getRoot().getContext(); }
  nb::object getContextObject() const { return getRoot().getContextObject(); }
  /// The builtin.module itself, which no pass erases.
  MlirOperation getOperation() const { return operation; }

private:
  nb::object root;
  MlirOperation operation;
};

/// Throws unless `actual` is the context `expected`: IR of one context that
/// held a type, attribute or value of another would read freed memory once
/// that other context is gone. `what` names the object in the message.
void requireSameContext(const nb::object &expected, const nb::object &actual,
                        const char *what);

/// Types and attributes are uniqued in their context and live as long as it.
class Type {
public:
  Type(nb::object context, MlirType type)
      : context(std::move(context)), type(type) {}
  MlirType get() const { return type; }
  nb::object getContextObject() const { return context; }

private:
  nb::object context;
  MlirType type;
};

class Attribute {
public:
  Attribute(nb::object context, MlirAttribute attribute)
      : context(std::move(context)), attribute(attribute) {}
  MlirAttribute get() const { return attribute; }
  nb::object getContextObject() const { return context; }

private:
  nb::object context;
  MlirAttribute attribute;
};

/// What a failed MLIR call raises in Python as pit.MLIRError: a summary and
/// the diagnostics MLIR emitted.
struct MLIRError {
  std::string message;
  std::vector<std::string> diagnostics;
};

/// Throws MLIRError with `message` and the diagnostics `context` collected.
[[noreturn]] void throwMLIRError(Context &context, std::string message);

/// Collects the text an MLIR printing function writes through a callback.
std::string printToString(
    const std::function<void(MlirStringCallback, void *)> &print);

void populateIRBindings(nb::module_ &m);
void populatePassBindings(nb::module_ &m);
void populatePITBindings(nb::module_ &m);

} // namespace pit::python

#endif // PIT_PYTHON_IROBJECTS_H
