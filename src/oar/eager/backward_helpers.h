// Building blocks of the backward formulas in src/oar/ops/. Each is composed of
// differentiable ops, so the formulas that use them can be differentiated again.
#pragma once

#include <vector>

#include "oar/autograd/grad_slot_meta.h"
#include "oar/core/tensor.h"

namespace oar {

// The gradient in the dtype of the input it belongs to (mixed-dtype ops compute
// in the promoted dtype). This and unbroadcast take the gradient by value: a
// formula hands them the temporary it just computed, which then moves through
// instead of being copied (a copy takes and drops a reference on the tensor and
// on its autograd meta, locked instructions once the process has a second thread).
Tensor grad_as(Tensor g, const GradSlotMeta& input_meta);
// reshape() to exactly `shape`: reshape reads 0 as "keep this dim" (Paddle's
// rule), which an empty gradient must not.
Tensor reshape_to(const Tensor& g, const std::vector<int64_t>& shape);
// reshape_to(g, like's shape), and g itself when it already has it: no shape vector
// is built for the common case of a gradient already shaped like its input.
Tensor reshape_to(const Tensor& g, const Tensor& like);
// conj(t) for a complex t, t itself otherwise: the backward of a holomorphic op
// multiplies by the conjugate derivative (the gradient convention of
// docs/dtypes.md), and real tensors skip the copy.
Tensor conj_if_complex(Tensor t);  // by value, as grad_as
// multiply(g, conj_if_complex(t)) without copying t: the gradient of multiply and
// exp reads a saved tensor, which conj_if_complex would copy to return it.
Tensor multiply_conj(const Tensor& g, const Tensor& t);
// The gradient of abs: g * sign(x) for real x; g * z / |z| (0 at 0) for complex x,
// written in differentiable ops (sign's own gradient is 0).
Tensor abs_grad(const Tensor& x, const Tensor& g);
// The gradient of sign: zeros for real x. For complex x sign is z / |z|, which
// moves with z's phase: the part of g across sign(z), over |z|, (g - Re(g conj(s)) s)
// / |z| (0 at 0; PyTorch's sgn).
Tensor sign_grad(const Tensor& x, const Tensor& out, const Tensor& g);
// The gradient of angle(x): g * i x / |x|^2 for complex x, zeros for real x.
Tensor angle_grad(const Tensor& x, const Tensor& g);
// g summed down to like's shape (the reverse of broadcasting); g itself when equal.
Tensor unbroadcast(Tensor g, const Tensor& like);
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
// atan2(x, y): 1 / (x^2 + y^2), and 0 at the origin (PyTorch's gradient there;
// the plain formula is 0 / 0).
Tensor atan2_recip(const Tensor& x, const Tensor& y);
// acosh: the derivative's denominator, sqrt(x^2 - 1) for real x and the principal
// branch's sqrt(x - 1) sqrt(x + 1) for complex x.
Tensor acosh_grad_denominator(const Tensor& x);
std::vector<int64_t> inverse_perm(const std::vector<int64_t>& perm);
std::vector<Tensor> concat_grad(const std::vector<Tensor>& x, const Tensor& g, int64_t axis);
Tensor matmul_grad_x(const Tensor& x, const Tensor& y, const Tensor& g, bool transpose_x,
                     bool transpose_y);
Tensor matmul_grad_y(const Tensor& x, const Tensor& y, const Tensor& g, bool transpose_x,
                     bool transpose_y);
// d/d(out) of <gg, softmax_grad(out, g)>.
Tensor softmax_grad_out_grad(const Tensor& out, const Tensor& g, const Tensor& gg, int64_t axis);

// --- shape section (flip, roll, pad, diagonals, windows) ---
// The shifts that undo roll(g, shifts, axis): -(shift mod the axis's size).
std::vector<int64_t> roll_back_shifts(const Tensor& g, const std::vector<int64_t>& shifts,
                                      const std::vector<int64_t>& axis);

}  // namespace oar

