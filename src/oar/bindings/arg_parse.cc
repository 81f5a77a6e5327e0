#include "oar/bindings/arg_parse.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "oar/api/api.h"
#include "oar/core/errors.h"

namespace oar::py {

extern PyObject* g_dtype_objects[kNumDTypes];

namespace {

const char* TypeName(PyObject* o) { return o == Py_None ? "None" : Py_TYPE(o)->tp_name; }

[[noreturn]] void ThrowType(const char* op, const char* arg, int pos, const char* expected,
                            PyObject* got) {
  throw errors::InvalidType(op, "(): argument '", arg, "' (position ", pos, ") must be ", expected,
                            ", but got ", TypeName(got));
}

bool IsPyInt(PyObject* o) {
  // Python ints, bools, and anything with __index__ (numpy integers), but not floats.
  return PyLong_Check(o) || (!PyFloat_Check(o) && PyIndex_Check(o) && !IsTensor(o));
}

int64_t PyIntValue(PyObject* o, const char* op, const char* arg, int pos) {
  const long long v = PyLong_AsLongLong(o);
  if (v == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    throw errors::OutOfRange(op, "(): argument '", arg, "' (position ", pos,
                             ") does not fit in int64");
  }
  return v;
}

// A tensor with one element used where a number is expected.
// A one-element integer tensor's value, exactly (through double, 2**53 + 1 became 2**53 and
// 2**63 - 1 an out-of-range conversion).
bool IntTensorValue(PyObject* o, int64_t* v) {
  if (!IsTensor(o)) return false;
  const Tensor& t = AsTensor(o);
  if (!t.defined() || t.numel() != 1 || !IsIntegral(t.dtype())) return false;
  *v = t.item<int64_t>();
  return true;
}

bool ScalarTensorValue(PyObject* o, double* v) {
  if (!IsTensor(o)) return false;
  const Tensor& t = AsTensor(o);
  if (!t.defined() || t.numel() != 1) return false;
  *v = t.item<double>();
  return true;
}

}  // namespace

void ParseArgs(const char* op, const char* const* names, Py_ssize_t n, PyObject* const* args,
               Py_ssize_t nargs, PyObject* kwnames, PyObject** out) {
  if (nargs > n) {
    throw errors::InvalidType(op, "() takes at most ", n, " arguments (", nargs, " given)");
  }
  for (Py_ssize_t i = 0; i < nargs; ++i) out[i] = args[i];
  for (Py_ssize_t i = nargs; i < n; ++i) out[i] = nullptr;
  if (!kwnames) return;
  const Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, k);
    const char* kname = PyUnicode_AsUTF8(key);
    if (!kname) throw PythonError();
    Py_ssize_t idx = -1;
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (std::strcmp(names[i], kname) == 0) {
        idx = i;
        break;
      }
    }
    if (idx < 0) {
      if (std::strcmp(kname, "name") == 0) continue;
      throw errors::InvalidType(op, "() got an unexpected keyword argument '", kname, "'");
    }
    if (out[idx]) {
      throw errors::InvalidType(op, "() got multiple values for argument '", kname, "'");
    }
    out[idx] = args[nargs + k];
  }
}

const Tensor& GetTensorFromArgs(const char* op, const char* arg, PyObject* obj, int pos,
                                bool dispensable) {
  static const Tensor kEmpty;
  if (obj == nullptr || obj == Py_None) {
    if (dispensable) return kEmpty;
    throw errors::InvalidType(op, "(): argument '", arg, "' (position ", pos,
                              ") must be Tensor, but got ", obj ? "None" : "nothing");
  }
  if (!IsTensor(obj)) ThrowType(op, arg, pos, "Tensor", obj);
  return AsTensor(obj);
}

std::vector<Tensor> GetTensorListFromArgs(const char* op, const char* arg, PyObject* obj, int pos) {
  if (!obj || !(PyList_Check(obj) || PyTuple_Check(obj))) {
    ThrowType(op, arg, pos, "list or tuple of Tensor", obj ? obj : Py_None);
  }
  PyObject* seq = obj;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  std::vector<Tensor> out;
  out.reserve(n);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(seq, i);
    if (!IsTensor(item)) {
      throw errors::InvalidType(op, "(): argument '", arg, "' (position ", pos,
                                ") must be list of Tensor, but item ", i, " is ", TypeName(item));
    }
    out.push_back(AsTensor(item));
  }
  return out;
}

