// The example of docs/custom_ops.md: Out = alpha * X^2 (+ Bias when given), with
// its grad op and its double-grad op.
#include <vector>

#include "paddle/extension.h"

std::vector<paddle::Tensor> ScaledSquareForward(const paddle::Tensor& x,
                                                const paddle::optional<paddle::Tensor>& bias,
                                                float alpha) {
  PD_CHECK(x.is_cpu(), "x must be a CPU tensor");
  auto out = paddle::empty(x.shape(), x.dtype(), x.place());
  PD_DISPATCH_FLOATING_TYPES(x.dtype(), "scaled_square", ([&] {
                               const data_t* px = x.data<data_t>();
                               data_t* po = out.data<data_t>();
                               const auto a = static_cast<data_t>(alpha);
                               for (int64_t i = 0; i < x.numel(); ++i) po[i] = a * px[i] * px[i];
                             }));
  if (bias) {
    PD_CHECK(bias->shape() == x.shape(), "bias must have x's shape");
    out = out + *bias;
  }
  return {out};
}

// dX = 2 alpha X dOut; dBias = dOut (only when Bias was given).
std::vector<paddle::Tensor> ScaledSquareBackward(const paddle::Tensor& x,
                                                 const paddle::optional<paddle::Tensor>& bias,
                                                 const paddle::Tensor& grad_out, float alpha) {
  paddle::Tensor grad_bias;
  if (bias) grad_bias = grad_out.copy_to(paddle::CPUPlace(), true);
  return {grad_out * x * (2.0 * alpha), grad_bias};
}

// The grad op computed dX = 2 alpha X dOut; given ddX (the gradient arriving at dX) its
// own gradients are d/dX = 2 alpha dOut ddX and d/d(dOut) = 2 alpha X ddX.
std::vector<paddle::Tensor> ScaledSquareDoubleBackward(const paddle::Tensor& x,
                                                       const paddle::Tensor& grad_out,
                                                       const paddle::Tensor& grad_grad_x,
                                                       float alpha) {
  return {grad_out * grad_grad_x * (2.0 * alpha), x * grad_grad_x * (2.0 * alpha)};
}

PD_BUILD_OP(scaled_square)
    .Inputs({"X", paddle::Optional("Bias")})
    .Outputs({"Out"})
    .Attrs({"alpha: float"})
    .SetKernelFn(PD_KERNEL(ScaledSquareForward));

PD_BUILD_GRAD_OP(scaled_square)
    .Inputs({"X", paddle::Optional("Bias"), paddle::Grad("Out")})
    .Outputs({paddle::Grad("X"), paddle::Grad(paddle::Optional("Bias"))})
    .Attrs({"alpha: float"})
    .SetKernelFn(PD_KERNEL(ScaledSquareBackward));

PD_BUILD_DOUBLE_GRAD_OP(scaled_square)
    .Inputs({"X", paddle::Grad("Out"), paddle::Grad(paddle::Grad("X"))})
    .Outputs({paddle::New(paddle::Grad("X")), paddle::Grad(paddle::Grad("Out"))})
    .Attrs({"alpha: float"})
    .SetKernelFn(PD_KERNEL(ScaledSquareDoubleBackward));
