// A ReLU with its grad and double-grad ops, written as Paddle's custom-op
// tutorial writes one (tests/python/test_custom_op.py).
#include <vector>

#include "paddle/extension.h"

template <typename data_t>
void ReluKernel(const data_t* x, data_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = x[i] > static_cast<data_t>(0) ? x[i] : static_cast<data_t>(0);
}

template <typename data_t>
void ReluGradKernel(const data_t* grad_out, const data_t* out, data_t* grad_x, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    grad_x[i] = out[i] > static_cast<data_t>(0) ? grad_out[i] : static_cast<data_t>(0);
}

std::vector<paddle::Tensor> ReluForward(const paddle::Tensor& x) {
  PD_CHECK(x.place() == paddle::PlaceType::kCPU, "x must be a CPU Tensor.");
  auto out = paddle::empty(x.shape(), x.dtype(), x.place());
  PD_DISPATCH_FLOATING_TYPES(x.type(), "ReluKernel", ([&] {
                               ReluKernel<data_t>(x.data<data_t>(), out.data<data_t>(), x.numel());
                             }));
  return {out};
}

std::vector<paddle::Tensor> ReluBackward(const paddle::Tensor& x, const paddle::Tensor& out,
                                         const paddle::Tensor& grad_out) {
  PD_CHECK(x.is_cpu(), "x must be a CPU Tensor.");
  auto grad_x = paddle::empty(x.shape(), x.dtype(), x.place());
  PD_DISPATCH_FLOATING_TYPES(out.type(), "ReluGradKernel", ([&] {
                               ReluGradKernel<data_t>(grad_out.data<data_t>(), out.data<data_t>(),
                                                      grad_x.mutable_data<data_t>(x.place()),
                                                      out.numel());
                             }));
  return {grad_x};
}

// d(grad_x)/d(grad_out) is the same mask: the double grad maps ddx to ddout.
std::vector<paddle::Tensor> ReluDoubleBackward(const paddle::Tensor& out,
                                               const paddle::Tensor& ddx) {
  auto ddout = paddle::empty(out.shape(), out.dtype(), out.place());
  PD_DISPATCH_FLOATING_TYPES(out.type(), "ReluDoubleGrad", ([&] {
                               ReluGradKernel<data_t>(ddx.data<data_t>(), out.data<data_t>(),
                                                      ddout.data<data_t>(), out.numel());
                             }));
  return {ddout};
}

std::vector<std::vector<int64_t>> ReluDoubleBackwardInferShape(
    const std::vector<int64_t>& out_shape, const std::vector<int64_t>&) {
  return {out_shape};
}

PD_BUILD_OP(custom_relu).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(ReluForward));

PD_BUILD_GRAD_OP(custom_relu)
    .Inputs({"X", "Out", paddle::Grad("Out")})
    .Outputs({paddle::Grad("X")})
    .SetKernelFn(PD_KERNEL(ReluBackward));

PD_BUILD_DOUBLE_GRAD_OP(custom_relu)
    .Inputs({"Out", paddle::Grad(paddle::Grad("X"))})
    .Outputs({paddle::Grad(paddle::Grad("Out"))})
    .SetKernelFn(PD_KERNEL(ReluDoubleBackward))
    .SetInferShapeFn(PD_INFER_SHAPE(ReluDoubleBackwardInferShape));
