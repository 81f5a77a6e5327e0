// numpy interop without the numpy C API: tensors expose their memory through
// the buffer protocol (numpy.asarray views it without a copy, and the array
// keeps the memory alive), and any buffer (a numpy array) can be copied in.
#include <algorithm>
#include <cstring>

#include "oar/bindings/arg_parse.h"
#include "oar/bindings/tensor_object.h"
#include "oar/eager/creation.h"
#include "oar/kernels/funcs/copy.h"

namespace oar::py {
namespace {

struct BufferOwner {
  PyObject_HEAD std::shared_ptr<DenseTensor> tensor;  // shares the Allocation
  bool readonly;
  Py_ssize_t shape[16];
  Py_ssize_t strides[16];
};

PyTypeObject* g_buffer_type = nullptr;

const char* Format(DType t) {
  switch (t) {
    case DType::kBool:
      return "?";
    case DType::kInt32:
      return "i";
    case DType::kInt64:
      return "q";
    case DType::kFloat16:
      return "e";
    case DType::kBFloat16:
      return "H";  // numpy has no bfloat16: raw uint16, as Paddle
    case DType::kFloat32:
      return "f";
    case DType::kFloat64:
      return "d";
    case DType::kUInt8:
      return "B";
    case DType::kInt8:
      return "b";
    case DType::kInt16:
      return "h";
    case DType::kComplex64:
      return "Zf";
    case DType::kComplex128:
      return "Zd";
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E5M2:
      return "b";  // numpy has no float8: raw int8, as Paddle
    default:
      return "B";
  }
}

int GetBuffer(PyObject* o, Py_buffer* view, int flags) {
  auto* self = reinterpret_cast<BufferOwner*>(o);
  const DenseTensor& t = *self->tensor;
  if ((flags & PyBUF_WRITABLE) && self->readonly) {
    PyErr_SetString(PyExc_BufferError,
                    "the tensor requires grad: its memory is exposed read-only (use "
                    "x.detach().numpy() for a writable view)");
    return -1;
  }
  const int nd = t.ndim();
  const Py_ssize_t es = static_cast<Py_ssize_t>(SizeOf(t.dtype()));
  for (int i = 0; i < nd; ++i) {
    self->shape[i] = t.dims()[i];
    // A dim of size 0 or 1 is never stepped along, and its stride may be any value
    // (a view's); in bytes it could overflow.
    self->strides[i] = (t.dims()[i] > 1 ? t.strides()[i] : 1) * es;
  }
  view->obj = o;
  Py_INCREF(o);
  view->buf = t.numel() ? const_cast<void*>(t.data()) : nullptr;
  view->len = t.numel() * es;
  // numpy asks for a read-only view and makes its array writable when the view
  // is. Writes through it bump no version, so nothing derived from the memory
  // may be kept (Note [A convolution's weight packed across calls] in
  // kernels/cpu/conv_weight_cache.h).
  if (!self->readonly && t.Holder()) t.Holder()->MarkSharedOutside();
  view->readonly = self->readonly;
  view->itemsize = es;
  view->format = (flags & PyBUF_FORMAT) ? const_cast<char*>(Format(t.dtype())) : nullptr;
  view->ndim = nd;
  view->shape = self->shape;
  view->strides = self->strides;
  view->suboffsets = nullptr;
  view->internal = nullptr;
  return 0;
}

void BufferDealloc(PyObject* o) {
  PyTypeObject* type = Py_TYPE(o);
  reinterpret_cast<BufferOwner*>(o)->tensor.~shared_ptr();
  type->tp_free(o);
  Py_DECREF(type);
}

// The memory of a foreign buffer (a numpy array, a DLPack import) that a tensor uses
// without a copy: the buffer, and with it its exporter, stays alive as long as the tensor.
class ForeignAllocation : public Allocation {
 public:
  ForeignAllocation(void* ptr, size_t size, const Py_buffer& view)
      : Allocation(ptr, size, CPUPlace(), nullptr), view_(view) {}
  ~ForeignAllocation() {
    GilAcquire gil;
    PyBuffer_Release(&view_);
  }
  ForeignAllocation(const ForeignAllocation&) = delete;
  ForeignAllocation& operator=(const ForeignAllocation&) = delete;

