//===- PassBindings.cpp - Pass managers from pipeline strings -------------===//

#include "IRObjects.h"

#include "mlir-c/Pass.h"

#include <nanobind/stl/string.h>

namespace pit::python {
namespace {

/// A pass manager on builtin.module, built from a textual pipeline.
class PassManager {
public:
  PassManager(nb::object contextObject, const std::string &pipeline)
      : contextObject(contextObject) {
    Context &context = nb::cast<Context &>(contextObject);
    passManager = mlirPassManagerCreateOnOperation(
        context.get(), mlirStringRefCreateFromCString("builtin.module"));
    MlirOpPassManager top = mlirPassManagerGetAsOpPassManager(passManager);
    MlirStringRef text = mlirStringRefCreate(pipeline.data(), pipeline.size());
    std::string errors;
    auto collect = [](MlirStringRef chunk, void *userData) {
      static_cast<std::string *>(userData)->append(chunk.data, chunk.length);
    };
    // A pipeline that names its anchor replaces the top level; a bare list
    // of passes is added under it. Parsing "builtin.module(...)" as a bare
    // list would nest a second module level on which nothing runs.
    context.clearDiagnostics();
    bool anchored = pipeline.rfind("builtin.module(", 0) == 0;
    MlirLogicalResult parsed =
        anchored ? mlirParsePassPipeline(top, text, collect, &errors)
                 : mlirOpPassManagerAddPipeline(top, text, collect, &errors);
    if (mlirLogicalResultIsFailure(parsed)) {
      mlirPassManagerDestroy(passManager);
      std::vector<std::string> diagnostics = context.takeDiagnostics();
      if (!errors.empty())
        diagnostics.insert(diagnostics.begin(), errors);
      throw MLIRError{"invalid pass pipeline '" + pipeline + "'",
                      std::move(diagnostics)};
    }
  }
  ~PassManager() { mlirPassManagerDestroy(passManager); }
  PassManager(const PassManager &) = delete;
  PassManager &operator=(const PassManager &) = delete;

  void run(const Module &module) {
    Context &context = nb::cast<Context &>(contextObject);
    if (!module.getContextObject().is(contextObject))
      throw nb::value_error(
          "the module belongs to another context than the pass manager");
    // Passes may erase any operation: handles into the module taken before
    // now must not be used after.
    module.getRoot().invalidateHandles();
    context.clearDiagnostics();
    if (mlirLogicalResultIsFailure(
            mlirPassManagerRunOnOp(passManager, module.getOperation())))
      throwMLIRError(context, "the pass pipeline failed");
  }

  std::string str() const {
    return printToString([&](MlirStringCallback cb, void *d) {
      mlirPrintPassPipeline(mlirPassManagerGetAsOpPassManager(passManager), cb,
                            d);
    });
  }

private:
  nb::object contextObject;
  MlirPassManager passManager;
};

} // namespace

void populatePassBindings(nb::module_ &m) {
  nb::class_<PassManager>(m, "PassManager",
                          "Runs a textual pass pipeline on a module: either "
                          "'builtin.module(pass1,pass2)' or 'pass1,pass2'.")
      .def(nb::init<nb::object, const std::string &>(), nb::arg("context"),
           nb::arg("pipeline"))
      .def("run", &PassManager::run, nb::arg("module"),
           "Runs the pipeline in place; raises MLIRError if a pass fails.")
      .def("__str__", &PassManager::str);
}

} // namespace pit::python
