// In-place ops (SetInplaceMap): X += Y, ReLU with an in-place grad op, a list
// written in place; and outputs written through paddle::Tensor* parameters.
#include <vector>

#include "paddle/extension.h"

void AddInplace(paddle::Tensor& x, const paddle::Tensor& y) {  // NOLINT: written in place
  PD_CHECK(x.shape() == y.shape(), "x and y must have one shape");
  PD_DISPATCH_FLOATING_TYPES(x.dtype(), "AddInplace", ([&] {
                               data_t* px = x.data<data_t>();
                               const data_t* py = y.data<data_t>();
                               for (int64_t i = 0; i < x.numel(); ++i) px[i] += py[i];
                             }));
}

std::vector<paddle::Tensor> AddInplaceBackward(const paddle::Tensor& grad_out) {
  return {grad_out, grad_out};
}

PD_BUILD_OP(add_inplace)
    .Inputs({"X", "Y"})
    .Outputs({"Out"})
    .SetInplaceMap({{"X", "Out"}})
    .SetKernelFn(PD_KERNEL(AddInplace));

PD_BUILD_GRAD_OP(add_inplace)
    .Inputs({paddle::Grad("Out")})
    .Outputs({paddle::Grad("X"), paddle::Grad("Y")})
    .SetKernelFn(PD_KERNEL(AddInplaceBackward));

// ReLU in place, whose grad op also writes in place (into the incoming gradient,
// which oar hands it as a copy).
void ReluInplace(paddle::Tensor& x) {  // NOLINT: written in place
  PD_DISPATCH_FLOATING_TYPES(x.dtype(), "ReluInplace", ([&] {
                               data_t* p = x.data<data_t>();
                               for (int64_t i = 0; i < x.numel(); ++i) {
                                 p[i] = p[i] > data_t(0) ? p[i] : data_t(0);
                               }
                             }));
}

void ReluInplaceBackward(const paddle::Tensor& out, paddle::Tensor& grad_out) {  // NOLINT
  PD_DISPATCH_FLOATING_TYPES(out.dtype(), "ReluInplaceBackward", ([&] {
                               data_t* g = grad_out.data<data_t>();
                               for (int64_t i = 0; i < out.numel(); ++i) {
                                 if (!(out.data<data_t>()[i] > data_t(0))) g[i] = data_t(0);
                               }
                             }));
}

PD_BUILD_OP(relu_inplace)
    .Inputs({"X"})
    .Outputs({"Out"})
    .SetInplaceMap({{"X", "Out"}})
    .SetKernelFn(PD_KERNEL(ReluInplace));

PD_BUILD_GRAD_OP(relu_inplace)
    .Inputs({"Out", paddle::Grad("Out")})
    .Outputs({paddle::Grad("X")})
    .SetInplaceMap({{paddle::Grad("Out"), paddle::Grad("X")}})
    .SetKernelFn(PD_KERNEL(ReluInplaceBackward));

// X[i] += Y for a list X, in place; dY is the sum of the list's gradients.
void AddListInplace(std::vector<paddle::Tensor>& xs, const paddle::Tensor& y) {  // NOLINT
  for (auto& x : xs) AddInplace(x, y);
}

std::vector<paddle::Tensor> AddListInplaceBackward(const paddle::Tensor& y,
                                                   std::vector<paddle::Tensor>& grads) {  // NOLINT
  paddle::Tensor grad_y = paddle::zeros(y.shape(), y.dtype());
  for (const auto& g : grads) grad_y = grad_y + g;
  return {grad_y};
}

PD_BUILD_OP(add_list_inplace)
    .Inputs({paddle::Vec("X"), "Y"})
    .Outputs({paddle::Vec("Out")})
    .SetInplaceMap({{paddle::Vec("X"), paddle::Vec("Out")}})
    .SetKernelFn(PD_KERNEL(AddListInplace));

PD_BUILD_GRAD_OP(add_list_inplace)
    .Inputs({"Y", paddle::Grad(paddle::Vec("Out"))})
    .Outputs({paddle::Grad(paddle::Vec("X")), paddle::Grad("Y")})
    .SetInplaceMap({{paddle::Grad(paddle::Vec("Out")), paddle::Grad(paddle::Vec("X"))}})
    .SetKernelFn(PD_KERNEL(AddListInplaceBackward));

// Outputs written through paddle::Tensor* parameters (Paddle 2.3's interface).
void ScaleOut(const paddle::Tensor& x, paddle::Tensor* out) {
  out->reshape(x.shape());
  PD_DISPATCH_FLOATING_TYPES(x.dtype(), "ScaleOut", ([&] {
                               data_t* po = out->mutable_data<data_t>(x.place());
                               for (int64_t i = 0; i < x.numel(); ++i) {
                                 po[i] = x.data<data_t>()[i] * data_t(3);
                               }
                             }));
}

void ScaleOutBackward(const paddle::Tensor& grad_out, paddle::Tensor* grad_x) {
  *grad_x = grad_out * 3.0;
}

PD_BUILD_OP(scale_out).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(ScaleOut));

PD_BUILD_GRAD_OP(scale_out)
    .Inputs({paddle::Grad("Out")})
    .Outputs({paddle::Grad("X")})
    .SetKernelFn(PD_KERNEL(ScaleOutBackward));
