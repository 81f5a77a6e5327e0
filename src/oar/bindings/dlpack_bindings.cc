// DLPack exchange (oar.to_dlpack, oar.from_dlpack, Tensor.__dlpack__): capsules named
// "dltensor" holding a DLManagedTensor, in both directions and without copies. The
// structs below are the layout the DLPack specification fixes (dlpack.h, ABI version 0.x
// for the unversioned "dltensor" capsule that every framework produces and accepts).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "oar/bindings/arg_parse.h"
#include "oar/bindings/jit_capture.h"
#include "oar/bindings/tensor_object.h"

namespace oar::py {
namespace {

struct DLDevice {
  int32_t device_type;  // kDLCPU = 1
  int32_t device_id;
};

struct DLDataType {
  uint8_t code;  // kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLComplex 5, kDLBool 6
  uint8_t bits;
  uint16_t lanes;
};

struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; null means row-major contiguous
  uint64_t byte_offset;
};

struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

constexpr int32_t kDLCPU = 1;
constexpr const char* kCapsule = "dltensor";
constexpr const char* kUsedCapsule = "used_dltensor";

DLDataType ToDL(DType t) {
  const auto bits = static_cast<uint8_t>(SizeOf(t) * 8);
  OAR_ENFORCE(!IsFloat8(t), errors::InvalidType("to_dlpack(): a ", DTypeName(t),
                                                " tensor has no DLPack dtype here; cast it first"));
  switch (t) {
    case DType::kBool:
      return {6, 8, 1};
    case DType::kUInt8:
      return {1, 8, 1};
    case DType::kInt8:
    case DType::kInt16:
    case DType::kInt32:
    case DType::kInt64:
      return {0, bits, 1};
    case DType::kBFloat16:
      return {4, 16, 1};
    case DType::kComplex64:
    case DType::kComplex128:
      return {5, bits, 1};
    default:
      return {2, bits, 1};
  }
}

DType FromDL(const DLDataType& d) {
  OAR_ENFORCE(d.lanes == 1, errors::InvalidType("from_dlpack(): vector dtypes (lanes ",
                                                static_cast<int>(d.lanes), ") are not supported"));
  const int code = d.code, bits = d.bits;
  if (code == 6 && bits == 8) return DType::kBool;
  if (code == 1 && bits == 8) return DType::kUInt8;
  if (code == 0 && bits == 8) return DType::kInt8;
  if (code == 0 && bits == 16) return DType::kInt16;
  if (code == 0 && bits == 32) return DType::kInt32;
  if (code == 0 && bits == 64) return DType::kInt64;
  if (code == 2 && bits == 16) return DType::kFloat16;
  if (code == 2 && bits == 32) return DType::kFloat32;
  if (code == 2 && bits == 64) return DType::kFloat64;
  if (code == 4 && bits == 16) return DType::kBFloat16;
  if (code == 5 && bits == 64) return DType::kComplex64;
  if (code == 5 && bits == 128) return DType::kComplex128;
  throw errors::InvalidType("from_dlpack(): the DLPack dtype (code ", code, ", ", bits,
                            " bits) has no oar equivalent");
}

// What an exported capsule owns: the tensor's memory and the shape/stride arrays.
struct Export {
  DLManagedTensor managed{};
  std::shared_ptr<DenseTensor> keep;
  std::vector<int64_t> shape, strides;
};

void DeleteExport(DLManagedTensor* m) {
  std::unique_ptr<Export> owner(static_cast<Export*>(m->manager_ctx));
}

// A capsule nobody consumed frees its tensor; a consumer renames it and owns the tensor.
void CapsuleDestructor(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kCapsule)) return;
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsule));
  if (m && m->deleter) m->deleter(m);
}

// Memory a tensor uses from an imported DLManagedTensor, released through its deleter
// (under the GIL: a Python producer's deleter drops references).
class ImportedAllocation : public Allocation {
 public:
  ImportedAllocation(void* ptr, size_t size, DLManagedTensor* managed)
      : Allocation(ptr, size, CPUPlace(), nullptr), managed_(managed) {}
  ~ImportedAllocation() {
    if (!managed_->deleter) return;
    GilAcquire gil;
    managed_->deleter(managed_);
  }
  ImportedAllocation(const ImportedAllocation&) = delete;
  ImportedAllocation& operator=(const ImportedAllocation&) = delete;

 private:
  DLManagedTensor* managed_;
};

