// The storage-level pieces of Paddle's Tensor API that Python cannot express with ops:
// a tensor's strides and offset, views with explicit geometry or another dtype over the
// same memory, replacing the memory a tensor object uses (set_, data =), and the state of
// the default random generator (get_rng_state / set_rng_state).
#include <limits>
#include <string>
#include <vector>

#include "oar/bindings/arg_parse.h"
#include "oar/bindings/jit_capture.h"
#include "oar/bindings/tensor_object.h"
#include "oar/core/generator.h"
#include "oar/core/wide_int.h"

namespace oar::py {
namespace {

const Tensor& DefinedArg(const char* fn, const char* arg, PyObject* o, int pos) {
  const Tensor& t = GetTensorFromArgs(fn, arg, o, pos);
  if (!t.initialized()) {
    throw errors::PreconditionNotMet(fn, "(): argument '", arg, "' holds no data");
  }
  return t;
}

PyObject* IntList(const DDim& v) {
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(v.size()));
  if (!list) return nullptr;
  for (size_t i = 0; i < v.size(); ++i) {
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), PyLong_FromLongLong(v[i]));
  }
  return list;
}

// _tensor_meta(x) -> (strides in elements, offset in elements into the memory block,
// layout name, size of the memory block in bytes)
PyObject* TensorMeta(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  OAR_PY_TRY
  static const char* const kNames[] = {"x"};
  PyObject* objs[1];
  ParseArgs("_tensor_meta", kNames, 1, args, nargs, kwnames, objs);
  const DenseTensor& t = DefinedArg("_tensor_meta", "x", objs[0], 0).dense();
  const char* layout = t.layout() == DataLayout::kNHWC  ? "NHWC"
                       : t.layout() == DataLayout::kAny ? "ANY"
                                                        : "NCHW";
  PyObject* strides = IntList(t.strides());
  if (!strides) return nullptr;
  return Py_BuildValue("(NLsn)", strides, static_cast<long long>(t.offset()), layout,
                       static_cast<Py_ssize_t>(t.Holder()->size()));
  OAR_PY_CATCH
}

// _strided_view(x, shape, strides, offset): a tensor over x's memory block with the given
// geometry (in elements, offset from the block's start); every element must lie inside it.
PyObject* StridedView(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  OAR_PY_TRY
  static const char* const kNames[] = {"x", "shape", "strides", "offset"};
  PyObject* objs[4];
  ParseArgs("_strided_view", kNames, 4, args, nargs, kwnames, objs);
  CaptureBreakIfTraced(DefinedArg("_strided_view", "x", objs[0], 0), "a strided view");
  const DenseTensor& t = DefinedArg("_strided_view", "x", objs[0], 0).dense();
  const auto shape = CastPyArg2IntArray(objs[1], "_strided_view", "shape", 1, std::nullopt);
  const auto strides = CastPyArg2IntArray(objs[2], "_strided_view", "strides", 2, std::nullopt);
  const int64_t offset = CastPyArg2Long(objs[3], "_strided_view", "offset", 3, 0);
  OAR_ENFORCE(shape.size() == strides.size(),
              errors::InvalidArgument("_strided_view(): 'shape' and 'strides' differ in length"));
  const int64_t item = static_cast<int64_t>(SizeOf(t.dtype()));
  const int64_t capacity = static_cast<int64_t>(t.Holder()->size()) / item;
  // The last element in 128 bits: a stride near 2^62 wrapped it negative, and the view
  // passed the check while pointing 2^62 elements past the block.
  Int128 last = offset;
  bool empty = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    OAR_ENFORCE(shape[i] >= 0 && strides[i] >= 0,
                errors::InvalidArgument("_strided_view(): sizes and strides must be >= 0"));
    empty = empty || shape[i] == 0;
    if (shape[i] > 0) last += static_cast<Int128>(shape[i] - 1) * strides[i];
  }
  OAR_ENFORCE(offset >= 0 && offset <= capacity && (empty || last < capacity),
              errors::OutOfRange("the view (offset ", offset, ", last element ",
                                 empty ? std::string("none") : StrCat(static_cast<double>(last)),
                                 ") does not fit in the memory of ", capacity, " elements"));
  DenseTensorMeta m = t.meta();
  m.dims = DDim(shape.begin(), shape.end());
  CheckedProduct(m.dims);
  m.strides = DDim(strides.begin(), strides.end());
  m.offset = offset;
  return ToPyObject(Tensor(std::make_shared<DenseTensor>(t.Holder(), m)));
  OAR_PY_CATCH
}

