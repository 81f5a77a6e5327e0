// Dtype promotion in the eager layer: when the tensor inputs of an op have
// different (floating) dtypes they are cast with the differentiable `cast`
// before the op runs, as Paddle's ad functions do. The saved tensors are then
// the promoted ones, and each input's gradient comes back through its cast in
// the input's own dtype.
#pragma once

#include <vector>

#include "oar/core/tensor.h"

namespace oar {

inline bool DTypesDiffer(DType) { return false; }
template <typename... Rest>
bool DTypesDiffer(DType first, const Tensor& t, const Rest&... rest);
template <typename... Rest>
bool DTypesDiffer(DType first, const std::vector<Tensor>& ts, const Rest&... rest);

// Whether t has a dtype and it is not `first`.
inline bool DTypeDiffers(DType first, const Tensor& t) {
  return t.has_meta() && t.dtype() != first;
}

template <typename... Rest>
bool DTypesDiffer(DType first, const Tensor& t, const Rest&... rest) {
  if (DTypeDiffers(first, t)) return true;
  return DTypesDiffer(first, rest...);
}
template <typename... Rest>
bool DTypesDiffer(DType first, const std::vector<Tensor>& ts, const Rest&... rest) {
  for (const auto& t : ts) {
    if (DTypeDiffers(first, t)) return true;
  }
  return DTypesDiffer(first, rest...);
}

inline DType FirstDType(const Tensor& t) { return t.defined() ? t.dtype() : DType::kUndefined; }
inline DType FirstDType(const std::vector<Tensor>& ts) {
  return ts.empty() || !ts[0].defined() ? DType::kUndefined : ts[0].dtype();
}

// Whether the inputs need casting before op runs (the common case: no).
template <typename First, typename... Rest>
bool NeedsPromotion(const First& first, const Rest&... rest) {
  const DType d = FirstDType(first);
  return d != DType::kUndefined && DTypesDiffer(d, first, rest...);
}

// The dtype the inputs are computed in; an error naming `op` for non-floating mixes.
DType PromotedDType(const char* op, const std::vector<DType>& dtypes);
DType DTypeOfTensor(const Tensor& t);
std::vector<DType> DTypesOf(const std::vector<Tensor>& ts);

// Paddle's rule for a 0-d tensor operand of + - * / % ** (add, subtract, ...), the
// comparisons, copysign and hypot (`scalar`) and of floor_divide (`promote`), measured on
// Paddle 3.3.1. With one 0-d operand whose dtype is of the other's kind (both
// integers, both floating, both complex), `scalar` computes in the other operand's
// dtype, as with a Python number (int32 vector + 0-d int64 is int32, float32 vector +
// 0-d float64 is float32). Otherwise (kinds differ, both operands 0-d, or `promote`)
// the operands meet in PromoteTypes (int32 vector + 0-d float32 is float32, 0-d int64
// + 0-d float32 is float32, int32 vector // 0-d int64 is int64). DType::kUndefined when
// neither operand is 0-d: the tensor-with-tensor rule (PromotedDType) applies.
enum class ZeroDimRule { kScalar, kPromote };
DType ZeroDimDType(const char* op, const Tensor& x, const Tensor& y, ZeroDimRule rule);

// t, or t cast (differentiably) to dtype.
Tensor PromoteTo(const Tensor& t, DType dtype);
std::vector<Tensor> PromoteTo(const std::vector<Tensor>& ts, DType dtype);

}  // namespace oar
