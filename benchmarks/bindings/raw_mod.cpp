// Candidate 3: raw CPython C API.
//  * static PyTypeObject, C++ Tensor embedded by value (placement new / explicit dtor)
//  * not GC-tracked (holds no Python references), not subclassable -> exact type checks
//  * small freelist of object memory (disable with -DOAR_FREELIST=0)
//  * METH_FASTCALL|METH_KEYWORDS (vectorcall) with a positional fast path;
//    keywords are parsed only when kwnames != NULL, by interned-pointer identity first
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <chrono>
#include <new>

#include "tensor.h"

#ifndef MODNAME
#define MODNAME bind_raw
#endif
#ifndef OAR_FREELIST
#define OAR_FREELIST 64
#endif
#define OAR_CAT2(a, b) a##b
#define OAR_CAT(a, b) OAR_CAT2(a, b)
#define OAR_STR2(a) #a
#define OAR_STR(a) OAR_STR2(a)

using oar_bench::Tensor;

namespace {

struct PyTensor {
  PyObject_HEAD
  Tensor t;
};

PyTypeObject TensorType;  // zero-initialized, filled in PyInit

// ---------------------------------------------------------------- allocation
#if OAR_FREELIST > 0
PyTensor* freelist[OAR_FREELIST];  // protected by the GIL
int nfree = 0;
#endif

PyObject* wrap(Tensor&& t) {
  PyTensor* self;
#if OAR_FREELIST > 0
  if (nfree > 0) {
    self = freelist[--nfree];
  } else
#endif
  {
    self = static_cast<PyTensor*>(PyObject_Malloc(sizeof(PyTensor)));
    if (!self) return PyErr_NoMemory();
  }
  PyObject_Init(reinterpret_cast<PyObject*>(self), &TensorType);
  new (&self->t) Tensor(std::move(t));
  return reinterpret_cast<PyObject*>(self);
}

void tensor_dealloc(PyObject* o) {
  auto* self = reinterpret_cast<PyTensor*>(o);
  self->t.~Tensor();
#if OAR_FREELIST > 0
  if (nfree < OAR_FREELIST) {
    freelist[nfree++] = self;
    return;
  }
#endif
  PyObject_Free(self);
}

inline Tensor* as_tensor(PyObject* o) {
  return Py_IS_TYPE(o, &TensorType) ? &reinterpret_cast<PyTensor*>(o)->t : nullptr;
}

// Run an op and box its result, translating C++ exceptions.
template <class F>
PyObject* run(F&& f) {
  try {
    return wrap(f());
  } catch (const std::bad_alloc&) {
    return PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    return nullptr;
  }
}

// ---------------------------------------------------------------- arg parsing
struct Sig {
  const char* name;
  const char* kw[4];
  int n;           // number of parameters
  int nreq;        // leading required parameters
  PyObject* interned[4] = {};
};

[[gnu::cold]] PyObject* arg_type_error(const Sig& s, int i, const char* want, PyObject* got) {
  PyErr_Format(PyExc_TypeError, "%s(): argument '%s' (position %d) must be %s, but got %s",
               s.name, s.kw[i], i, want, Py_TYPE(got)->tp_name);
  return nullptr;
}

[[gnu::cold, gnu::noinline]] bool parse_slow(const Sig& s, PyObject* const* args, Py_ssize_t nargs,
                                            PyObject* kwnames, PyObject** out) {
  if (nargs > s.n) {
    PyErr_Format(PyExc_TypeError, "%s() takes at most %d argument(s) (%zd given)", s.name, s.n, nargs);
    return false;
  }
  for (int i = 0; i < s.n; ++i) out[i] = i < nargs ? args[i] : nullptr;
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, k);
    int j = 0;
    while (j < s.n && key != s.interned[j]) ++j;  // call-site names are interned: pointer hit
    if (j == s.n)
      for (j = 0; j < s.n && PyUnicode_CompareWithASCIIString(key, s.kw[j]) != 0; ++j) {}
    if (j == s.n) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", s.name, key);
      return false;
    }
    if (out[j]) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", s.name, s.kw[j]);
      return false;
    }
    out[j] = args[nargs + k];
  }
  for (int i = 0; i < s.nreq; ++i)
    if (!out[i]) {
      PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (position %d)", s.name, s.kw[i], i);
      return false;
    }
  return true;
}

inline bool parse(const Sig& s, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                  PyObject** out) {
  if (kwnames == nullptr && nargs >= s.nreq && nargs <= s.n) [[likely]] {
    for (int i = 0; i < s.n; ++i) out[i] = i < nargs ? args[i] : nullptr;
    return true;
  }
  return parse_slow(s, args, nargs, kwnames, out);
}

// ---------------------------------------------------------------- ops
Sig add_sig{"add", {"x", "y"}, 2, 2};
Sig add_method_sig{"add", {"y"}, 1, 1};
Sig matmul_sig{"matmul", {"x", "y", "transpose_x"}, 3, 2};

PyObject* py_add(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* a[2];
  if (!parse(add_sig, args, nargs, kwnames, a)) return nullptr;
  Tensor* x = as_tensor(a[0]);
  if (!x) return arg_type_error(add_sig, 0, "Tensor", a[0]);
  Tensor* y = as_tensor(a[1]);
  if (!y) return arg_type_error(add_sig, 1, "Tensor", a[1]);
  return run([&] { return oar_bench::add(*x, *y); });
}