// _view_dtype(x, dtype): x's bytes read as another dtype; the last dim (contiguous) is
// scaled by the ratio of the element sizes.
PyObject* ViewDType(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  OAR_PY_TRY
  static const char* const kNames[] = {"x", "dtype"};
  PyObject* objs[2];
  ParseArgs("view", kNames, 2, args, nargs, kwnames, objs);
  CaptureBreakIfTraced(DefinedArg("view", "x", objs[0], 0), "view(dtype)");
  const DenseTensor& t = DefinedArg("view", "x", objs[0], 0).dense();
  const DType to = CastPyArg2DType(objs[1], "view", "shape_or_dtype", 1, std::nullopt);
  const int64_t from_size = static_cast<int64_t>(SizeOf(t.dtype()));
  const int64_t to_size = static_cast<int64_t>(SizeOf(to));
  DenseTensorMeta m = t.meta();
  m.dtype = to;
  if (from_size != to_size) {
    OAR_ENFORCE(t.ndim() > 0 && t.strides()[t.ndim() - 1] == 1,
                errors::InvalidArgument("view(): viewing ", DTypeName(t.dtype()), " as ",
                                        DTypeName(to), " needs x's last dimension contiguous"));
    const int64_t last = t.ndim() - 1;
    // In bytes, in 128 bits: an empty x may have a dim near 2^63, whose size in bytes (or in
    // a smaller dtype's elements) passes int64; [0, 2**62] of float64 gave [0, 0] as uint8.
    auto rescale = [&](int64_t v, const char* what) {
      const Int128 bytes = static_cast<Int128>(v) * from_size;
      OAR_ENFORCE(
          bytes % to_size == 0,
          errors::InvalidArgument("view(): ", what, " of x (", v, " x ", from_size,
                                  " bytes) is not a whole number of ", DTypeName(to), " elements"));
      const Int128 r = bytes / to_size;
      OAR_ENFORCE(
          r <= std::numeric_limits<int64_t>::max(),
          errors::InvalidArgument("view(): ", what, " of x (", v, " elements of ", from_size,
                                  " bytes) passes 2^63 elements of ", DTypeName(to)));
      return static_cast<int64_t>(r);
    };
    for (int64_t d = 0; d < last; ++d) m.strides[d] = rescale(t.strides()[d], "a stride");
    m.dims[last] = rescale(t.dims()[last], "the last dimension");
    m.offset = rescale(t.offset(), "the offset");
    CheckedProduct(m.dims);
  }
  return ToPyObject(Tensor(std::make_shared<DenseTensor>(t.Holder(), m)));
  OAR_PY_CATCH
}

// _set_tensor_impl(dst, src): dst's object uses src's memory and geometry from now on
// (its autograd metadata stays).
PyObject* SetTensorImpl(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  OAR_PY_TRY
  static const char* const kNames[] = {"dst", "src"};
  PyObject* objs[2];
  ParseArgs("_set_tensor_impl", kNames, 2, args, nargs, kwnames, objs);
  GetTensorFromArgs("_set_tensor_impl", "dst", objs[0], 0);
  const Tensor& src = DefinedArg("_set_tensor_impl", "src", objs[1], 1);
  CaptureBreakIfTraced(AsTensor(objs[0]), "replacing a tensor's data");
  CaptureBreakIfTraced(src, "replacing a tensor's data");
  AsTensor(objs[0]).set_impl(src.impl());
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

PyObject* GetRngState(PyObject*, PyObject*) {
  const GeneratorState s = DefaultCPUGenerator().GetState();
  return Py_BuildValue("(KK)", static_cast<unsigned long long>(s.seed),
                       static_cast<unsigned long long>(s.counter));
}

PyObject* SetRngState(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  OAR_PY_TRY
  static const char* const kNames[] = {"seed", "counter"};
  PyObject* objs[2];
  ParseArgs("_set_rng_state", kNames, 2, args, nargs, kwnames, objs);
  GeneratorState s;
  for (int i = 0; i < 2; ++i) {
    if (!objs[i] || !PyLong_Check(objs[i])) {
      throw errors::InvalidType("_set_rng_state(): argument '", kNames[i], "' must be an int");
    }
    const unsigned long long v = PyLong_AsUnsignedLongLong(objs[i]);
    if (PyErr_Occurred()) throw PythonError();
    (i == 0 ? s.seed : s.counter) = v;
  }
  DefaultCPUGenerator().SetState(s);
  Py_RETURN_NONE;
  OAR_PY_CATCH
}

#define OAR_FASTCALL(fn) reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(fn))

}  // namespace

PyMethodDef g_storage_functions[] = {
    {"_tensor_meta", OAR_FASTCALL(TensorMeta), METH_FASTCALL | METH_KEYWORDS,
     "_tensor_meta(x) -> (strides, offset, layout, memory bytes)"},
    {"_strided_view", OAR_FASTCALL(StridedView), METH_FASTCALL | METH_KEYWORDS,
     "_strided_view(x, shape, strides, offset): a view of x's memory block"},
    {"_view_dtype", OAR_FASTCALL(ViewDType), METH_FASTCALL | METH_KEYWORDS,
     "_view_dtype(x, dtype): x's bytes as another dtype"},
    {"_set_tensor_impl", OAR_FASTCALL(SetTensorImpl), METH_FASTCALL | METH_KEYWORDS,
     "_set_tensor_impl(dst, src): dst uses src's memory"},
    {"_get_rng_state", GetRngState, METH_NOARGS, "The default generator's (seed, counter)."},
    {"_set_rng_state", OAR_FASTCALL(SetRngState), METH_FASTCALL | METH_KEYWORDS,
     "_set_rng_state(seed, counter): restore the default generator"},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace oar::py
