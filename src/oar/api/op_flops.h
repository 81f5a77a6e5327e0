// Floating-point operations of the ops whose cost is dominated by
// multiply-adds, for the profiler's with_flops (one multiply-add = 2 FLOPs):
// matmul and linear 2·M·N·K, convolution 2·(output elements)·(Cin/groups·kh·kw).
// Elementwise epilogues (bias) are not counted, as in Paddle's and PyTorch's
// profilers. The generated dygraph functions call these only when a profiler
// asked for FLOPs (tools/codegen/gen_ops.py, FLOPS).
#pragma once

#include <cstdint>

#include "oar/core/tensor.h"

namespace oar::api {

inline int64_t MatmulFlops(const Tensor& x, bool transpose_x, const Tensor& out) {
  const auto& d = x.dims();
  if (d.empty()) return 0;
  const int64_t k = d.size() == 1 ? d[0] : (transpose_x ? d[d.size() - 2] : d[d.size() - 1]);
  return 2 * out.numel() * k;
}

// weight is [in_features, out_features].
inline int64_t LinearFlops(const Tensor& weight, const Tensor& out) {
  return weight.dims().empty() ? 0 : 2 * out.numel() * weight.dims()[0];
}

// weight is [Cout, Cin/groups, k...]: each output element is one dot product
// of weight.numel()/Cout terms.
inline int64_t ConvFlops(const Tensor& weight, const Tensor& out) {
  const auto& d = weight.dims();
  if (d.empty() || d[0] == 0) return 0;
  return 2 * out.numel() * (weight.numel() / d[0]);
}

}  // namespace oar::api