// ---- nn.functional: norm, loss and nn sections (src/oar/ops/{norm,loss,nn}.yaml) ----
namespace oar {
// layer_norm / rms_norm (rms = true): d/dweight and d/dbias of the forward.
Tensor norm_weight_grad(const Tensor& x, const Tensor& weight, const Tensor& g, double epsilon,
                        int64_t begin_norm_axis, bool rms);
Tensor norm_scale_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg, double epsilon,
                              int64_t begin_norm_axis, bool rms);
Tensor norm_scale_grad_g_grad(const Tensor& x, const Tensor& gg, double epsilon,
                              int64_t begin_norm_axis, bool rms);
Tensor norm_bias_grad(const Tensor& bias, const Tensor& g, int64_t begin_norm_axis);
// The backward of layer_norm_grad / rms_norm_grad (gg: the gradient of x_grad).
Tensor norm_grad_weight_grad(const Tensor& x, const Tensor& weight, const Tensor& g,
                             const Tensor& gg, double epsilon, int64_t begin_norm_axis, bool rms);
Tensor norm_grad_grad_out_grad(const Tensor& x, const Tensor& weight, const Tensor& gg,
                               double epsilon, int64_t begin_norm_axis, bool rms);
Tensor layer_norm_grad_x_grad(const Tensor& x, const Tensor& weight, const Tensor& g,
                              const Tensor& gg, double epsilon, int64_t begin_norm_axis);
Tensor rms_norm_grad_x_grad(const Tensor& x, const Tensor& weight, const Tensor& g,
                            const Tensor& gg, double epsilon, int64_t begin_norm_axis);
// batch_norm (src/oar/ops/batch_norm.yaml): d/dweight, d/dbias, and the backward of
// batch_norm_grad and batch_norm_scale_grad; gradients come back in their input's dtype.
Tensor bn_weight_grad(const Tensor& x, const Tensor& weight, const Tensor& g, double epsilon,
                      int64_t axis);
Tensor bn_bias_grad(const Tensor& bias, const Tensor& g, int64_t axis);
Tensor batch_norm_grad_x_grad(const Tensor& x, const Tensor& weight, const Tensor& g,
                              const Tensor& gg, double epsilon, int64_t axis);
Tensor bn_grad_weight_grad(const Tensor& x, const Tensor& weight, const Tensor& g, const Tensor& gg,
                           double epsilon, int64_t axis);
Tensor bn_scale_grad_g_grad(const Tensor& x, const Tensor& gg, double epsilon, int64_t axis);
// batch_norm_infer: y = (x - mean) r w + b per channel, r = (variance + epsilon)^-1/2.
// Each is written in differentiable ops (x's through batch_norm_infer itself), so
// every order of gradient works.
Tensor bn_infer_x_grad(const Tensor& g, const Tensor& mean, const Tensor& variance,
                       const Tensor& weight, const Tensor& bias, double epsilon, int64_t axis);
Tensor bn_infer_mean_grad(const Tensor& g, const Tensor& variance, const Tensor& weight,
                          double epsilon, int64_t axis);
Tensor bn_infer_variance_grad(const Tensor& x, const Tensor& g, const Tensor& mean,
                              const Tensor& variance, const Tensor& weight, const Tensor& bias,
                              double epsilon, int64_t axis);
Tensor bn_infer_weight_grad(const Tensor& x, const Tensor& g, const Tensor& mean,
                            const Tensor& variance, const Tensor& weight, const Tensor& bias,
                            double epsilon, int64_t axis);
// The backward of cross_entropy_hard_grad / cross_entropy_soft_grad.
Tensor ce_hard_grad_logits_grad(const Tensor& logits, const Tensor& label, const Tensor& g,
                                const Tensor& gg, int64_t ignore_index, int64_t axis);
Tensor ce_hard_grad_grad_out_grad(const Tensor& logits, const Tensor& label, const Tensor& gg,
                                  int64_t ignore_index, int64_t axis);
Tensor ce_soft_grad_logits_grad(const Tensor& logits, const Tensor& label, const Tensor& g,
                                const Tensor& gg, int64_t axis);