bool CastPyArg2Boolean(PyObject* obj, const char* op, const char* arg, int pos, bool def) {
  if (!obj || obj == Py_None) return def;
  if (obj == Py_True) return true;
  if (obj == Py_False) return false;
  if (PyBool_Check(obj) || (IsPyInt(obj) && !PyLong_Check(obj))) {
    const int r = PyObject_IsTrue(obj);  // numpy.bool_
    if (r < 0) throw PythonError();
    return r;
  }
  ThrowType(op, arg, pos, "bool", obj);
}

int64_t CastPyArg2Long(PyObject* obj, const char* op, const char* arg, int pos,
                       std::optional<int64_t> def) {
  if (!obj || obj == Py_None) {
    if (def) return *def;
    ThrowType(op, arg, pos, "int", obj ? obj : Py_None);
  }
  if (PyLong_Check(obj)) return PyIntValue(obj, op, arg, pos);
  if (IsPyInt(obj)) {
    PyObject* i = PyNumber_Index(obj);
    if (!i) throw PythonError();
    const int64_t v = PyIntValue(i, op, arg, pos);
    Py_DECREF(i);
    return v;
  }
  int64_t v;
  if (IntTensorValue(obj, &v)) return v;
  ThrowType(op, arg, pos, "int", obj);
}

double CastPyArg2Double(PyObject* obj, const char* op, const char* arg, int pos,
                        std::optional<double> def) {
  if (!obj || obj == Py_None) {
    if (def) return *def;
    ThrowType(op, arg, pos, "float", obj ? obj : Py_None);
  }
  if (PyFloat_Check(obj)) return PyFloat_AS_DOUBLE(obj);
  if (PyLong_Check(obj)) {
    const double v = PyLong_AsDouble(obj);
    if (v == -1.0 && PyErr_Occurred()) throw PythonError();
    return v;
  }
  double d;
  if (ScalarTensorValue(obj, &d)) return d;
  if (!IsTensor(obj) && PyNumber_Check(obj)) {  // numpy scalars
    const double v = PyFloat_AsDouble(obj);
    if (v == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      ThrowType(op, arg, pos, "float", obj);
    }
    return v;
  }
  ThrowType(op, arg, pos, "float", obj);
}

Scalar CastPyArg2Scalar(PyObject* obj, const char* op, const char* arg, int pos,
                        std::optional<Scalar> def) {
  if (!obj || obj == Py_None) {
    if (def) return *def;
    ThrowType(op, arg, pos, "a number", obj ? obj : Py_None);
  }
  if (PyBool_Check(obj)) return Scalar(obj == Py_True);
  if (PyLong_Check(obj) || IsPyInt(obj)) {
    PyObject* i = PyNumber_Index(obj);
    if (!i) throw PythonError();
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
    const double d = overflow ? PyLong_AsDouble(i) : 0.0;  // beyond int64: as a float
    Py_DECREF(i);
    if (overflow) return Scalar(d);
    return Scalar(static_cast<int64_t>(v));
  }
  if (PyComplex_Check(obj)) {
    const Py_complex c = PyComplex_AsCComplex(obj);
    return Scalar(complex128(c.real, c.imag));
  }
  if (IsTensor(obj)) {
    const Tensor& t = AsTensor(obj);
    if (t.defined() && t.numel() == 1) {
      if (IsFloating(t.dtype())) return Scalar(t.item<double>());
      if (IsComplex(t.dtype())) return Scalar(t.item<complex128>());
      if (t.dtype() == DType::kBool) return Scalar(t.item<bool>());
      return Scalar(t.item<int64_t>());
    }
  }
  return Scalar(CastPyArg2Double(obj, op, arg, pos, std::nullopt));
}