PyObject* py_add_method(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* a[1];
  if (!parse(add_method_sig, args, nargs, kwnames, a)) return nullptr;
  Tensor* y = as_tensor(a[0]);
  if (!y) return arg_type_error(add_method_sig, 0, "Tensor", a[0]);
  return run([&] { return oar_bench::add(*as_tensor(self), *y); });
}

PyObject* py_matmul(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* a[3];
  if (!parse(matmul_sig, args, nargs, kwnames, a)) return nullptr;
  Tensor* x = as_tensor(a[0]);
  if (!x) return arg_type_error(matmul_sig, 0, "Tensor", a[0]);
  Tensor* y = as_tensor(a[1]);
  if (!y) return arg_type_error(matmul_sig, 1, "Tensor", a[1]);
  bool tx = false;
  if (a[2] && a[2] != Py_False) {
    if (a[2] != Py_True) return arg_type_error(matmul_sig, 2, "bool", a[2]);
    tx = true;
  }
  return run([&] { return oar_bench::matmul(*x, *y, tx); });
}

PyObject* nb_add(PyObject* a, PyObject* b) {
  Tensor* x = as_tensor(a);
  Tensor* y = as_tensor(b);
  if (!x || !y) Py_RETURN_NOTIMPLEMENTED;
  return run([&] { return oar_bench::add(*x, *y); });
}

// The op alone, in a C++ loop (no Python), to separate kernel cost from binding cost.
PyObject* kernel_ns(PyObject*, PyObject* arg) {
  long n = PyLong_AsLong(arg);
  if (n <= 0) return PyErr_Occurred() ? nullptr : PyFloat_FromDouble(0.0);
  Tensor a(1.f, {1}), b(2.f, {1});
  auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) {
    Tensor c = oar_bench::add(a, b);
    asm volatile("" : : "r"(c.impl.get()) : "memory");
  }
  std::chrono::duration<double, std::nano> dt = std::chrono::steady_clock::now() - t0;
  return PyFloat_FromDouble(dt.count() / n);
}

// ---------------------------------------------------------------- type
PyObject* tensor_new(PyTypeObject*, PyObject* args, PyObject* kwds) {  // not on the hot path
  static const char* kw[] = {"value", "shape", nullptr};
  float value;
  PyObject* shape_obj;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "fO:Tensor", const_cast<char**>(kw), &value, &shape_obj))
    return nullptr;
  PyObject* seq = PySequence_Fast(shape_obj, "Tensor(): 'shape' must be a sequence of ints");
  if (!seq) return nullptr;
  std::vector<int64_t> shape;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); ++i) {
    long long d = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
    if (d == -1 && PyErr_Occurred()) { Py_DECREF(seq); return nullptr; }
    shape.push_back(d);
  }
  Py_DECREF(seq);
  return run([&] { return Tensor(value, std::move(shape)); });
}

PyObject* get_value(PyObject* o, void*) { return PyFloat_FromDouble(as_tensor(o)->value()); }

PyObject* get_shape(PyObject* o, void*) {
  const auto& s = as_tensor(o)->shape();
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(s.size()));
  if (!t) return nullptr;
  for (size_t i = 0; i < s.size(); ++i) {
    PyObject* d = PyLong_FromLongLong(s[i]);
    if (!d) { Py_DECREF(t); return nullptr; }
    PyTuple_SET_ITEM(t, i, d);
  }
  return t;
}

PyMethodDef tensor_methods[] = {
    {"add", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_add_method)),
     METH_FASTCALL | METH_KEYWORDS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef tensor_getset[] = {{"value", get_value, nullptr, nullptr, nullptr},
                               {"shape", get_shape, nullptr, nullptr, nullptr},
                               {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyNumberMethods tensor_number = {};

PyMethodDef module_methods[] = {
    {"add", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_add)),
     METH_FASTCALL | METH_KEYWORDS, nullptr},
    {"matmul", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_matmul)),
     METH_FASTCALL | METH_KEYWORDS, nullptr},
    {"_kernel_ns", kernel_ns, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef module_def = {PyModuleDef_HEAD_INIT, OAR_STR(MODNAME), nullptr, -1, module_methods,
                          nullptr, nullptr, nullptr, nullptr};

bool intern(Sig& s) {
  for (int i = 0; i < s.n; ++i)
    if (!(s.interned[i] = PyUnicode_InternFromString(s.kw[i]))) return false;
  return true;
}

}  // namespace

PyMODINIT_FUNC OAR_CAT(PyInit_, MODNAME)() {
  Py_SET_REFCNT(&TensorType, 1);  // what PyVarObject_HEAD_INIT would do
  tensor_number.nb_add = nb_add;
  TensorType.tp_name = OAR_STR(MODNAME) ".Tensor";
  TensorType.tp_basicsize = sizeof(PyTensor);
  TensorType.tp_dealloc = tensor_dealloc;
  TensorType.tp_as_number = &tensor_number;
  TensorType.tp_flags = Py_TPFLAGS_DEFAULT;
  TensorType.tp_methods = tensor_methods;
  TensorType.tp_getset = tensor_getset;
  TensorType.tp_new = tensor_new;
  TensorType.tp_free = PyObject_Free;
  if (!intern(add_sig) || !intern(add_method_sig) || !intern(matmul_sig)) return nullptr;
  if (PyType_Ready(&TensorType) < 0) return nullptr;
  PyObject* m = PyModule_Create(&module_def);
  if (!m) return nullptr;
  Py_INCREF(&TensorType);
  if (PyModule_AddObject(m, "Tensor", reinterpret_cast<PyObject*>(&TensorType)) < 0) {
    Py_DECREF(&TensorType);
    Py_DECREF(m);
    return nullptr;
  }
  return m;
}