Tensor ce_soft_grad_label_grad(const Tensor& logits, const Tensor& g, const Tensor& gg,
                               int64_t axis);
Tensor ce_soft_grad_grad_out_grad(const Tensor& logits, const Tensor& label, const Tensor& gg,
                                  int64_t axis);
// linear: d/dweight (x^T g over all leading dims) and d/dbias (g summed over them).
Tensor linear_weight_grad(const Tensor& x, const Tensor& g);
Tensor linear_bias_grad(const Tensor& g);

// ---- gathering and scattering (gather.yaml, scatter.yaml) ----
// gather's backward: index_select_grad, with a 0-d index's dropped axis put back.
Tensor gather_grad(const Tensor& x, const Tensor& index, const Tensor& g, int64_t axis);
// take_along_axis's backward: g added at the taken positions of zeros shaped like
// arr broadcast, then summed down to arr's shape.
Tensor take_along_axis_grad(const Tensor& arr, const Tensor& indices, const Tensor& g, int64_t axis,
                            bool broadcast);
// put_along_axis's backward for arr: g itself when adding into arr, else g with
// the written positions zeroed (their old values were overwritten).
Tensor scatter_along_axis_grad_arr(const Tensor& indices, const Tensor& g, int64_t axis,
                                   int64_t reduce, bool include_self, bool broadcast);
// index_put_nd's backward for x: g, or g with the written positions zeroed.
Tensor index_put_nd_grad_x(const Tensor& g, const Tensor& index, bool accumulate);

// ---- activations (src/oar/ops/activation.yaml; in backward_helpers_activation.cc).
// The x-gradients of the fused <op>_grad(x, g, ...) = g * f'(x): gg * g * f''(x),
// composed of differentiable ops.
Tensor gelu_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg, bool approximate);
Tensor silu_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg);
Tensor mish_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg);
Tensor elu_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg, double alpha);
Tensor selu_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg, double scale,
                        double alpha);
Tensor celu_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg, double alpha);
Tensor softplus_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg, double beta,
                            double threshold);
Tensor softsign_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg);
Tensor log_sigmoid_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg);
Tensor tanhshrink_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg);
Tensor hardswish_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg);
// prelu(x, weight): where(x > 0, g, weight * g), and its weight-gradient summed to
// weight's shape.
Tensor prelu_grad_x(const Tensor& x, const Tensor& weight, const Tensor& g);
Tensor prelu_grad_weight(const Tensor& x, const Tensor& weight, const Tensor& g);

}  // namespace oar

// --- convolution (src/oar/ops/conv.yaml) ---
namespace oar {
// The input gradient of conv(x, w): conv_transpose of g, with the output
// padding that restores x's spatial size (a stride can drop trailing rows).
Tensor conv_grad_x(const Tensor& g, const Tensor& w, const Tensor& x,
                   const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                   const std::vector<int64_t>& dilations, int64_t groups);
// The input gradient of conv_transpose(x, w): conv of g, cut to x's spatial
// size (an output padding >= stride makes the conv one row longer).
Tensor conv_transpose_grad_x(const Tensor& g, const Tensor& w, const Tensor& x,
                             const std::vector<int64_t>& strides,
                             const std::vector<int64_t>& paddings,
                             const std::vector<int64_t>& dilations, int64_t groups);
// The weight gradient of conv_transpose(x, w): conv_filter_grad(g, x), with x
// padded by zeros at the end where an output padding >= stride makes the
// convolution of g longer than x.
Tensor conv_transpose_grad_w(const Tensor& g, const Tensor& x, const Tensor& w,
                             const std::vector<int64_t>& strides,
                             const std::vector<int64_t>& paddings,
                             const std::vector<int64_t>& dilations, int64_t groups);
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
// cumprod: reversed running sums of g * out over x (conjugated for complex x), with the
// first three zeros of each line handled apart, so gradients of orders 1-3 are exact at
// zeros.
Tensor cumprod_grad(const Tensor& x, const Tensor& out, const Tensor& g,
                    const std::vector<int64_t>& dim);
}  // namespace oar

