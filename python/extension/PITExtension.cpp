//===- PITExtension.cpp - The pit._pit Python extension -------------------===//
//
// Bindings over MLIR's C API and PIT's own: IR objects, pass managers, pit
// attributes and the translations the compile step needs. The Python package
// `pit` builds its friendlier API on these.
//
//===----------------------------------------------------------------------===//

#include "IRObjects.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

NB_MODULE(_pit, m) {
  namespace nb = nanobind;
  m.doc() = "PIT's MLIR bindings (internal: use the `pit` package)";

  // MLIRError is defined in Python (pit/errors.py) so that the runtime,
  // which must work without this extension, shares it.
  nb::register_exception_translator([](const std::exception_ptr &error, void *) {
    try {
      std::rethrow_exception(error);
    } catch (const pit::python::MLIRError &mlirError) {
      nb::object type = nb::module_::import_("pit.errors").attr("MLIRError");
      nb::object instance = type(mlirError.message, mlirError.diagnostics);
      PyErr_SetObject(type.ptr(), instance.ptr());
    }
  });

  pit::python::populateIRBindings(m);
  pit::python::populatePassBindings(m);
  pit::python::populatePITBindings(m);
}
