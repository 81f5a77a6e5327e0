// The python-c layer's shared pieces: the Tensor object, conversions, the GIL,
// and the mapping of C++ exceptions to Python ones (Paddle's python-c layer:
// docs/design.md §4; the mapping: docs/design.md §6).
//
// Note [The GIL and callbacks into Python]
// Ops release the GIL for large inputs (WorthReleasingGil, arg_parse.h) and
// backward()/grad() always do, so C++ runs user Python code (tensor hooks,
// reduce hooks, final callbacks, PyLayer, saved-tensor pack/unpack) on a
// thread that does not hold the GIL. Hence every call from C++ into Python is
// made under a GilAcquire; every Python object a graph keeps is held through
// ShareRef, whose last release takes the GIL (a node may die on any thread,
// in the middle of a backward); and a Python exception raised in a callback
// crosses C++ as a PythonError and is restored unchanged.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "oar/core/tensor.h"

namespace oar::py {

struct TensorObject {
  PyObject_HEAD Tensor tensor;
};

// The oar.Tensor type (a heap type, so Python code can add methods to it).
extern PyTypeObject* g_tensor_type;

inline bool IsTensor(PyObject* o) {
  return Py_IS_TYPE(o, g_tensor_type) || PyObject_TypeCheck(o, g_tensor_type);
}
inline Tensor& AsTensor(PyObject* o) { return reinterpret_cast<TensorObject*>(o)->tensor; }

// Called by oar.Tensor's dealloc once the object's tensor is destroyed: keeps the
// object's memory for the next oar.Tensor (Note [Tensor objects are reused] in
// py_utils.cc) and returns true, or returns false and the caller frees it.
bool KeepTensorObjectMemory(PyObject* o);

// New references. An undefined tensor becomes None.
PyObject* ToPyObject(Tensor&& t);
PyObject* ToPyObject(const Tensor& t);
PyObject* ToPyObject(const std::vector<Tensor>& ts);  // a list
PyObject* ToPyObject(DType dtype);                    // the oar.<dtype> object
PyObject* ToPyObject(bool v);

// A Python exception caught while C++ called back into Python (a hook, a
// PyLayer); carried through C++ and restored unchanged at the boundary.
class PythonError : public std::exception {
 public:
  PythonError();  // fetches the current Python error (GIL held)
  ~PythonError() override;
  PythonError(const PythonError&);
  const char* what() const noexcept override { return what_.c_str(); }
  void Restore() const;  // re-raises it (GIL held)

 private:
  PyObject* type_ = nullptr;
  PyObject* value_ = nullptr;
  PyObject* traceback_ = nullptr;
  std::string what_;
};

// Sets the Python error for the exception in flight (call inside catch (...)).
void SetPythonErrorFromCurrentException();

// Release the GIL for work that does not touch Python objects.
class GilRelease {
 public:
  GilRelease() : state_(PyEval_SaveThread()) {}
  ~GilRelease() { PyEval_RestoreThread(state_); }
  GilRelease(const GilRelease&) = delete;
  GilRelease& operator=(const GilRelease&) = delete;

 private:
  PyThreadState* state_;
};

// Hold the GIL while C++ calls into Python (works whether or not it is held).
class GilAcquire {
 public:
  GilAcquire() : state_(PyGILState_Ensure()) {}
  ~GilAcquire() { PyGILState_Release(state_); }
  GilAcquire(const GilAcquire&) = delete;
  GilAcquire& operator=(const GilAcquire&) = delete;

 private:
  PyGILState_STATE state_;
};

// An owned reference whose last release takes the GIL, so C++ may drop it from
// any thread (a grad node freed during backward).
std::shared_ptr<PyObject> ShareRef(PyObject* o);

// Calls `fn(args...)` with the GIL; a Python exception becomes a PythonError.
PyObject* CallPython(PyObject* fn, PyObject* args);

}  // namespace oar::py

#define OAR_PY_TRY try {
#define OAR_PY_CATCH                                 \
  }                                                  \
  catch (...) {                                      \
    ::oar::py::SetPythonErrorFromCurrentException(); \
    return nullptr;                                  \
  }
#define OAR_PY_CATCH_INT                             \
  }                                                  \
  catch (...) {                                      \
    ::oar::py::SetPythonErrorFromCurrentException(); \
    return -1;                                       \
  }