// ---- the LAPACK section (src/oar/ops/lapack.yaml; in backward_helpers_linalg.cc) ----
namespace oar {
Tensor inverse_grad(const Tensor& out, const Tensor& g);
Tensor det_grad(const Tensor& x, const Tensor& out, const Tensor& g);
// slogdet's output stacks [sign, log|det|]; only the second row has a gradient.
Tensor slogdet_grad(const Tensor& x, const Tensor& out, const Tensor& g);
Tensor solve_grad_x(const Tensor& x, const Tensor& out, const Tensor& g);
Tensor solve_grad_y(const Tensor& x, const Tensor& g);
Tensor triangular_solve_grad_x(const Tensor& x, const Tensor& out, const Tensor& g, bool upper,
                               bool transpose, bool unitriangular);
Tensor triangular_solve_grad_y(const Tensor& x, const Tensor& g, bool upper, bool transpose,
                               bool unitriangular);
// cholesky and eigh read one triangle of x: their gradients live on that triangle.
Tensor cholesky_grad(const Tensor& out, const Tensor& g, bool upper);
Tensor qr_packed_grad(const Tensor& x, const Tensor& out, const Tensor& g, bool complete);
Tensor svd_packed_grad(const Tensor& x, const Tensor& out, const Tensor& g, bool full_matrices);
Tensor eigh_packed_grad(const Tensor& out, const Tensor& g, bool upper);
// eig (complex results; the real part for a real x) and LU (square x; the pivots are
// recomputed from x and act as a constant row permutation).
Tensor eig_packed_grad(const Tensor& x, const Tensor& out, const Tensor& g);
Tensor lu_packed_grad(const Tensor& x, const Tensor& out, const Tensor& g);
}  // namespace oar

// ---- the geometric section (src/oar/ops/geometric.yaml; in backward_helpers_geometric.cc).
// The gradient each edge (segment member) receives is grad_out's row at its destination,
// divided by the row's edge count for a mean, and for max/min kept only where the
// member's value equals the result (every tied member gets it, Paddle's rule); it is then
// summed back onto the source rows with the same ops, so every order works.
namespace oar {
Tensor segment_pool_grad(const Tensor& x, const Tensor& segment_ids, const Tensor& out,
                         const Tensor& g, int64_t reduce);
Tensor send_u_recv_grad(const Tensor& x, const Tensor& src_index, const Tensor& dst_index,
                        const Tensor& out, const Tensor& g, int64_t reduce);
Tensor send_ue_recv_grad_x(const Tensor& x, const Tensor& y, const Tensor& src_index,
                           const Tensor& dst_index, const Tensor& out, const Tensor& g,
                           int64_t message_op, int64_t reduce);
Tensor send_ue_recv_grad_y(const Tensor& x, const Tensor& y, const Tensor& src_index,
                           const Tensor& dst_index, const Tensor& out, const Tensor& g,
                           int64_t message_op, int64_t reduce);
Tensor send_uv_grad_x(const Tensor& x, const Tensor& y, const Tensor& src_index,
                      const Tensor& dst_index, const Tensor& g, int64_t message_op);
Tensor send_uv_grad_y(const Tensor& x, const Tensor& y, const Tensor& src_index,
                      const Tensor& dst_index, const Tensor& g, int64_t message_op);
}  // namespace oar

// ---- the FFT section (src/oar/ops/fft.yaml; in backward_helpers_fft.cc) ----
namespace oar {
// fft_r2c: the real part of the transform the other way of g, zero-filled past the half
// spectrum when the output was onesided.
Tensor fft_r2c_grad(const Tensor& x, const Tensor& g, const std::vector<int64_t>& axes,
                    int64_t normalization, bool forward, bool onesided);
// fft_c2r: the onesided transform the other way of g, doubled at the frequencies the
// Hermitian half spectrum stands for twice.
Tensor fft_c2r_grad(const Tensor& x, const Tensor& g, const std::vector<int64_t>& axes,
                    int64_t normalization, bool forward);
}  // namespace oar

