// The machinery every generated C++ API function uses: the kernel key from
// the inputs (backend, layout, promoted dtype), and PrepareData, which casts
// an input to the kernel's dtype only when it differs.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "oar/core/tensor.h"
#include "oar/kernels/context.h"
#include "oar/kernels/kernel_registry.h"

namespace oar::api {

// The dtype two tensor operands are computed in, by Paddle's documented rule:
// different floating-point dtypes promote (float16 with bfloat16 gives
// float32); any other mix is an error asking for an explicit cast.
DType PromoteOperands(DType a, DType b);

class KernelKeyParser {
 public:
  // A dense input inline (every op reads one or two); the others out of line.
  void operator()(const Tensor& t) {
    if (t.is_dense()) [[likely]] {
      Add(static_cast<const DenseTensor&>(*t.impl()));
      return;
    }
    AddOther(t);
  }
  void operator()(const std::vector<Tensor>& ts) {
    for (const auto& t : ts) (*this)(t);
  }
  void operator()(const std::optional<Tensor>& t) {
    if (t) (*this)(*t);
  }
  KernelKey key() const {
    return {backend_ == Backend::kUndefined ? Backend::kCPU : backend_, layout_, dtype_};
  }
  void set_dtype(DType d) { dtype_ = d; }
  // Ops that never return integers (divide): integer and bool inputs become
  // float32; complex inputs stay complex.
  void PromoteToFloat() {
    if (dtype_ != DType::kUndefined && !IsFloating(dtype_) && !IsComplex(dtype_)) {
      dtype_ = DType::kFloat32;
    }
  }

 private:
  // An undefined input (nothing) or a sparse one.
  void AddOther(const Tensor& t);
  // Instantiated for DenseTensor (final: no virtual calls) and TensorBase.
  template <typename T>
  void Add(const T& d) {
    backend_ = BackendOf(d.place());
    dtype_ = dtype_ == DType::kUndefined || dtype_ == d.dtype()
                 ? d.dtype()
                 : PromoteOperands(dtype_, d.dtype());
  }

  Backend backend_ = Backend::kUndefined;
  DataLayout layout_ = DataLayout::kAny;
  DType dtype_ = DType::kUndefined;
};

// Note [An input's checks and preparation are inline]
// Every generated API function checks each tensor input and prepares it for the kernel.
// On the common path (a defined tensor with data, already of the kernel's dtype) both are
// a few compares, cheaper inline than the calls they were; the errors and the cast are out
// of line. PreparedTensor's owned copy is freed by an out-of-line deleter, so that its
// destructor is one compare too: with DenseTensor's inline destructor, the compiler had
// kept it as a call in the generated functions. Both are always inlined: the generated
// API is one large file, where GCC's growth limits had put CheckInput back out of line.

// A kernel input: the tensor's own DenseTensor, or a converted copy it owns.
class PreparedTensor {
 public:
  PreparedTensor() = default;
  explicit PreparedTensor(const DenseTensor* t) : ptr_(t) {}
  explicit PreparedTensor(DenseTensor owned);
  const DenseTensor& operator*() const { return *ptr_; }
  const DenseTensor* get() const { return ptr_; }

 private:
  struct DeleteOwned {
    void operator()(DenseTensor* t) const noexcept;
  };
  std::unique_ptr<DenseTensor, DeleteOwned> owned_;
  const DenseTensor* ptr_ = nullptr;
};

[[noreturn]] void ThrowBadInput(const Tensor& t, const char* arg, int position);

// Checks an argument is a defined tensor (with data unless the op reads only
// its meta); names it on failure.
[[gnu::always_inline]] inline void CheckInput(const Tensor& t, const char* arg, int position,
                                              bool need_data) {
  if (!t.defined() || (need_data && !t.initialized())) [[unlikely]]
    ThrowBadInput(t, arg, position);
}

// t as the kernel reads it: itself, or cast to kernel_dtype when `transform` and its
// dtype differs.
PreparedTensor CastForKernel(const DenseTensor& d, DType kernel_dtype);
[[gnu::always_inline]] inline PreparedTensor PrepareData(const Tensor& t, DType kernel_dtype,
                                                         bool transform) {
  const DenseTensor* d = &t.dense();
  if (!transform || d->dtype() == kernel_dtype || kernel_dtype == DType::kUndefined) [[likely]]
    return PreparedTensor(d);
  return CastForKernel(*d, kernel_dtype);
}

// A sparse kernel input: the tensor's own impl, or a copy with its values cast.
template <typename S>
class PreparedSparse {
 public:
  explicit PreparedSparse(const S* t) : ptr_(t) {}
  explicit PreparedSparse(S owned)
      : owned_(std::make_unique<S>(std::move(owned))), ptr_(owned_.get()) {}
  const S& operator*() const { return *ptr_; }

 private:
  std::unique_ptr<S> owned_;
  const S* ptr_ = nullptr;
};
PreparedSparse<SparseCooTensor> PrepareSparseCoo(const Tensor& t, DType kernel_dtype,
                                                 bool transform);
PreparedSparse<SparseCsrTensor> PrepareSparseCsr(const Tensor& t, DType kernel_dtype,
                                                 bool transform);

// The error of a sparse op called with tensors of kinds none of its kernels
// takes: names the kinds received and the signatures it has.
[[noreturn]] void ThrowNoSparseKernel(const std::vector<const Tensor*>& inputs,
                                      const char* signatures);

struct PreparedTensorList {
  std::vector<PreparedTensor> owned;
  std::vector<const DenseTensor*> ptrs;
};
PreparedTensorList PrepareData(const std::vector<Tensor>& ts, DType kernel_dtype, bool transform);

// In-place ops write through x: its shape must stay and its memory must not
// overlap itself (an expanded view).
void CheckInplaceTarget(const Tensor& x, const DenseTensor& inferred);

// Note [In-place inputs that overlap the written tensor]
// An in-place op writes x element by element while it reads its other inputs. An
// input that shares x's memory as another view (x[1:].add_(x[:-1]), x.add_(x[0]) with
// x[0] broadcast over the rows, x.add_(x.T)) would be read partly after the write: the
// result would depend on the loop's order and its split across threads. Such an input
// is read from a contiguous copy made first, so the op computes what it computes out of
// place (NumPy's rule; PyTorch refuses dense views there and lets the others
// through in loop order). An input that is x's own view (x.mul_(x)) reads each element
// before the write to it and needs no copy; nor does one that shares the allocation but
// not x's bytes. The test costs one pointer comparison per input.
void ReadApartFromTarget(PreparedTensor& input, const DenseTensor& target);
void ReadApartFromTarget(PreparedTensorList& inputs, const DenseTensor& target);

}  // namespace oar::api
