// A strided view of one Allocation: dims, strides and offset in elements.
// Views (reshape, transpose, slice, expand) share the Allocation, and with it
// the inplace version counter.
#pragma once

#include <memory>

#include "oar/core/allocator.h"
#include "oar/core/ddim.h"
#include "oar/core/dtype.h"
#include "oar/core/place.h"
#include "oar/core/tensor_base.h"

namespace oar {

struct DenseTensorMeta {
  DDim dims;
  DDim strides;
  DType dtype = DType::kUndefined;
  DataLayout layout = DataLayout::kNCHW;
  int64_t offset = 0;  // in elements, into the allocation

  DenseTensorMeta() = default;
  DenseTensorMeta(DType t, DDim d)
      : dims(std::move(d)), strides(ContiguousStrides(dims)), dtype(t) {}
  bool valid() const { return dtype != DType::kUndefined; }
};

// final: calls through a DenseTensor& are devirtualised, so kernels pay nothing
// for the TensorBase interface.
class DenseTensor final : public TensorBase {
 public:
  DenseTensor() : TensorBase(TensorKind::kDense) {}
  DenseTensor(DType dtype, const DDim& dims) : TensorBase(TensorKind::kDense), meta_(dtype, dims) {}
  DenseTensor(std::shared_ptr<Allocation> holder, DenseTensorMeta meta)
      : TensorBase(TensorKind::kDense), meta_(std::move(meta)), holder_(std::move(holder)) {}
  DenseTensor(const DenseTensor&) = default;
  DenseTensor(DenseTensor&&) noexcept = default;
  DenseTensor& operator=(const DenseTensor&) = default;
  DenseTensor& operator=(DenseTensor&&) noexcept = default;
  ~DenseTensor() override = default;

  static bool classof(const TensorBase* t) { return t->kind() == TensorKind::kDense; }

  const DenseTensorMeta& meta() const { return meta_; }
  const DDim& dims() const override { return meta_.dims; }
  const DDim& strides() const { return meta_.strides; }
  DType dtype() const override { return meta_.dtype; }
  DataLayout layout() const override { return meta_.layout; }
  int64_t offset() const { return meta_.offset; }
  int64_t numel() const { return Product(meta_.dims); }
  int ndim() const { return static_cast<int>(meta_.dims.size()); }
  Place place() const override { return holder_ ? holder_->place() : CPUPlace(); }
  bool valid() const override { return meta_.valid(); }
  // Memory is attached (an empty tensor has a zero-byte block).
  bool initialized() const override { return holder_ != nullptr; }
  bool is_contiguous() const;

  // Sets the meta of a tensor without memory: contiguous strides, offset 0.
  void set_meta(DType dtype, const DDim& dims);
  void set_meta(DenseTensorMeta meta) { meta_ = std::move(meta); }
  void set_dtype(DType dtype) { meta_.dtype = dtype; }
  void Resize(const DDim& dims);

  // The first element; inline, as kernels ask for it once per operand.
  const void* data() const {
    if (holder_ == nullptr) [[unlikely]]
      ThrowNoMemory();
    void* p = holder_->ptr();
    // A view of an empty tensor may carry any offset (a diagonal's start, say) into a
    // zero-byte block whose pointer is null; nothing is read through it, and offsetting
    // null is undefined.
    if (meta_.offset == 0 || holder_->size() == 0) return p;
    return static_cast<const char*>(p) + meta_.offset * SizeOf(meta_.dtype);
  }
  void* data() { return const_cast<void*>(static_cast<const DenseTensor*>(this)->data()); }
  template <typename T>
  const T* data() const {
    CheckType(dtype_of_v<T>);
    return static_cast<const T*>(data());
  }
  template <typename T>
  T* data() {
    CheckType(dtype_of_v<T>);
    return static_cast<T*>(data());
  }

  // Allocates memory for the current meta on `place` unless a large enough
  // block is attached, and returns the first element.
  void* AllocateFrom(const Place& place);
  template <typename T>
  T* mutable_data(const Place& place = CPUPlace()) {
    CheckType(dtype_of_v<T>);
    return static_cast<T*>(AllocateFrom(place));
  }

  const std::shared_ptr<Allocation>& Holder() const { return holder_; }
  void ResetHolder(std::shared_ptr<Allocation> holder) { holder_ = std::move(holder); }
  // This tensor becomes another view of src's memory with the same meta.
  void ShareDataWith(const DenseTensor& src) {
    holder_ = src.holder_;
    meta_ = src.meta_;
  }
  size_t memory_size() const { return holder_ ? holder_->size() : 0; }
  // Bytes from the start of the allocation the current view reaches.
  size_t RequiredBytes() const;

  // Version of the underlying memory (0 without memory).
  uint32_t current_inplace_version() const {
    return holder_ ? holder_->inplace_version().CurrentVersion() : 0;
  }
  void bump_inplace_version() {
    if (holder_) holder_->inplace_version().Bump();
  }

 private:
  void CheckType(DType expected) const;
  [[noreturn]] static void ThrowNoMemory();

  DenseTensorMeta meta_;
  std::shared_ptr<Allocation> holder_;
};

}  // namespace oar