// _to_dlpack(x): a "dltensor" capsule sharing x's memory.
PyObject* ToDlpack(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  OAR_PY_TRY
  static const char* const kNames[] = {"x"};
  PyObject* objs[1];
  ParseArgs("to_dlpack", kNames, 1, args, nargs, kwnames, objs);
  const Tensor& t = GetTensorFromArgs("to_dlpack", "x", objs[0], 0);
  if (!t.initialized()) throw errors::PreconditionNotMet("to_dlpack(): the tensor holds no data");
  CaptureBreakIfTraced(t, "to_dlpack()");
  auto ctx = std::make_unique<Export>();
  const DenseTensor& d = t.dense();  // a sparse tensor: a typed error naming its kind
  ctx->keep = t.dense_impl();
  // The consumer may write the memory without bumping its version.
  if (d.Holder()) d.Holder()->MarkSharedOutside();
  ctx->shape.assign(d.dims().begin(), d.dims().end());
  ctx->strides.assign(d.strides().begin(), d.strides().end());
  DLTensor& dl = ctx->managed.dl_tensor;
  dl.data = d.numel() ? const_cast<void*>(d.data()) : d.Holder()->ptr();
  dl.device = {kDLCPU, 0};
  dl.ndim = d.ndim();
  dl.dtype = ToDL(d.dtype());
  dl.shape = ctx->shape.data();
  dl.strides = ctx->strides.data();
  dl.byte_offset = 0;
  ctx->managed.manager_ctx = ctx.get();
  ctx->managed.deleter = DeleteExport;
  DLManagedTensor* managed = &ctx->managed;
  PyObject* capsule = PyCapsule_New(managed, kCapsule, CapsuleDestructor);
  if (!capsule) return nullptr;
  ctx.release();  // the capsule (or its consumer) owns it now
  return capsule;
  OAR_PY_CATCH
}

// _from_dlpack(capsule): a tensor using the memory of a "dltensor" capsule, which is
// renamed "used_dltensor" (a capsule is consumed once).
PyObject* FromDlpack(PyObject*, PyObject* capsule) {
  OAR_PY_TRY
  if (!PyCapsule_IsValid(capsule, kCapsule)) {
    throw errors::InvalidType("from_dlpack(): expected an unconsumed DLPack capsule named '",
                              kCapsule, "' (a capsule can be imported once)");
  }
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsule));
  const DLTensor& dl = m->dl_tensor;
  OAR_ENFORCE(dl.device.device_type == kDLCPU,
              errors::InvalidArgument("from_dlpack(): the data lives on DLPack device type ",
                                      dl.device.device_type,
                                      "; oar is built for the CPU only (kDLCPU = 1)"));
  OAR_ENFORCE(dl.ndim >= 0 && dl.ndim <= 64,
              errors::InvalidArgument("from_dlpack(): bad number of dimensions ", dl.ndim));
  const DType dtype = FromDL(dl.dtype);
  const int64_t item = static_cast<int64_t>(SizeOf(dtype));
  DDim dims, strides;
  for (int i = 0; i < dl.ndim; ++i) dims.push_back(dl.shape[i]);
  if (dl.strides) {
    for (int i = 0; i < dl.ndim; ++i) strides.push_back(dl.strides[i]);
  } else {
    strides = ContiguousStrides(dims);
  }
  // the span the view reaches, from its lowest to its highest element
  int64_t lo = 0, hi = 0;
  const bool empty = std::find(dims.begin(), dims.end(), 0) != dims.end();
  for (int i = 0; i < dl.ndim && !empty; ++i) {  // an empty view reaches nothing
    if (dims[i] > 0) (strides[i] < 0 ? lo : hi) += (dims[i] - 1) * strides[i];
  }
  char* first = static_cast<char*>(dl.data) + dl.byte_offset;
  const size_t span = empty ? 0 : static_cast<size_t>((hi - lo + 1) * item);
  // the capsule gives up the managed tensor before the allocation takes it over
  if (PyCapsule_SetDestructor(capsule, nullptr) < 0 ||
      PyCapsule_SetName(capsule, kUsedCapsule) < 0) {
    throw PythonError();
  }
  auto alloc = std::make_shared<ImportedAllocation>(first + lo * item, span, m);
  DenseTensorMeta meta;
  meta.dims = dims;
  meta.strides = strides;
  meta.dtype = dtype;
  meta.offset = -lo;
  return ToPyObject(Tensor(std::make_shared<DenseTensor>(std::move(alloc), meta)));
  OAR_PY_CATCH
}

}  // namespace

PyMethodDef g_dlpack_functions[] = {
    {"_to_dlpack", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(ToDlpack)),
     METH_FASTCALL | METH_KEYWORDS, "_to_dlpack(x): a DLPack capsule sharing x's memory"},
    {"_from_dlpack", FromDlpack, METH_O,
     "_from_dlpack(capsule): a tensor using the memory of a DLPack capsule"},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace oar::py
