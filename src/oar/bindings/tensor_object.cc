// The oar.Tensor type: a heap type whose objects hold an oar::Tensor by value.
// Operators, properties and the autograd methods live here; the op methods are
// generated (op_bindings.h); indexing, repr and other pure-Python conveniences
// are added by the package (python/oar/tensor/methods.py).
#include <string>
#include <vector>

#include "oar/autograd/eager_utils.h"
#include "oar/bindings/arg_parse.h"
#include "oar/bindings/grad_node_object.h"
#include "oar/bindings/jit_capture.h"
#include "oar/bindings/op_bindings.h"
#include "oar/bindings/py_utils.h"
#include "oar/bindings/tensor_object.h"

#include "oar/bindings/grad_node_object.h"
#include "oar/eager/creation.h"
#include "oar/eager/dygraph_functions.h"

namespace oar::py {
namespace {

PyObject* g_tensor_factory = nullptr;  // oar.to_tensor, for Tensor(data, ...)
PyObject* g_shape_type = nullptr;      // oar.Size, for Tensor.shape

void TensorDealloc(PyObject* o) {
  PyTypeObject* type = Py_TYPE(o);
  AsTensor(o).~Tensor();
  if (!KeepTensorObjectMemory(o)) type->tp_free(o);
  Py_DECREF(type);  // instances of heap types own a reference to their type
}

PyObject* TensorNew(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  OAR_PY_TRY
  if ((args && PyTuple_GET_SIZE(args) > 0) || (kwargs && PyDict_Size(kwargs) > 0)) {
    if (!g_tensor_factory) {
      PyErr_SetString(PyExc_RuntimeError, "oar.Tensor(data): the oar package is not initialised");
      return nullptr;
    }
    return PyObject_Call(g_tensor_factory, args, kwargs);
  }
  PyObject* self = type->tp_alloc(type, 0);
  if (self) new (&AsTensor(self)) Tensor();
  return self;
  OAR_PY_CATCH
}

Py_hash_t TensorHash(PyObject* o) { return _Py_HashPointer(o); }

// ---- operators ------------------------------------------------------------------

enum class BinOp { kAdd, kSub, kMul, kDiv, kPow, kMatmul, kEq, kNe, kLt, kLe, kGt, kGe };

enum class ScalarKind { kBool, kInt, kFloat };

// A Python number usable as a scalar operand (not a tensor).
bool AsScalar(PyObject* o, double* v, ScalarKind* kind) {
  if (IsTensor(o)) return false;
  if (PyBool_Check(o)) {
    *v = o == Py_True;
    *kind = ScalarKind::kBool;
    return true;
  }
  if (PyLong_Check(o)) {
    *v = PyLong_AsDouble(o);
    if (*v == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    *kind = ScalarKind::kInt;
    return true;
  }
  if (PyFloat_Check(o)) {
    *v = PyFloat_AS_DOUBLE(o);
    *kind = ScalarKind::kFloat;
    return true;
  }
  if (PyIndex_Check(o)) {  // numpy integers
    PyObject* i = PyNumber_Index(o);
    if (!i) {
      PyErr_Clear();
      return false;
    }
    *v = PyLong_AsDouble(i);
    Py_DECREF(i);
    *kind = ScalarKind::kInt;
    return true;
  }
  if (PyNumber_Check(o) && !PySequence_Check(o)) {  // numpy floats
    *v = PyFloat_AsDouble(o);
    if (*v == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    *kind = ScalarKind::kFloat;
    return true;
  }
  return false;
}

// The dtype a tensor takes when combined with a Python scalar (Paddle's rule):
// a scalar of the tensor's kind keeps its dtype; a float scalar turns integer
// and bool tensors into float32, an int scalar turns bool into int64.
DType ScalarResultType(DType t, ScalarKind kind) {
  if (IsFloating(t) || IsComplex(t)) return t;
  if (kind == ScalarKind::kFloat) return DType::kFloat32;
  if (t == DType::kBool && kind == ScalarKind::kInt) return DType::kInt64;
  return t;
}

Tensor CastTo(const Tensor& x, DType d) { return x.dtype() == d ? x : cast(x, d); }

Tensor TensorTensorOp(const Tensor& a, const Tensor& b, BinOp op);

Tensor TensorScalarOp(const Tensor& x, double s, ScalarKind kind, BinOp op, bool reflected) {
  DType rt = ScalarResultType(x.dtype(), kind);
  if (op == BinOp::kDiv && !IsFloating(rt) && !IsComplex(rt))
    rt = DType::kFloat32;  // true division
  const Tensor xc = CastTo(x, rt);
  auto full_s = [&] { return full_like(xc, s, rt); };
  // A complex tensor to the power 0 is 1 everywhere (Paddle's `x ** 0` and paddle.pow,
  // PyTorch), where the tensor op's exp(0 * log x) is NaN at x = 0: the scalar pow.
  if (IsComplex(rt) && op == BinOp::kPow && !reflected && s == 0.0) return pow(xc, s);
  // bool with bool, and complex: the tensor ops (scale has no bool or complex kernel)
  if (rt == DType::kBool || IsComplex(rt)) {
    return reflected ? TensorTensorOp(full_s(), xc, op) : TensorTensorOp(xc, full_s(), op);
  }
  switch (op) {
    case BinOp::kAdd:
      return scale(xc, 1.0, s, true);
    case BinOp::kSub:
      return reflected ? scale(xc, -1.0, s, true) : scale(xc, 1.0, -s, true);
    case BinOp::kMul:
      return scale(xc, s, 0.0, true);
    case BinOp::kDiv:
      return reflected ? divide(full_s(), xc) : scale(xc, 1.0 / s, 0.0, true);
    case BinOp::kPow:
      return reflected ? elementwise_pow(full_s(), xc) : pow(xc, s);
    case BinOp::kEq:
      return equal(xc, full_s());
    case BinOp::kNe:
      return not_equal(xc, full_s());
    case BinOp::kLt:
      return reflected ? greater_than(xc, full_s()) : less_than(xc, full_s());
    case BinOp::kLe:
      return reflected ? greater_equal(xc, full_s()) : less_equal(xc, full_s());
    case BinOp::kGt:
      return reflected ? less_than(xc, full_s()) : greater_than(xc, full_s());
    case BinOp::kGe:
      return reflected ? less_equal(xc, full_s()) : greater_equal(xc, full_s());
    case BinOp::kMatmul:
      break;
  }
  throw errors::InvalidType("matmul (@) needs two tensors, but got a Tensor and a scalar");
}

Tensor TensorTensorOp(const Tensor& a, const Tensor& b, BinOp op) {
  switch (op) {
    case BinOp::kAdd:
      return add(a, b);
    case BinOp::kSub:
      return subtract(a, b);
    case BinOp::kMul:
      return multiply(a, b);
    case BinOp::kDiv:
      return divide(a, b);  // integers divide as float32
    case BinOp::kPow:
      return elementwise_pow(a, b);
    case BinOp::kMatmul:
      return matmul(a, b);
    case BinOp::kEq:
      return equal(a, b);
    case BinOp::kNe:
      return not_equal(a, b);
    case BinOp::kLt:
      return less_than(a, b);
    case BinOp::kLe:
      return less_equal(a, b);
    case BinOp::kGt:
      return greater_than(a, b);
    case BinOp::kGe:
      return greater_equal(a, b);
  }
  return Tensor();
}

PyObject* Binary(PyObject* a, PyObject* b, BinOp op) {
  OAR_PY_TRY
  const bool ta = IsTensor(a), tb = IsTensor(b);
  Tensor out;
  if (ta && tb) {
    out = TensorTensorOp(AsTensor(a), AsTensor(b), op);
  } else {
    double s;
    ScalarKind kind;
    PyObject* other = ta ? b : a;
    if (PyComplex_Check(other)) {
      // A Python complex makes a complex64 result, complex128 with a double
      // tensor (Paddle's rule), through the tensor ops' promotion.
      const Tensor& x = AsTensor(ta ? a : b);
      const Py_complex c = PyComplex_AsCComplex(other);
      const DType ct = ToComplex(x.dtype());
      const Tensor cs = full_like(x, Scalar(complex128(c.real, c.imag)), ct);
      out = ta ? TensorTensorOp(x, cs, op) : TensorTensorOp(cs, x, op);
      return ToPyObject(std::move(out));
    }
    if (!AsScalar(other, &s, &kind)) Py_RETURN_NOTIMPLEMENTED;
    out = TensorScalarOp(AsTensor(ta ? a : b), s, kind, op, /*reflected=*/!ta);
  }
  return ToPyObject(std::move(out));
  OAR_PY_CATCH
}

PyObject* NbAdd(PyObject* a, PyObject* b) { return Binary(a, b, BinOp::kAdd); }
PyObject* NbSub(PyObject* a, PyObject* b) { return Binary(a, b, BinOp::kSub); }
PyObject* NbMul(PyObject* a, PyObject* b) { return Binary(a, b, BinOp::kMul); }
PyObject* NbDiv(PyObject* a, PyObject* b) { return Binary(a, b, BinOp::kDiv); }
PyObject* NbMatmul(PyObject* a, PyObject* b) { return Binary(a, b, BinOp::kMatmul); }
PyObject* NbPow(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return Binary(a, b, BinOp::kPow);
}

PyObject* RichCompare(PyObject* a, PyObject* b, int op) {
  switch (op) {
    case Py_EQ:
      return Binary(a, b, BinOp::kEq);
    case Py_NE:
      return Binary(a, b, BinOp::kNe);
    case Py_LT:
      return Binary(a, b, BinOp::kLt);
    case Py_LE:
      return Binary(a, b, BinOp::kLe);
    case Py_GT:
      return Binary(a, b, BinOp::kGt);
    case Py_GE:
      return Binary(a, b, BinOp::kGe);
  }
  Py_RETURN_NOTIMPLEMENTED;
}

PyObject* NbNeg(PyObject* a) {
  OAR_PY_TRY
  return ToPyObject(neg(AsTensor(a)));
  OAR_PY_CATCH
}
PyObject* NbPos(PyObject* a) {
  Py_INCREF(a);
  return a;
}
PyObject* NbAbs(PyObject* a) {
  OAR_PY_TRY
  return ToPyObject(abs(AsTensor(a)));
  OAR_PY_CATCH
}

const Tensor& SingleElement(PyObject* o, const char* what) {
  const Tensor& t = AsTensor(o);
  CaptureBreakIfTraced(t, what);
  if (!t.defined() || t.numel() != 1) {
    throw errors::InvalidArgument(
        what,
        ": only a tensor with one element can be converted to a "
        "Python scalar, but the tensor has shape ",
        t.defined() ? DimsToString(t.dims()) : std::string("(undefined)"));
  }
  return t;
}

int NbBool(PyObject* o) {
  OAR_PY_TRY
  return SingleElement(o, "bool()").item<double>() != 0;
  OAR_PY_CATCH_INT
}
PyObject* NbFloat(PyObject* o) {
  OAR_PY_TRY
  return PyFloat_FromDouble(SingleElement(o, "float()").item<double>());
  OAR_PY_CATCH
}
PyObject* NbInt(PyObject* o) {
  OAR_PY_TRY
  const Tensor& t = SingleElement(o, "int()");
  if (IsFloating(t.dtype())) return PyLong_FromDouble(t.item<double>());
  return PyLong_FromLongLong(t.item<int64_t>());
  OAR_PY_CATCH
}
PyObject* NbIndex(PyObject* o) {
  OAR_PY_TRY
  const Tensor& t = SingleElement(o, "index");
  if (!IsIntegral(t.dtype()) && t.dtype() != DType::kBool) {
    throw errors::InvalidType(
        "only integer tensors with one element can be used as an index, "
        "not ",
        t.dtype());
  }
  return PyLong_FromLongLong(t.item<int64_t>());
  OAR_PY_CATCH
}

Py_ssize_t MpLength(PyObject* o) {
  OAR_PY_TRY
  const Tensor& t = AsTensor(o);
  if (!t.defined()) return 0;
  if (t.ndim() == 0) throw errors::InvalidType("len() of a 0-D tensor");
  return static_cast<Py_ssize_t>(t.dims()[0]);
  OAR_PY_CATCH_INT
}

// ---- properties -------------------------------------------------------------------

const Tensor& Defined(PyObject* o) {
  const Tensor& t = AsTensor(o);
  if (!t.defined()) throw errors::PreconditionNotMet("the tensor is not initialised");
  return t;
}

PyObject* GetShape(PyObject* o, void*) {
  OAR_PY_TRY
  const Tensor& t = Defined(o);
  if (g_shape_type == nullptr) {
    PyObject* list = PyList_New(t.ndim());
    for (int i = 0; i < t.ndim(); ++i) PyList_SET_ITEM(list, i, PyLong_FromLongLong(t.dims()[i]));
    return list;
  }
  // The package's Size (a list subclass with no state of its own): allocated directly,
  // without running its Python __init__, which validates user input a shape never needs.
  auto* type = reinterpret_cast<PyTypeObject*>(g_shape_type);
  PyObject* size = type->tp_alloc(type, 0);
  if (size == nullptr) return nullptr;
  for (int i = 0; i < t.ndim(); ++i) {
    PyObject* d = PyLong_FromLongLong(t.dims()[i]);
    const int rc = d == nullptr ? -1 : PyList_Append(size, d);
    Py_XDECREF(d);
    if (rc < 0) {
      Py_DECREF(size);
      return nullptr;
    }
  }
  return size;
  OAR_PY_CATCH
}
PyObject* GetDType(PyObject* o, void*) {
  OAR_PY_TRY
  return ToPyObject(Defined(o).dtype());
  OAR_PY_CATCH
}
PyObject* GetNdim(PyObject* o, void*) {
  OAR_PY_TRY
  return PyLong_FromLong(Defined(o).ndim());
  OAR_PY_CATCH
}
PyObject* GetSize(PyObject* o, void*) {
  OAR_PY_TRY
  return PyLong_FromLongLong(Defined(o).numel());
  OAR_PY_CATCH
}
PyObject* GetName(PyObject* o, void*) { return PyUnicode_FromString(AsTensor(o).name().c_str()); }
int SetName(PyObject* o, PyObject* v, void*) {
  if (!v || !PyUnicode_Check(v)) {
    PyErr_SetString(PyExc_TypeError, "Tensor.name must be a str");
    return -1;
  }
  AsTensor(o).set_name(PyUnicode_AsUTF8(v));
  return 0;
}
PyObject* GetPlace(PyObject* o, void*) {
  OAR_PY_TRY
  const Place p = Defined(o).place();
  return PyUnicode_FromString(p.is_gpu() ? "Place(gpu:0)" : "Place(cpu)");
  OAR_PY_CATCH
}
PyObject* GetIsLeaf(PyObject* o, void*) { return ToPyObject(AsTensor(o).is_leaf()); }
PyObject* GetStopGradient(PyObject* o, void*) { return ToPyObject(AsTensor(o).stop_gradient()); }
int SetStopGradient(PyObject* o, PyObject* v, void*) {
  OAR_PY_TRY
  if (!v) throw errors::InvalidType("cannot delete stop_gradient");
  CaptureBreakIfTraced(AsTensor(o), "setting stop_gradient");
  AsTensor(o).set_stop_gradient(CastPyArg2Boolean(v, "stop_gradient", "value", 0, true));
  return 0;
  OAR_PY_CATCH_INT
}
PyObject* GetGrad(PyObject* o, void*) {
  OAR_PY_TRY
  return ToPyObject(GradForPython(AsTensor(o)));
  OAR_PY_CATCH
}
int SetGrad(PyObject* o, PyObject* v, void*) {
  OAR_PY_TRY
  Tensor& t = AsTensor(o);
  if (v && v != Py_None) {
    const Tensor& g = GetTensorFromArgs("Tensor.grad", "value", v, 0);
    if (g.dims() != t.dims()) {
      throw errors::InvalidArgument("Tensor.grad: the gradient's shape ", DimsToString(g.dims()),
                                    " differs from the tensor's ", DimsToString(t.dims()));
    }
    *EagerGradHolder(t) = Tensor(g.impl());
  } else {
    t.clear_grad(false);
  }
  return 0;
  OAR_PY_CATCH_INT
}
PyObject* GetInplaceVersion(PyObject* o, void*) {
  return PyLong_FromUnsignedLong(AsTensor(o).current_inplace_version());
}
PyObject* GetPersistable(PyObject* o, void*) { return ToPyObject(TensorPersistable(AsTensor(o))); }
int SetPersistable(PyObject* o, PyObject* v, void*) {
  OAR_PY_TRY
  SetTensorPersistable(AsTensor(o), CastPyArg2Boolean(v, "persistable", "value", 0, false));
  return 0;
  OAR_PY_CATCH_INT
}
PyObject* GetGradFn(PyObject* o, void*) {
  OAR_PY_TRY
  return TensorGradFn(AsTensor(o));
  OAR_PY_CATCH
}
PyObject* GetOutRank(PyObject* o, void*) {
  const auto* meta = EagerUtils::nullable_autograd_meta(AsTensor(o));
  if (!meta) Py_RETURN_NONE;
  const auto [slot, rank] = meta->OutRankInfo();
  return Py_BuildValue("(nn)", static_cast<Py_ssize_t>(slot), static_cast<Py_ssize_t>(rank));
}
PyObject* GetGradFnName(PyObject* o, void*) {
  auto fn = AsTensor(o).grad_fn();
  if (!fn) Py_RETURN_NONE;
  return PyUnicode_FromString(GradFnName(fn).c_str());
}

PyGetSetDef g_getset[] = {
    {"shape", GetShape, nullptr, "The shape: an oar.Size, a list of ints.", nullptr},
    {"dtype", GetDType, nullptr, "The element type.", nullptr},
    {"ndim", GetNdim, nullptr, "The number of dimensions.", nullptr},
    {"size", GetSize, nullptr, "The number of elements.", nullptr},
    {"name", GetName, SetName, "A name for debugging.", nullptr},
    {"place", GetPlace, nullptr, "Where the data lives.", nullptr},
    {"is_leaf", GetIsLeaf, nullptr, "No grad node produced this tensor.", nullptr},
    {"stop_gradient", GetStopGradient, SetStopGradient, "True: no gradient is computed.", nullptr},
    {"grad", GetGrad, SetGrad, "The accumulated gradient, or None.", nullptr},
    {"inplace_version", GetInplaceVersion, nullptr, "In-place writes to the memory so far.",
     nullptr},
    {"persistable", GetPersistable, SetPersistable, "Kept across runs (parameters).", nullptr},
    {"_grad_fn_name", GetGradFnName, nullptr, "The name of the grad node, or None.", nullptr},
    {"grad_fn", GetGradFn, nullptr,
     "The grad node that produced this tensor (a GradNodeAccumulation for a leaf that needs a "
     "gradient), or None.",
     nullptr},
    {"_out_rank", GetOutRank, nullptr,
     "(slot, rank) of this tensor among its grad node's gradient inputs, or None.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

// ---- methods ------------------------------------------------------------------------

PyObject* MBackward(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  OAR_PY_TRY
  static const char* const kNames[] = {"grad_tensor", "retain_graph"};
  PyObject* objs[2];
  ParseArgs("backward", kNames, 2, args, nargs, kwnames, objs);
  const Tensor& g = GetTensorFromArgs("backward", "grad_tensor", objs[0], 0, true);
  const bool retain = CastPyArg2Boolean(objs[1], "backward", "retain_graph", 1, false);
  const Tensor& t = AsTensor(self);
  {
    GilRelease nogil;  // Note [The GIL and callbacks into Python]
    t.backward(g, retain);
  }
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

PyObject* MRetainGrads(PyObject* self, PyObject*) {
  OAR_PY_TRY
  AsTensor(self).retain_grads();
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

PyObject* MClearGrad(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  OAR_PY_TRY
  static const char* const kNames[] = {"set_to_zero"};
  PyObject* objs[1];
  ParseArgs("clear_grad", kNames, 1, args, nargs, kwnames, objs);
  AsTensor(self).clear_grad(CastPyArg2Boolean(objs[0], "clear_grad", "set_to_zero", 0, true));
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

PyObject* MDetach(PyObject* self, PyObject*) {
  OAR_PY_TRY
  return ToPyObject(CaptureDetach(AsTensor(self)));
  OAR_PY_CATCH
}

// detach_(): this object's tensor is replaced by a detached one on the same storage, so
// the grad node it came from, its hooks and stop_gradient=False stay with the graph, and
// the object is a leaf that stops gradients, as Paddle's detach_ leaves it.
PyObject* MDetachInplace(PyObject* self, PyObject*) {
  OAR_PY_TRY
  Tensor& t = AsTensor(self);
  t = t.detach();
  Py_INCREF(self);
  return self;
  OAR_PY_CATCH
}

PyObject* MClone(PyObject* self, PyObject*) {
  OAR_PY_TRY
  return ToPyObject(assign(AsTensor(self)));
  OAR_PY_CATCH
}

PyObject* MItem(PyObject* self, PyObject*) {
  OAR_PY_TRY
  const Tensor& t = SingleElement(self, "item()");
  if (IsFloating(t.dtype())) return PyFloat_FromDouble(t.item<double>());
  if (IsComplex(t.dtype())) {
    const complex128 c = t.item<complex128>();
    return PyComplex_FromDoubles(c.real(), c.imag());
  }
  if (t.dtype() == DType::kBool) return PyBool_FromLong(t.item<bool>());
  return PyLong_FromLongLong(t.item<int64_t>());
  OAR_PY_CATCH
}

PyObject* MIsContiguous(PyObject* self, PyObject*) {
  OAR_PY_TRY
  return ToPyObject(Defined(self).is_contiguous());
  OAR_PY_CATCH
}

PyObject* MContiguous(PyObject* self, PyObject*) {
  OAR_PY_TRY
  const Tensor& t = Defined(self);
  if (t.is_contiguous()) {
    Py_INCREF(self);
    return self;
  }
  return ToPyObject(assign(t));
  OAR_PY_CATCH
}

PyObject* MIsInitialized(PyObject* self, PyObject*) {
  OAR_PY_TRY
  return ToPyObject(AsTensor(self).initialized());
  OAR_PY_CATCH
}

PyObject* MDim(PyObject* self, PyObject*) {
  OAR_PY_TRY
  return PyLong_FromLong(Defined(self).ndim());
  OAR_PY_CATCH
}

PyObject* MNumel(PyObject* self, PyObject*) {
  OAR_PY_TRY
  return PyLong_FromLongLong(Defined(self).numel());
  OAR_PY_CATCH
}

// ---- sparse tensors (docs/sparse.md) ------------------------------------------------
PyObject* MIsSparse(PyObject* self, PyObject*) { return ToPyObject(AsTensor(self).is_sparse()); }
PyObject* MIsSparseCoo(PyObject* self, PyObject*) {
  return ToPyObject(AsTensor(self).is_sparse_coo());
}
PyObject* MIsSparseCsr(PyObject* self, PyObject*) {
  return ToPyObject(AsTensor(self).is_sparse_csr());
}
PyObject* MIsDense(PyObject* self, PyObject*) { return ToPyObject(AsTensor(self).is_dense()); }

PyObject* MNnz(PyObject* self, PyObject*) {
  OAR_PY_TRY
  const Tensor& t = Defined(self);
  if (t.is_sparse_coo()) return PyLong_FromLongLong(t.sparse_coo().nnz());
  if (t.is_sparse_csr()) return PyLong_FromLongLong(t.sparse_csr().nnz());
  throw errors::InvalidType("nnz(): the tensor is dense; nnz() counts the stored entries of a ",
                            "sparse tensor");
  OAR_PY_CATCH
}

// Paddle's rule: a CSR tensor's dimensions are all sparse; a dense tensor has none.
PyObject* MSparseDim(PyObject* self, PyObject*) {
  OAR_PY_TRY
  const Tensor& t = Defined(self);
  if (t.is_sparse_coo()) return PyLong_FromLongLong(t.sparse_coo().sparse_dim());
  return PyLong_FromLong(t.is_sparse_csr() ? t.ndim() : 0);
  OAR_PY_CATCH
}

PyObject* MDenseDim(PyObject* self, PyObject*) {
  OAR_PY_TRY
  const Tensor& t = Defined(self);
  if (t.is_sparse_coo()) return PyLong_FromLongLong(t.sparse_coo().dense_dim());
  return PyLong_FromLong(t.is_sparse_csr() ? 0 : t.ndim());
  OAR_PY_CATCH
}

PyObject* MIsCoalesced(PyObject* self, PyObject*) {
  OAR_PY_TRY
  return ToPyObject(Defined(self).sparse_coo().coalesced());
  OAR_PY_CATCH
}

PyObject* MElementSize(PyObject* self, PyObject*) {
  OAR_PY_TRY
  return PyLong_FromSize_t(SizeOf(Defined(self).dtype()));
  OAR_PY_CATCH
}

PyObject* MDataPtr(PyObject* self, PyObject*) {
  OAR_PY_TRY
  const Tensor& t = Defined(self);
  return PyLong_FromVoidPtr(t.initialized() ? const_cast<void*>(t.dense().data()) : nullptr);
  OAR_PY_CATCH
}

// For code that wrote the memory through data_ptr(): what an in-place op does
// after its write (Note [A convolution's weight packed across calls]).
PyObject* MBumpInplaceVersion(PyObject* self, PyObject*) {
  OAR_PY_TRY
  Defined(self);  // an undefined tensor is a typed error
  if (AsTensor(self).is_dense()) AsTensor(self).bump_inplace_version();
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

PyObject* MBuffer(PyObject* self, PyObject*) {
  OAR_PY_TRY
  CaptureBreakIfTraced(Defined(self), "numpy()");
  return MakeBufferOwner(Defined(self), false);
  OAR_PY_CATCH
}

// For readers that copy or only read (numpy(), printing): a read-only view
// leaves the memory writable by oar's ops alone.
PyObject* MReadonlyBuffer(PyObject* self, PyObject*) {
  OAR_PY_TRY
  CaptureBreakIfTraced(Defined(self), "numpy()");
  return MakeBufferOwner(Defined(self), true);
  OAR_PY_CATCH
}

PyObject* MRegisterHook(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                        PyObject* kwnames) {
  OAR_PY_TRY
  static const char* const kNames[] = {"hook"};
  PyObject* objs[1];
  ParseArgs("register_hook", kNames, 1, args, nargs, kwnames, objs);
  if (!objs[0] || !PyCallable_Check(objs[0])) {
    throw errors::InvalidType("register_hook(): argument 'hook' (position 0) must be callable");
  }
  return RegisterPythonTensorHook(AsTensor(self), objs[0]);
  OAR_PY_CATCH
}

#define OAR_METHOD(name, fn, doc)                                         \
  {name, reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(fn)), \
   METH_FASTCALL | METH_KEYWORDS, doc}

#define OAR_NOARGS(name, fn, doc) {name, fn, METH_NOARGS, doc}

PyMethodDef g_methods[] = {
    OAR_METHOD("backward", MBackward, "backward(grad_tensor=None, retain_graph=False)"),
    OAR_NOARGS("retain_grads", MRetainGrads, "Keep this non-leaf tensor's gradient in .grad."),
    OAR_METHOD("clear_grad", MClearGrad, "clear_grad(set_to_zero=True)"),
    OAR_METHOD("clear_gradient", MClearGrad, "clear_gradient(set_to_zero=True)"),
    OAR_NOARGS("detach", MDetach, "The same data, cut from the graph."),
    OAR_NOARGS("detach_", MDetachInplace,
               "Cuts this tensor from the graph in place (stop_gradient becomes True); "
               "returns it."),
    OAR_NOARGS("clone", MClone, "A differentiable copy."),
    OAR_NOARGS("item", MItem, "The single element as a Python scalar."),
    OAR_NOARGS("is_contiguous", MIsContiguous, "Whether the elements are laid out densely."),
    OAR_NOARGS("contiguous", MContiguous, "This tensor if contiguous, else a contiguous copy."),
    OAR_NOARGS("_is_initialized", MIsInitialized, "Whether the tensor holds data."),
    OAR_NOARGS("dim", MDim, "The number of dimensions."),
    OAR_NOARGS("numel", MNumel, "The number of elements."),
    OAR_NOARGS("element_size", MElementSize, "Bytes per element."),
    OAR_NOARGS("is_sparse", MIsSparse, "Whether the tensor is sparse (COO or CSR)."),
    OAR_NOARGS("is_sparse_coo", MIsSparseCoo, "Whether the tensor is a sparse COO tensor."),
    OAR_NOARGS("is_sparse_csr", MIsSparseCsr, "Whether the tensor is a sparse CSR tensor."),
    OAR_NOARGS("is_dense", MIsDense, "Whether the tensor is dense (not sparse)."),
    OAR_NOARGS("nnz", MNnz, "The number of stored entries of a sparse tensor."),
    OAR_NOARGS("sparse_dim", MSparseDim, "The number of sparse dimensions (0 for a dense tensor)."),
    OAR_NOARGS("dense_dim", MDenseDim, "The number of dense dimensions of the tensor."),
    OAR_NOARGS(
        "is_coalesced", MIsCoalesced,
        "Whether a sparse COO tensor's positions are sorted and unique (set by coalesce())."),
    OAR_NOARGS("data_ptr", MDataPtr, "The address of the first element."),
    OAR_NOARGS("_bump_inplace_version", MBumpInplaceVersion,
               "Counts one in-place write of the memory (after writing it through data_ptr())."),
    OAR_NOARGS("_buffer", MBuffer,
               "A buffer-protocol view of the memory (np.asarray: writable unless the tensor "
               "requires grad)."),
    OAR_NOARGS("_readonly_buffer", MReadonlyBuffer,
               "A read-only buffer-protocol view of the memory (for numpy(), which copies)."),
    OAR_METHOD("register_hook", MRegisterHook, "register_hook(hook) -> handle with .remove()"),
};

std::vector<PyMethodDef> AllMethods() {
  std::vector<PyMethodDef> v(std::begin(g_methods), std::end(g_methods));
  for (PyMethodDef* m = g_op_methods; m->ml_name; ++m) v.push_back(*m);
  v.push_back({nullptr, nullptr, 0, nullptr});
  return v;
}

}  // namespace

void SetTensorFactory(PyObject* fn) {
  Py_XINCREF(fn);
  Py_XDECREF(g_tensor_factory);
  g_tensor_factory = fn;
}

void SetShapeType(PyObject* type) {
  if (!PyType_Check(type) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(type), &PyList_Type)) {
    throw errors::InvalidType("_set_shape_type expects a subclass of list, got ",
                              Py_TYPE(type)->tp_name);
  }
  Py_INCREF(type);
  Py_XDECREF(g_shape_type);
  g_shape_type = type;
}

PyObject* CreateTensorType(PyObject* module) {
  static std::vector<PyMethodDef> methods = AllMethods();
  static PyType_Slot slots[] = {
      {Py_tp_dealloc, reinterpret_cast<void*>(TensorDealloc)},
      {Py_tp_new, reinterpret_cast<void*>(TensorNew)},
      {Py_tp_hash, reinterpret_cast<void*>(TensorHash)},
      {Py_tp_richcompare, reinterpret_cast<void*>(RichCompare)},
      {Py_tp_getset, g_getset},
      {Py_tp_methods, methods.data()},
      {Py_tp_doc, const_cast<char*>("An n-dimensional array with autograd (oar.Tensor).")},
      {Py_nb_add, reinterpret_cast<void*>(NbAdd)},
      {Py_nb_subtract, reinterpret_cast<void*>(NbSub)},
      {Py_nb_multiply, reinterpret_cast<void*>(NbMul)},
      {Py_nb_true_divide, reinterpret_cast<void*>(NbDiv)},
      {Py_nb_power, reinterpret_cast<void*>(NbPow)},
      {Py_nb_matrix_multiply, reinterpret_cast<void*>(NbMatmul)},
      {Py_nb_negative, reinterpret_cast<void*>(NbNeg)},
      {Py_nb_positive, reinterpret_cast<void*>(NbPos)},
      {Py_nb_absolute, reinterpret_cast<void*>(NbAbs)},
      {Py_nb_bool, reinterpret_cast<void*>(NbBool)},
      {Py_nb_float, reinterpret_cast<void*>(NbFloat)},
      {Py_nb_int, reinterpret_cast<void*>(NbInt)},
      {Py_nb_index, reinterpret_cast<void*>(NbIndex)},
      {Py_mp_length, reinterpret_cast<void*>(MpLength)},
      {0, nullptr}};
  static PyType_Spec spec = {"oar.Tensor", sizeof(TensorObject), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, slots};
  PyObject* type = PyType_FromSpec(&spec);
  if (!type) return nullptr;
  g_tensor_type = reinterpret_cast<PyTypeObject*>(type);
  if (PyModule_AddObjectRef(module, "Tensor", type) < 0) return nullptr;
  return type;
}

}  // namespace oar::py
