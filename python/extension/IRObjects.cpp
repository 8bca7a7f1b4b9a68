//===- IRObjects.cpp - The Python objects over MLIR's C API ---------------===//

#include "IRObjects.h"

#include "PIT-c/Registration.h"
#include "mlir-c/Diagnostics.h"

namespace pit::python {

std::string
printToString(const std::function<void(MlirStringCallback, void *)> &print) {
  std::string text;
  print(
      [](MlirStringRef chunk, void *userData) {
        static_cast<std::string *>(userData)->append(chunk.data, chunk.length);
      },
      &text);
  return text;
}

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

Context::Context() {
  // Passes live in a global registry: registering them once per process is
  // enough, and registering them again would abort on duplicates.
  static bool passesRegistered = [] {
    mlirPITRegisterAllPasses();
    return true;
  }();
  (void)passesRegistered;

  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirPITRegisterAllDialects(registry);
  mlirPITRegisterLLVMIRTranslations(registry);
  // Threading stays off: the compile steps are small, and a Python process
  // should not grow a thread pool per context.
  context = mlirContextCreateWithRegistry(registry, /*threadingEnabled=*/false);
  mlirDialectRegistryDestroy(registry);
  mlirContextAttachDiagnosticHandler(context, collectDiagnostic, this,
                                     /*deleteUserData=*/nullptr);
}

Context::~Context() { mlirContextDestroy(context); }

MlirLogicalResult Context::collectDiagnostic(MlirDiagnostic diagnostic,
                                             void *userData) {
  auto printDiagnostic = [](MlirDiagnostic diagnostic) {
    std::string location = printToString([&](MlirStringCallback cb, void *d) {
      mlirLocationPrint(mlirDiagnosticGetLocation(diagnostic), cb, d);
    });
    std::string message = printToString([&](MlirStringCallback cb, void *d) {
      mlirDiagnosticPrint(diagnostic, cb, d);
    });
    const char *severity = "error";
    switch (mlirDiagnosticGetSeverity(diagnostic)) {
    case MlirDiagnosticWarning:
      severity = "warning";
      break;
    case MlirDiagnosticNote:
      severity = "note";
      break;
    case MlirDiagnosticRemark:
      severity = "remark";
      break;
    case MlirDiagnosticError:
      break;
    }
    return location + ": " + severity + ": " + message;
  };
  auto *self = static_cast<Context *>(userData);
  std::string text = printDiagnostic(diagnostic);
  for (intptr_t i = 0, e = mlirDiagnosticGetNumNotes(diagnostic); i < e; ++i)
    text += "\n  " + printDiagnostic(mlirDiagnosticGetNote(diagnostic, i));
  self->diagnostics.push_back(std::move(text));
  return mlirLogicalResultSuccess();
}

std::vector<std::string> Context::takeDiagnostics() {
  std::vector<std::string> taken;
  taken.swap(diagnostics);
  return taken;
}

void Context::requireRegisteredOperation(const std::string &operationName) {
  std::string dialect = operationName.substr(0, operationName.find('.'));
  clearDiagnostics();
  if (dialect == operationName ||
      mlirDialectIsNull(mlirContextGetOrLoadDialect(
          context, mlirStringRefCreate(dialect.data(), dialect.size()))))
    throwMLIRError(*this, "unknown dialect '" + dialect + "' in operation name '" +
                              operationName + "'");
  if (!mlirContextIsRegisteredOperation(
          context,
          mlirStringRefCreate(operationName.data(), operationName.size())))
    throwMLIRError(*this, "dialect '" + dialect + "' has no operation '" +
                              operationName + "'");
}

void throwMLIRError(Context &context, std::string message) {
  throw MLIRError{std::move(message), context.takeDiagnostics()};
}

//===----------------------------------------------------------------------===//
// Ownership
//===----------------------------------------------------------------------===//

IRRoot::~IRRoot() {
  if (!mlirOperationIsNull(owned))
    mlirOperationDestroy(owned);
}

IRRoot &IRRoot::current() {
  return adoptedBy.is_valid() ? nb::cast<IRRoot &>(adoptedBy).current() : *this;
}

void IRRoot::adoptInto(nb::object adopter) {
  owned = MlirOperation{nullptr};
  adoptedBy = std::move(adopter);
}

void requireSameContext(const nb::object &expected, const nb::object &actual,
                        const char *what) {
  if (!expected.is(actual))
    throw nb::value_error((std::string(what) +
                           " belongs to another pit.Context; IR of one "
                           "context takes only objects of that context")
                              .c_str());
}

void IRHandle::checkValid() const {
  if (getRoot().getGeneration() != generation)
    throw nb::value_error(
        "this IR handle was taken before a pass ran on its module, and the "
        "pass may have erased what it points to; take it again from the "
        "module");
}

} // namespace pit::python
