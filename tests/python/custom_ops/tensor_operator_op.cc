// paddle::Tensor's operators and methods as Paddle's examples use them inside
// kernels: tensor-tensor and tensor-scalar arithmetic on either side,
// paddle::full / paddle::experimental::fill, comparisons, logical operators,
// and the pow / exp / abs / cast / sum methods. Each forward op has a grad op
// written with the same operators, so the test checks both against oar.
#include <iostream>
#include <vector>

#include "paddle/extension.h"

// Every op here has one input X (or X and Y) and one output; the macro keeps
// the declarations short without changing what they declare.
#define UNARY_OP_WITH_GRAD(name, forward, backward)                                 \
  PD_BUILD_OP(name).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(forward)); \
  PD_BUILD_GRAD_OP(name)                                                            \
      .Inputs({"X", "Out", paddle::Grad("Out")})                                    \
      .Outputs({paddle::Grad("X")})                                                 \
      .SetKernelFn(PD_KERNEL(backward))

#define BINARY_OP(name, forward) \
  PD_BUILD_OP(name).Inputs({"X", "Y"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(forward))

// out = x + 1, three ways.
std::vector<paddle::Tensor> AddTensorForward(const paddle::Tensor& x) {
  if (!(x.is_cpu() || x.is_gpu())) PD_THROW("unsupported place");
  paddle::Tensor one = paddle::full(x.shape(), 1.0, x.dtype(), x.place());
  return {x + one};
}
std::vector<paddle::Tensor> AddScalarForward(const paddle::Tensor& x) { return {x + 1}; }
std::vector<paddle::Tensor> AddScalarLeftForward(const paddle::Tensor& x) { return {1 + x}; }
std::vector<paddle::Tensor> PassGradBackward(const paddle::Tensor& x, const paddle::Tensor& out,
                                             const paddle::Tensor& grad_out) {
  return {grad_out * 1};
}
UNARY_OP_WITH_GRAD(custom_add, AddTensorForward, PassGradBackward);
UNARY_OP_WITH_GRAD(custom_scalar_add, AddScalarForward, PassGradBackward);
UNARY_OP_WITH_GRAD(custom_left_scalar_add, AddScalarLeftForward, PassGradBackward);

// out = x - 1 and out = -1 + x.
std::vector<paddle::Tensor> SubtractTensorForward(const paddle::Tensor& x) {
  paddle::Tensor one = paddle::full(x.shape(), 1, x.dtype(), x.place());
  return {x - one};
}
std::vector<paddle::Tensor> SubtractScalarForward(const paddle::Tensor& x) { return {x - 1}; }
std::vector<paddle::Tensor> SubtractScalarLeftForward(const paddle::Tensor& x) { return {-1 + x}; }
std::vector<paddle::Tensor> PassGradLeftBackward(const paddle::Tensor& x, const paddle::Tensor& out,
                                                 const paddle::Tensor& grad_out) {
  return {1 * grad_out};
}
UNARY_OP_WITH_GRAD(custom_subtract, SubtractTensorForward, PassGradLeftBackward);
UNARY_OP_WITH_GRAD(custom_scalar_subtract, SubtractScalarForward, PassGradLeftBackward);
UNARY_OP_WITH_GRAD(custom_left_scalar_subtract, SubtractScalarLeftForward, PassGradLeftBackward);

// out = 5 x: a tensor of fives from fill, and a scalar on either side.
std::vector<paddle::Tensor> MultiplyTensorForward(const paddle::Tensor& x) {
  paddle::Tensor ones = paddle::full(x.shape(), 1.0, x.dtype(), x.place());
  paddle::Tensor fives = paddle::experimental::fill(ones, 5);
  return {x * fives};
}
std::vector<paddle::Tensor> MultiplyTensorBackward(const paddle::Tensor& x,
                                                   const paddle::Tensor& out,
                                                   const paddle::Tensor& grad_out) {
  paddle::Tensor fives = paddle::experimental::fill(paddle::ones_like(x), 5);
  return {fives * grad_out};
}
std::vector<paddle::Tensor> MultiplyScalarForward(const paddle::Tensor& x) { return {x * 5}; }
std::vector<paddle::Tensor> MultiplyScalarBackward(const paddle::Tensor& x,
                                                   const paddle::Tensor& out,
                                                   const paddle::Tensor& grad_out) {
  return {grad_out * 5};
}
std::vector<paddle::Tensor> MultiplyScalarLeftForward(const paddle::Tensor& x) { return {5 * x}; }
std::vector<paddle::Tensor> MultiplyScalarLeftBackward(const paddle::Tensor& x,
                                                       const paddle::Tensor& out,
                                                       const paddle::Tensor& grad_out) {
  return {5 * grad_out};
}
UNARY_OP_WITH_GRAD(custom_multiply, MultiplyTensorForward, MultiplyTensorBackward);
UNARY_OP_WITH_GRAD(custom_scalar_multiply, MultiplyScalarForward, MultiplyScalarBackward);
UNARY_OP_WITH_GRAD(custom_left_scalar_multiply, MultiplyScalarLeftForward,
                   MultiplyScalarLeftBackward);

// out = 1 / x, three ways; d out / dx = -1 / x^2.
std::vector<paddle::Tensor> DivideTensorForward(const paddle::Tensor& x) {
  paddle::Tensor ones = paddle::full(x.shape(), 1.0, x.dtype(), x.place());
  return {ones / x};
}
std::vector<paddle::Tensor> DivideScalarForward(const paddle::Tensor& x) {
  paddle::Tensor ones = paddle::full(x.shape(), 1.0, x.dtype(), x.place());
  return {ones / x / 1};
}
std::vector<paddle::Tensor> DivideScalarLeftForward(const paddle::Tensor& x) { return {1 / x}; }
std::vector<paddle::Tensor> DivideBackward(const paddle::Tensor& x, const paddle::Tensor& out,
                                           const paddle::Tensor& grad_out) {
  paddle::Tensor zeros = paddle::full(x.shape(), 0.0, x.dtype(), x.place());
  return {zeros - grad_out / (x * x)};
}
std::vector<paddle::Tensor> DivideLeftBackward(const paddle::Tensor& x, const paddle::Tensor& out,
                                               const paddle::Tensor& grad_out) {
  return {-grad_out / (x * x)};
}
UNARY_OP_WITH_GRAD(custom_divide, DivideTensorForward, DivideBackward);
UNARY_OP_WITH_GRAD(custom_scalar_divide, DivideScalarForward, DivideBackward);
UNARY_OP_WITH_GRAD(custom_left_scalar_divide, DivideScalarLeftForward, DivideLeftBackward);

// Logical and bitwise operators (bool or integer tensors).
std::vector<paddle::Tensor> AndForward(const paddle::Tensor& x, const paddle::Tensor& y) {
  return {x & y};
}
std::vector<paddle::Tensor> OrForward(const paddle::Tensor& x, const paddle::Tensor& y) {
  return {x | y};
}
std::vector<paddle::Tensor> XorForward(const paddle::Tensor& x, const paddle::Tensor& y) {
  return {x ^ y};
}
std::vector<paddle::Tensor> NotForward(const paddle::Tensor& x) { return {~x}; }
BINARY_OP(custom_logical_and, AndForward);
BINARY_OP(custom_logical_or, OrForward);
BINARY_OP(custom_logical_xor, XorForward);
PD_BUILD_OP(custom_logical_not).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(NotForward));

