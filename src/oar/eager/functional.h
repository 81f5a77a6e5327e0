// Jacobians and Hessians on top of Grad (Paddle's paddle.autograd.jacobian/hessian).
#pragma once

#include <optional>

#include "oar/core/tensor.h"

namespace oar {

// dy/dx as a matrix. Without batch_axis: [M, N] with M = y.numel(), N = x.numel().
// With batch_axis = 0 (y [B, ...], x [B, ...], samples independent): [B, M, N],
// computed one row for the whole batch at a time (M backward passes, not B*M).
Tensor jacobian(const Tensor& y, const Tensor& x, std::optional<int64_t> batch_axis = std::nullopt,
                bool create_graph = false);

// d2y/dx2 of a scalar y (or one scalar per sample with batch_axis = 0): [N, N] or [B, N, N].
Tensor hessian(const Tensor& y, const Tensor& x, std::optional<int64_t> batch_axis = std::nullopt,
               bool create_graph = false);

}  // namespace oar
