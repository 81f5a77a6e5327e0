// What every tensor implementation is (phi's TensorBase): a shape, an element
// type, a layout and a place. The dense strided tensor and the two sparse
// formats derive from it; `Tensor` holds any of them (docs/design.md §4,
// docs/sparse.md).
#pragma once

#include <cstdint>

#include "oar/core/ddim.h"
#include "oar/core/dtype.h"
#include "oar/core/place.h"

namespace oar {

// kAny, kNCHW and kNHWC describe dense tensors; the sparse layouts name the
// storage format and select sparse kernels in the kernel key (a dense kernel
// never receives a sparse tensor).
enum class DataLayout : uint8_t { kAny = 0, kNCHW, kNHWC, kSparseCoo, kSparseCsr };

inline constexpr bool IsSparseLayout(DataLayout l) {
  return l == DataLayout::kSparseCoo || l == DataLayout::kSparseCsr;
}

// The concrete type of an impl, so a Tensor can test it without RTTI (phi's
// classof over TypeInfo).
enum class TensorKind : uint8_t { kDense = 0, kSparseCoo, kSparseCsr };

// "dense", "sparse_coo", "sparse_csr": for messages.
const char* TensorKindName(TensorKind kind);

class TensorBase {
 public:
  virtual ~TensorBase() = default;

  TensorKind kind() const { return kind_; }
  // The logical (dense) shape, for every kind.
  virtual const DDim& dims() const = 0;
  // The element type (for a sparse tensor, that of its values).
  virtual DType dtype() const = 0;
  virtual DataLayout layout() const = 0;
  virtual Place place() const = 0;
  // The meta is set (a dtype is known).
  virtual bool valid() const = 0;
  // Memory is attached.
  virtual bool initialized() const = 0;
  int64_t numel() const { return Product(dims()); }
  int ndim() const { return static_cast<int>(dims().size()); }

 protected:
  explicit TensorBase(TensorKind kind) : kind_(kind) {}
  TensorBase(const TensorBase&) = default;
  TensorBase& operator=(const TensorBase&) = default;

 private:
  TensorKind kind_;
};

}  // namespace oar
