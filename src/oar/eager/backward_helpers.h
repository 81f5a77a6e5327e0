// Building blocks of the backward formulas in src/oar/ops/. Each is composed of
// differentiable ops, so the formulas that use them can be differentiated again.
#pragma once

#include <vector>

#include "oar/autograd/grad_slot_meta.h"
#include "oar/core/tensor.h"

namespace oar {

// The gradient in the dtype of the input it belongs to (mixed-dtype ops compute
// in the promoted dtype).
Tensor grad_as(const Tensor& g, const GradSlotMeta& input_meta);
// reshape() to exactly `shape`: reshape reads 0 as "keep this dim" (Paddle's
// rule), which an empty gradient must not.
Tensor reshape_to(const Tensor& g, const std::vector<int64_t>& shape);
// g summed down to like's shape (the reverse of broadcasting); g itself when equal.
Tensor unbroadcast(const Tensor& g, const Tensor& like);
// The gradient of a reduction over `axis` spread back to x's shape.
Tensor reduce_grad(const Tensor& g, const Tensor& x, const std::vector<int64_t>& axis,
                   bool keepdim);
Tensor mean_grad(const Tensor& g, const Tensor& x, const std::vector<int64_t>& axis, bool keepdim);
// max/min: the gradient goes to the elements equal to the result, split evenly among ties.
Tensor max_min_grad(const Tensor& x, const Tensor& out, const Tensor& g,
                    const std::vector<int64_t>& axis, bool keepdim);
// maximum/minimum: 1 where a wins, 0.5 on ties, 0 where b wins (1 where either is NaN).
Tensor max_min_mask(const Tensor& a, const Tensor& b, bool is_max);
// x ** y: the gradients with PyTorch's conventions at the points where the
// plain formula meets 0 * inf (a zero exponent contributes 0 to dx, and a zero
// base with a non-negative exponent contributes 0 to dy).
Tensor pow_grad_x(const Tensor& x, double y, const Tensor& g);
Tensor elementwise_pow_grad_x(const Tensor& x, const Tensor& y, const Tensor& g);
Tensor elementwise_pow_grad_y(const Tensor& x, const Tensor& y, const Tensor& out, const Tensor& g);
std::vector<int64_t> inverse_perm(const std::vector<int64_t>& perm);
std::vector<Tensor> concat_grad(const std::vector<Tensor>& x, const Tensor& g, int64_t axis);
Tensor matmul_grad_x(const Tensor& x, const Tensor& y, const Tensor& g, bool transpose_x,
                     bool transpose_y);
Tensor matmul_grad_y(const Tensor& x, const Tensor& y, const Tensor& g, bool transpose_x,
                     bool transpose_y);
// d/d(out) of <gg, softmax_grad(out, g)>.
Tensor softmax_grad_out_grad(const Tensor& out, const Tensor& g, const Tensor& gg, int64_t axis);

}  // namespace oar

// ---- statistics, search and scans (src/oar/ops/{statistics,search,scan}.yaml) ----
namespace oar {
// prod: out / x where x != 0; at a zero, the product of the others written as a
// polynomial in the other zeros, so gradients of orders 1-3 are exact at zeros.
Tensor prod_grad(const Tensor& x, const Tensor& out, const Tensor& g,
                 const std::vector<int64_t>& axis, bool keepdim);
Tensor logsumexp_grad(const Tensor& x, const Tensor& out, const Tensor& g,
                      const std::vector<int64_t>& axis, bool keepdim);
Tensor var_grad(const Tensor& x, const Tensor& g, const std::vector<int64_t>& axis, bool unbiased,
                bool keepdim);
Tensor std_grad(const Tensor& x, const Tensor& out, const Tensor& g,
                const std::vector<int64_t>& axis, bool unbiased, bool keepdim);
Tensor p_norm_grad(const Tensor& x, const Tensor& out, const Tensor& g, double porder,
                   const std::vector<int64_t>& axis, bool keepdim);
// cumsum: the reversed running sum of g (reshaped back when cumsum flattened x).
Tensor cumsum_grad(const Tensor& x, const Tensor& g, const std::vector<int64_t>& axis);
// cumprod: reversed running sums of g * out over x, with the first three zeros of each
// line handled apart, so gradients of orders 1-3 are exact at zeros.
Tensor cumprod_grad(const Tensor& x, const Tensor& out, const Tensor& g,
                    const std::vector<int64_t>& dim);
}  // namespace oar
