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

template <typename... Rest>
bool DTypesDiffer(DType first, const Tensor& t, const Rest&... rest) {
  if (t.defined() && t.impl()->valid() && t.dtype() != first) return true;
  return DTypesDiffer(first, rest...);
}
template <typename... Rest>
bool DTypesDiffer(DType first, const std::vector<Tensor>& ts, const Rest&... rest) {
  for (const auto& t : ts) {
    if (t.defined() && t.impl()->valid() && t.dtype() != first) return true;
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

// t, or t cast (differentiably) to dtype.
Tensor PromoteTo(const Tensor& t, DType dtype);
std::vector<Tensor> PromoteTo(const std::vector<Tensor>& ts, DType dtype);

}  // namespace oar
