// PyInit__C: the oar._C extension module.
#include "oar/bindings/op_bindings.h"
#include "oar/bindings/py_utils.h"
#include "oar/bindings/tensor_object.h"

namespace {

PyModuleDef g_module = {PyModuleDef_HEAD_INIT,
                        "oar._C",
                        "oar's C++ core: tensors, ops and autograd.",
                        -1,
                        nullptr,
                        nullptr,
                        nullptr,
                        nullptr,
                        nullptr};

bool AddFunctions(PyObject* m, PyMethodDef* defs) {
  PyObject* name = PyModule_GetNameObject(m);
  if (!name) return false;
  bool ok = true;
  for (PyMethodDef* d = defs; ok && d->ml_name; ++d) {
    PyObject* f = PyCFunction_NewEx(d, nullptr, name);
    ok = f && PyModule_AddObject(m, d->ml_name, f) == 0;
    if (!ok) Py_XDECREF(f);
  }
  Py_DECREF(name);
  return ok;
}

}  // namespace

PyMODINIT_FUNC PyInit__C() {
  PyObject* m = PyModule_Create(&g_module);
  if (!m) return nullptr;
  if (!oar::py::CreateTensorType(m) || !oar::py::CreateBufferType(m) ||
      !oar::py::CreateAutogradTypes(m) || !AddFunctions(m, oar::py::g_op_functions) ||
      !AddFunctions(m, oar::py::g_autograd_functions) ||
      !AddFunctions(m, oar::py::g_buffer_functions)) {
    Py_DECREF(m);
    return nullptr;
  }
  return m;
}