// Comparisons give bool tensors.
std::vector<paddle::Tensor> LessThanForward(const paddle::Tensor& x, const paddle::Tensor& y) {
  return {x < y};
}
std::vector<paddle::Tensor> LessEqualForward(const paddle::Tensor& x, const paddle::Tensor& y) {
  return {x <= y};
}
std::vector<paddle::Tensor> EqualForward(const paddle::Tensor& x, const paddle::Tensor& y) {
  return {x == y};
}
std::vector<paddle::Tensor> NotEqualForward(const paddle::Tensor& x, const paddle::Tensor& y) {
  return {x != y};
}
std::vector<paddle::Tensor> GreaterThanForward(const paddle::Tensor& x, const paddle::Tensor& y) {
  return {x > y};
}
std::vector<paddle::Tensor> GreaterEqualForward(const paddle::Tensor& x, const paddle::Tensor& y) {
  return {x >= y};
}
BINARY_OP(custom_less_than, LessThanForward);
BINARY_OP(custom_less_equal, LessEqualForward);
BINARY_OP(custom_equal, EqualForward);
BINARY_OP(custom_not_equal, NotEqualForward);
BINARY_OP(custom_greater_than, GreaterThanForward);
BINARY_OP(custom_greater_equal, GreaterEqualForward);

// Tensor methods and paddle:: functions: out = |x|^2 + exp(x), summed over
// axis 0, computed in float64 and cast back; the grad op spells the derivative
// (2x + exp(x)) with the functional forms.
std::vector<paddle::Tensor> MethodsForward(const paddle::Tensor& x) {
  PD_CHECK(x.is_dense_tensor() && x.place().GetType() == phi::AllocationType::CPU,
           "x must be a dense CPU tensor");
  paddle::Tensor wide = x.cast(paddle::DataType::FLOAT64);
  paddle::Tensor y = wide.abs().pow(2) + wide.exp();
  return {y.sum({0}).cast(x.dtype())};
}
std::vector<paddle::Tensor> MethodsBackward(const paddle::Tensor& x,
                                            const paddle::Tensor& grad_out) {
  paddle::Tensor grad = paddle::multiply(paddle::scale(x, 2.0), paddle::ones_like(x));
  grad = paddle::add(grad, paddle::experimental::exp(x));
  return {paddle::multiply(grad, paddle::experimental::expand(grad_out, x.shape()))};
}
PD_BUILD_OP(custom_methods).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(MethodsForward));
PD_BUILD_GRAD_OP(custom_methods)
    .Inputs({"X", paddle::Grad("Out")})
    .Outputs({paddle::Grad("X")})
    .SetKernelFn(PD_KERNEL(MethodsBackward));
