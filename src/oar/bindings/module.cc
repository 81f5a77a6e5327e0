// PyInit__C: the oar._C extension module.
#include "oar/bindings/grad_node_object.h"
#include "oar/bindings/jit_capture.h"
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

// oar._C._public_ops: the tuple of names oar/__init__.py exports (and lists in __all__).
bool AddPublicOpNames(PyObject* m) {
  PyObject* names = PyList_New(0);
  if (!names) return false;
  for (const char* const* n = oar::py::g_public_ops; *n; ++n) {
    PyObject* s = PyUnicode_FromString(*n);
    if (!s || PyList_Append(names, s) != 0) {
      Py_XDECREF(s);
      Py_DECREF(names);
      return false;
    }
    Py_DECREF(s);
  }
  PyObject* tuple = PyList_AsTuple(names);
  Py_DECREF(names);
  if (!tuple) return false;
  if (PyModule_AddObject(m, "_public_ops", tuple) != 0) {
    Py_DECREF(tuple);
    return false;
  }
  return true;
}

}  // namespace

PyMODINIT_FUNC PyInit__C() {
  PyObject* m = PyModule_Create(&g_module);
  if (!m) return nullptr;
  if (!oar::py::CreateTensorType(m) || !oar::py::CreateBufferType(m) ||
      !oar::py::CreateAutogradTypes(m) || !oar::py::CreateGradNodeType(m) ||
      !AddFunctions(m, oar::py::g_graph_functions) || !AddFunctions(m, oar::py::g_amp_functions) ||
      !AddFunctions(m, oar::py::g_op_functions) ||
      !AddFunctions(m, oar::py::g_autograd_functions) ||
      !AddFunctions(m, oar::py::g_buffer_functions) ||
      !AddFunctions(m, oar::py::g_storage_functions) ||
      !AddFunctions(m, oar::py::g_dlpack_functions) ||
      !AddFunctions(m, oar::py::g_optimizer_functions) ||
      !AddFunctions(m, oar::py::g_profiler_functions) ||
      !AddFunctions(m, oar::py::g_jit_functions) ||
      !AddFunctions(m, oar::py::g_debugging_functions) ||
      !AddFunctions(m, oar::py::g_custom_op_functions) || !AddPublicOpNames(m)
#ifdef OAR_WITH_DISTRIBUTED
      || !AddFunctions(m, oar::py::g_distributed_functions)
#endif
  ) {
    Py_DECREF(m);
    return nullptr;
  }
  return m;
}