// ---- sparse sections (src/oar/ops/sparse*.yaml, backward_helpers_sparse.cc) ----
// The gradient of a sparse input has that input's positions (Paddle's rule); these
// bring any gradient (dense, or sparse of any positions) into that form.
namespace oar {

// g at the positions of x, as a tensor of x's kind: for a sparse x, sparse with
// x's indices (g's values there, 0 where a sparse g has none); for a dense x, g
// made dense.
Tensor sparse_mask_as(const Tensor& g, const Tensor& x);
// The gradient of sparse_mask_values(x, mask) w.r.t. x.
Tensor sparse_mask_values_grad(const Tensor& x, const Tensor& mask, const Tensor& g);
// The gradient of sparse_transpose(x, perm) w.r.t. x.
Tensor sparse_transpose_grad(const Tensor& x, const Tensor& g, const std::vector<int64_t>& perm);
// The gradients of sparse_matmul(x, y).
Tensor sparse_matmul_grad_x(const Tensor& x, const Tensor& y, const Tensor& g);
Tensor sparse_matmul_grad_y(const Tensor& x, const Tensor& y, const Tensor& g);
// The gradients of sparse_masked_matmul(x, y, mask).
Tensor sparse_masked_matmul_grad_x(const Tensor& x, const Tensor& y, const Tensor& mask,
                                   const Tensor& g);
Tensor sparse_masked_matmul_grad_y(const Tensor& x, const Tensor& y, const Tensor& mask,
                                   const Tensor& g);
// The gradient of sparse_softmax(x, axis) w.r.t. x (out is its result).
Tensor sparse_softmax_grad_x(const Tensor& x, const Tensor& out, const Tensor& g, int64_t axis);

}  // namespace oar

// ---- the numeric section (src/oar/ops/numeric.yaml; in backward_helpers_numeric.cc)
namespace oar {
// d copysign(x, y) / dx: sign(x) * sign of y (its sign bit), 0 at x = 0.
Tensor copysign_grad_factor(const Tensor& x, const Tensor& y);
// d i1(x) / dx = i0(x) - i1(x) / x, and for scaled (i1e) i0e(x) - i1e(x) (1 / x + sign(x));
// 1/2 at x = 0. out is i1(x) or i1e(x).
Tensor i1_grad_factor(const Tensor& x, const Tensor& out, bool scaled);
// d sinc(x) / dx = (cos(pi x) - sinc(x)) / x, 0 at x = 0.
Tensor sinc_grad_factor(const Tensor& x, const Tensor& out);
// d logit(x) / dx = 1 / (x (1 - x)); 0 where eps >= 0 clipped x (or x is NaN), NaN outside
// [0, 1] without eps.
Tensor logit_grad_factor(const Tensor& x, double eps);
// The Gamma(a, 1) density at y, d gammainc(a, y) / dy = y^(a-1) e^-y / Gamma(a).
Tensor gamma_density(const Tensor& a, const Tensor& y);
// d logcumsumexp / dx: g_j exp(x_i - out_j) summed over j >= i, as reversed logcumsumexps
// of log|g| - out over the positive and the negative parts of g (no overflow).
Tensor logcumsumexp_grad(const Tensor& x, const Tensor& out, const Tensor& g, int64_t axis);
}  // namespace oar

// ---- the recurrent section (src/oar/ops/rnn.yaml; in backward_helpers_rnn.cc) ----
namespace oar {
// rnn: rnn_grad's flat vector cut back into one gradient per input of the list (an
// undefined tensor for lengths, which has none).
std::vector<Tensor> rnn_input_grads(const std::vector<Tensor>& inputs, const Tensor& out,
                                    const Tensor& grad_out, int64_t mode, bool reverse,
                                    bool zero_padded);
// rnn_grad's own backward: an error naming the way to higher-order gradients.
std::vector<Tensor> rnn_double_grad(const std::vector<Tensor>& inputs, int64_t mode);
}  // namespace oar
