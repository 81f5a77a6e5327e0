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
  void operator()(const Tensor& t) {
    if (!t.defined()) return;
    const DenseTensor& d = *t.impl();
    backend_ = BackendOf(d.place());
    dtype_ = dtype_ == DType::kUndefined || dtype_ == d.dtype()
                 ? d.dtype()
                 : PromoteOperands(dtype_, d.dtype());
  }
  void operator()(const std::vector<Tensor>& ts) {
    for (const auto& t : ts) (*this)(t);
  }
  void operator()(const std::optional<Tensor>& t) {
    if (t) (*this)(*t);
  }
  KernelKey key() const {
    return {backend_ == Backend::kUndefined ? Backend::kCPU : backend_, DataLayout::kAny, dtype_};
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
  Backend backend_ = Backend::kUndefined;
  DType dtype_ = DType::kUndefined;
};

// A kernel input: the tensor's own DenseTensor, or a converted copy it owns.
class PreparedTensor {
 public:
  PreparedTensor() = default;
  explicit PreparedTensor(const DenseTensor* t) : ptr_(t) {}
  explicit PreparedTensor(DenseTensor owned)
      : owned_(std::make_unique<DenseTensor>(std::move(owned))), ptr_(owned_.get()) {}
  const DenseTensor& operator*() const { return *ptr_; }
  const DenseTensor* get() const { return ptr_; }

 private:
  std::unique_ptr<DenseTensor> owned_;
  const DenseTensor* ptr_ = nullptr;
};

// Checks an argument is a defined tensor (with data unless the op reads only
// its meta); names it on failure.
void CheckInput(const Tensor& t, const char* arg, int position, bool need_data);

PreparedTensor PrepareData(const Tensor& t, DType kernel_dtype, bool transform);

struct PreparedTensorList {
  std::vector<PreparedTensor> owned;
  std::vector<const DenseTensor*> ptrs;
};
PreparedTensorList PrepareData(const std::vector<Tensor>& ts, DType kernel_dtype, bool transform);

// In-place ops write through x: its shape must stay and its memory must not
// overlap itself (an expanded view).
void CheckInplaceTarget(const Tensor& x, const DenseTensor& inferred);

}  // namespace oar::api