std::vector<int64_t> CastPyArg2IntArray(PyObject* obj, const char* op, const char* arg, int pos,
                                        std::optional<std::vector<int64_t>> def) {
  if (!obj || obj == Py_None) {
    if (def) return *def;
    ThrowType(op, arg, pos, "list or tuple of int", obj ? obj : Py_None);
  }
  if (IsPyInt(obj)) return {CastPyArg2Long(obj, op, arg, pos, std::nullopt)};
  if (IsTensor(obj)) {
    const Tensor& t = AsTensor(obj);
    if (!IsIntegral(t.dtype()) || t.ndim() > 1) {
      ThrowType(op, arg, pos, "int, list of int, or a 1-D integer Tensor", obj);
    }
    const Tensor c = api::cast(t, DType::kInt64);  // a contiguous copy
    const int64_t* p = c.data<int64_t>();
    return std::vector<int64_t>(p, p + c.numel());
  }
  if (PyList_Check(obj) || PyTuple_Check(obj)) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
    std::vector<int64_t> v;
    v.reserve(n);
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* item = PySequence_Fast_GET_ITEM(obj, i);
      int64_t iv;
      if (IsPyInt(item)) {
        v.push_back(CastPyArg2Long(item, op, arg, pos, std::nullopt));
      } else if (IntTensorValue(item, &iv)) {
        v.push_back(iv);
      } else {
        throw errors::InvalidType(op, "(): argument '", arg, "' (position ", pos,
                                  ") must be list of int, but item ", i, " is ", TypeName(item));
      }
    }
    return v;
  }
  ThrowType(op, arg, pos, "int, list or tuple of int", obj);
}

void SetDTypeObjects(PyObject* tuple) {
  if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != kNumDTypes) {
    throw errors::InvalidArgument("_set_dtype_objects expects a tuple of ", kNumDTypes,
                                  " dtype objects");
  }
  for (int i = 0; i < kNumDTypes; ++i) {
    PyObject* o = PyTuple_GET_ITEM(tuple, i);
    Py_INCREF(o);
    Py_XDECREF(g_dtype_objects[i]);
    g_dtype_objects[i] = o;
  }
}

DType PyObjectToDType(PyObject* obj) {
  for (int i = 0; i < kNumDTypes; ++i) {
    if (obj == g_dtype_objects[i]) return static_cast<DType>(i);
  }
  if (PyUnicode_Check(obj)) return DTypeFromName(PyUnicode_AsUTF8(obj));
  // An oar dtype object without a DType: Paddle's uint32 and uint64, which name
  // dtypes whose tensors neither oar nor Paddle's CPU build can make.
  if (g_dtype_objects[0] && Py_TYPE(obj) == Py_TYPE(g_dtype_objects[0])) {
    PyObject* name = PyObject_GetAttrString(obj, "name");
    const std::string s = name && PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : "?";
    Py_XDECREF(name);
    PyErr_Clear();
    throw errors::InvalidType("oar has no ", s,
                              " tensors (nor has Paddle's CPU build); expected one of bool, "
                              "uint8, int8, int16, int32, int64, float16, bfloat16, float32, "
                              "float64, complex64, complex128");
  }
  // numpy dtypes and scalar types, Python's float/int/bool: ask for a name.
  if (obj == reinterpret_cast<PyObject*>(&PyFloat_Type)) return DType::kFloat32;
  if (obj == reinterpret_cast<PyObject*>(&PyLong_Type)) return DType::kInt64;
  if (obj == reinterpret_cast<PyObject*>(&PyBool_Type)) return DType::kBool;
  PyObject* np = PyImport_ImportModule("numpy");
  if (np) {
    PyObject* dt = PyObject_CallMethod(np, "dtype", "O", obj);
    Py_DECREF(np);
    if (dt) {
      PyObject* name = PyObject_GetAttrString(dt, "name");
      Py_DECREF(dt);
      if (name) {
        const std::string s = PyUnicode_AsUTF8(name);
        Py_DECREF(name);
        return DTypeFromName(s);
      }
    }
  }
  PyErr_Clear();
  throw errors::InvalidType("expected a dtype (oar.float32, 'float32', numpy dtype), but got ",
                            TypeName(obj));
}

DType CastPyArg2DType(PyObject* obj, const char* op, const char* arg, int pos,
                      std::optional<DType> def) {
  if (!obj || obj == Py_None) {
    if (def) return *def;
    ThrowType(op, arg, pos, "dtype", obj ? obj : Py_None);
  }
  try {
    return PyObjectToDType(obj);
  } catch (Error& e) {
    e.Prepend(StrCat(op, "(): argument '", arg, "' (position ", pos, "): "));
    throw;
  }
}

namespace {
constexpr int64_t kReleaseGilElements = 1 << 16;
}
bool WorthReleasingGil(const Tensor& t) { return t.has_meta() && t.numel() >= kReleaseGilElements; }
bool WorthReleasingGil(const std::vector<Tensor>& ts) {
  int64_t n = 0;  // stops at the threshold: expanded views can sum past int64
  for (const auto& t : ts) {
    n += t.has_meta() ? std::min(t.numel(), kReleaseGilElements) : 0;
    if (n >= kReleaseGilElements) return true;
  }
  return false;
}

}  // namespace oar::py