 private:
  Py_buffer view_;
};

// _from_buffer(obj, dtype or None, copy=True): a tensor holding a copy of a buffer's data,
// or, with copy=False, a tensor using the buffer's memory (a writable buffer whose format
// is the dtype asked for; otherwise it is copied).
PyObject* FromBuffer(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  OAR_PY_TRY
  static const char* const kNames[] = {"data", "dtype", "copy"};
  PyObject* objs[3];
  ParseArgs("_from_buffer", kNames, 3, args, nargs, kwnames, objs);
  const bool copy = CastPyArg2Boolean(objs[2], "_from_buffer", "copy", 2, true);
  Py_buffer view;
  bool writable = false;
  if (!copy && PyObject_GetBuffer(objs[0], &view, PyBUF_RECORDS) == 0) {
    writable = true;
  } else {
    PyErr_Clear();
    if (PyObject_GetBuffer(objs[0], &view, PyBUF_RECORDS_RO) < 0) throw PythonError();
  }
  struct Release {
    Py_buffer* v;
    bool armed = true;
    ~Release() {
      if (armed) PyBuffer_Release(v);
    }
  } release{&view};
  std::string fmt = view.format ? view.format : "B";
  if (!fmt.empty() && (fmt[0] == '<' || fmt[0] == '=' || fmt[0] == '@')) fmt.erase(0, 1);
  DType src;
  if (fmt == "?")
    src = DType::kBool;
  else if (fmt == "i" || (fmt == "l" && view.itemsize == 4))
    src = DType::kInt32;
  else if (fmt == "q" || (fmt == "l" && view.itemsize == 8))
    src = DType::kInt64;
  else if (fmt == "e")
    src = DType::kFloat16;
  else if (fmt == "f")
    src = DType::kFloat32;
  else if (fmt == "d")
    src = DType::kFloat64;
  else if (fmt == "B")
    src = DType::kUInt8;
  else if (fmt == "b")
    src = DType::kInt8;
  else if (fmt == "h")
    src = DType::kInt16;
  else if (fmt == "Zf")
    src = DType::kComplex64;
  else if (fmt == "Zd")
    src = DType::kComplex128;
  else {
    throw errors::InvalidType("to_tensor(): unsupported element format '", fmt,
                              "' (supported: bool, uint8, int8, int16, int32, int64, float16, "
                              "float32, float64, complex64, complex128)");
  }
  DDim dims, strides;
  for (int i = 0; i < view.ndim; ++i) {
    dims.push_back(view.shape[i]);
    OAR_ENFORCE(view.strides[i] % view.itemsize == 0,
                errors::InvalidArgument("to_tensor(): the buffer's strides are not a multiple "
                                        "of its item size"));
    strides.push_back(view.strides[i] / view.itemsize);
  }
  // A view of the foreign buffer: kept (owning the buffer) or copied into fresh memory.
  // An empty array reaches no element, whatever its strides (which can then be anything:
  // (dims - 1) * stride passed int64 for a (0, 33) array with a stride of -2**62 elements).
  const bool empty = std::find(dims.begin(), dims.end(), 0) != dims.end();
  int64_t min_off = 0;
  for (int i = 0; i < view.ndim && !empty; ++i) {
    if (strides[i] < 0 && dims[i] > 0) min_off += (dims[i] - 1) * strides[i];
  }
  const size_t span = view.len + static_cast<size_t>(-min_off) * view.itemsize;
  char* first = static_cast<char*>(view.buf) + min_off * view.itemsize;
  DenseTensorMeta meta;
  meta.dims = dims;
  meta.strides = strides;
  meta.dtype = src;
  meta.offset = -min_off;
  const DType dst = objs[1] && objs[1] != Py_None ? PyObjectToDType(objs[1]) : src;
  if (writable && dst == src) {
    release.armed = false;  // the allocation releases the buffer
    auto alloc = std::make_shared<ForeignAllocation>(first, span, view);
    return ToPyObject(Tensor(std::make_shared<DenseTensor>(std::move(alloc), meta)));
  }
  auto alloc = std::make_shared<Allocation>(first, span + view.itemsize, CPUPlace(), nullptr);
  const DenseTensor foreign(alloc, meta);
  DenseTensor copied = funcs::Clone(foreign);
  if (dst != src) copied = funcs::CastTo(copied, dst);
  return ToPyObject(Tensor(std::make_shared<DenseTensor>(std::move(copied))));
  OAR_PY_CATCH
}

}  // namespace

PyMethodDef g_buffer_functions[] = {
    {"_from_buffer", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(FromBuffer)),
     METH_FASTCALL | METH_KEYWORDS,
     "_from_buffer(data, dtype=None, copy=True): a Tensor of a buffer's data (copy=False: "
     "sharing a writable buffer's memory)"},
    {nullptr, nullptr, 0, nullptr}};

PyObject* MakeBufferOwner(const Tensor& t, bool readonly) {
  if (!t.initialized()) throw errors::PreconditionNotMet("the tensor holds no data");
  std::shared_ptr<DenseTensor> dense = t.dense_impl();  // a sparse tensor: to_dense() first
  if (t.ndim() > 16) throw errors::Unimplemented("numpy() supports up to 16 dimensions");
  auto* self = reinterpret_cast<BufferOwner*>(g_buffer_type->tp_alloc(g_buffer_type, 0));
  if (!self) return nullptr;
  new (&self->tensor) std::shared_ptr<DenseTensor>(std::move(dense));
  self->readonly = readonly || !t.stop_gradient();
  return reinterpret_cast<PyObject*>(self);
}

PyObject* CreateBufferType(PyObject* module) {
  static PyType_Slot slots[] = {{Py_tp_dealloc, reinterpret_cast<void*>(BufferDealloc)},
                                {Py_bf_getbuffer, reinterpret_cast<void*>(GetBuffer)},
                                {0, nullptr}};
  static PyType_Spec spec = {"oar._C._TensorBuffer", sizeof(BufferOwner), 0, Py_TPFLAGS_DEFAULT,
                             slots};
  PyObject* type = PyType_FromSpec(&spec);
  if (!type) return nullptr;
  g_buffer_type = reinterpret_cast<PyTypeObject*>(type);
  if (PyModule_AddObjectRef(module, "_TensorBuffer", type) < 0) return nullptr;
  return type;
}

}  // namespace oar::py
