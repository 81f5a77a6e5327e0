// Creation helpers of the C++ API beyond the declared full/empty/arange/uniform/normal.
#pragma once

#include <vector>

#include "oar/core/tensor.h"

namespace oar {

Tensor zeros(const std::vector<int64_t>& shape, DType dtype = DType::kFloat32);
Tensor ones(const std::vector<int64_t>& shape, DType dtype = DType::kFloat32);
Tensor zeros_like(const Tensor& x, DType dtype = DType::kUndefined);
Tensor ones_like(const Tensor& x, DType dtype = DType::kUndefined);
Tensor rand(const std::vector<int64_t>& shape, DType dtype = DType::kFloat32);
Tensor randn(const std::vector<int64_t>& shape, DType dtype = DType::kFloat32);

// A tensor holding a copy of `data`, with `shape` (default: 1-D).
template <typename T>
Tensor to_tensor(const std::vector<T>& data, const std::vector<int64_t>& shape = {},
                 bool stop_gradient = true);
// A 0-d tensor.
template <typename T>
Tensor scalar_tensor(T value, bool stop_gradient = true) {
  return to_tensor<T>(std::vector<T>{value}, std::vector<int64_t>{}, stop_gradient);
}

}  // namespace oar
