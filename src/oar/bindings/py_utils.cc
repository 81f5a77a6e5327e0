#include "oar/bindings/py_utils.h"

#include <new>

#include "oar/core/errors.h"

namespace oar::py {

PyTypeObject* g_tensor_type = nullptr;
// The oar.<dtype> objects in DType order, set by the package on import.
PyObject* g_dtype_objects[kNumDTypes] = {};

namespace {

// Note [Tensor objects are reused]
// Each op called from Python makes one oar.Tensor object and, in a loop, frees one: a
// pymalloc allocation and free each time. Up to kKeptTensorObjects freed oar.Tensor
// objects (the type itself, not a subclass) keep their memory here for the next one,
// as CPython keeps freed floats. The list is read and written only under the GIL.
constexpr int kKeptTensorObjects = 64;
void* g_kept_tensor_objects[kKeptTensorObjects];  // guarded by the GIL
int g_kept_tensor_object_count = 0;               // guarded by the GIL

}  // namespace

bool KeepTensorObjectMemory(PyObject* o) {
  if (Py_TYPE(o) != g_tensor_type || g_kept_tensor_object_count == kKeptTensorObjects ||
      (g_tensor_type->tp_flags & Py_TPFLAGS_HAVE_GC)) {
    return false;
  }
  g_kept_tensor_objects[g_kept_tensor_object_count++] = o;
  return true;
}

PyObject* ToPyObject(Tensor&& t) {
  if (!t.defined()) Py_RETURN_NONE;
  TensorObject* self;
  if (g_tensor_type->tp_flags & Py_TPFLAGS_HAVE_GC) {
    self = reinterpret_cast<TensorObject*>(g_tensor_type->tp_alloc(g_tensor_type, 0));
    if (!self) return nullptr;
  } else {
    // The common case: no memset, no GC tracking (the object holds no Python refs).
    // Note [Tensor objects are reused]
    self = static_cast<TensorObject*>(g_kept_tensor_object_count > 0
                                          ? g_kept_tensor_objects[--g_kept_tensor_object_count]
                                          : PyObject_Malloc(g_tensor_type->tp_basicsize));
    if (!self) return PyErr_NoMemory();
    PyObject_Init(reinterpret_cast<PyObject*>(self), g_tensor_type);
  }
  new (&self->tensor) Tensor(std::move(t));
  return reinterpret_cast<PyObject*>(self);
}

PyObject* ToPyObject(const Tensor& t) { return ToPyObject(Tensor(t)); }

PyObject* ToPyObject(const std::vector<Tensor>& ts) {
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(ts.size()));
  if (!list) return nullptr;
  for (size_t i = 0; i < ts.size(); ++i) {
    PyObject* o = ToPyObject(ts[i]);
    if (!o) {
      Py_DECREF(list);
      return nullptr;
    }
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), o);
  }
  return list;
}

PyObject* ToPyObject(DType dtype) {
  const int i = static_cast<int>(dtype);
  if (i < 0 || i >= kNumDTypes || !g_dtype_objects[i]) {
    return PyUnicode_FromString(std::string(DTypeName(dtype)).c_str());
  }
  Py_INCREF(g_dtype_objects[i]);
  return g_dtype_objects[i];
}

PyObject* ToPyObject(bool v) { return PyBool_FromLong(v); }

PythonError::PythonError() {
  PyErr_Fetch(&type_, &value_, &traceback_);
  PyErr_NormalizeException(&type_, &value_, &traceback_);
  if (value_) {
    PyObject* s = PyObject_Str(value_);
    if (s) {
      what_ = PyUnicode_AsUTF8(s);
      Py_DECREF(s);
    }
    PyErr_Clear();
  }
}

PythonError::PythonError(const PythonError& other)
    : type_(other.type_), value_(other.value_), traceback_(other.traceback_), what_(other.what_) {
  GilAcquire gil;
  Py_XINCREF(type_);
  Py_XINCREF(value_);
  Py_XINCREF(traceback_);
}

PythonError::~PythonError() {
  if (!type_ && !value_ && !traceback_) return;
  GilAcquire gil;
  Py_XDECREF(type_);
  Py_XDECREF(value_);
  Py_XDECREF(traceback_);
}

void PythonError::Restore() const {
  Py_XINCREF(type_);
  Py_XINCREF(value_);
  Py_XINCREF(traceback_);
  PyErr_Restore(type_, value_, traceback_);
}

void SetPythonErrorFromCurrentException() {
  try {
    throw;
  } catch (const PythonError& e) {
    e.Restore();
  } catch (const Error& e) {
    PyObject* type = PyExc_RuntimeError;
    switch (e.code()) {
      case ErrorCode::kInvalidArgument:
        type = PyExc_ValueError;
        break;
      case ErrorCode::kInvalidType:
        type = PyExc_TypeError;
        break;
      case ErrorCode::kOutOfRange:
        type = PyExc_IndexError;
        break;
      case ErrorCode::kUnimplemented:
        type = PyExc_NotImplementedError;
        break;
      case ErrorCode::kNotFound:
      case ErrorCode::kPreconditionNotMet:
      case ErrorCode::kFatal:
        type = PyExc_RuntimeError;
        break;
      case ErrorCode::kResourceExhausted:
        type = PyExc_MemoryError;
        break;
    }
    PyErr_SetString(type, e.what());
  } catch (const std::bad_alloc&) {
    // PyErr_NoMemory's MemoryError has no message; say what failed.
    PyErr_SetString(PyExc_MemoryError, "out of memory: an allocation inside the operation failed");
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception");
  }
}

std::shared_ptr<PyObject> ShareRef(PyObject* o) {
  Py_XINCREF(o);
  return std::shared_ptr<PyObject>(o, [](PyObject* p) {
    if (!p) return;
    if (!Py_IsInitialized()) return;  // interpreter gone at exit: leak, do not crash
    GilAcquire gil;
    Py_DECREF(p);
  });
}

PyObject* CallPython(PyObject* fn, PyObject* args) {
  PyObject* r = PyObject_Call(fn, args, nullptr);
  if (!r) throw PythonError();
  return r;
}

}  // namespace oar::py
