// Several outputs of different dtypes made as Paddle 2.1's examples make them
// (paddle::Tensor(paddle::PlaceType::kCPU, shape) then mutable_data<T>(place)),
// infer functions taking shapes by value and dtypes by const reference, and a
// grad op that gives gradients to only some of the inputs (w and y, not x, z).
#include <iostream>
#include <vector>

#include "paddle/extension.h"

template <typename data_t>
void copy_cpu_kernel(const data_t* src, data_t* dst, int64_t numel) {
  for (int64_t i = 0; i < numel; ++i) dst[i] = src[i];
}

template <typename data_t>
void constant_cpu_kernel(data_t* dst, int64_t numel, data_t value) {
  for (int64_t i = 0; i < numel; ++i) dst[i] = value;
}

// Out = X, Fake_float64 = 0 (float64), ZFake_int32 = 1 (int32).
std::vector<paddle::Tensor> MultiOutCPU(const paddle::Tensor& x) {
  auto out = paddle::Tensor(paddle::PlaceType::kCPU, x.shape());
  PD_DISPATCH_FLOATING_TYPES(x.type(), "copy_cpu_kernel", ([&] {
                               copy_cpu_kernel<data_t>(
                                   x.data<data_t>(), out.mutable_data<data_t>(x.place()), x.size());
                             }));

  auto zeros_f64 = paddle::Tensor(paddle::PlaceType::kCPU, x.shape());
  constant_cpu_kernel<double>(zeros_f64.mutable_data<double>(x.place()), x.size(), 0.);

  auto ones_i32 = paddle::Tensor(paddle::PlaceType::kCPU, x.shape());
  constant_cpu_kernel<int32_t>(ones_i32.mutable_data<int32_t>(x.place()), x.size(), 1);

  return {out, zeros_f64, ones_i32};
}

std::vector<std::vector<int64_t>> MultiOutInferShape(std::vector<int64_t> x_shape) {
  return {x_shape, x_shape, x_shape};
}

std::vector<paddle::DataType> MultiOutInferDtype(paddle::DataType x_dtype) {
  return {x_dtype, paddle::DataType::FLOAT64, paddle::DataType::INT32};
}

PD_BUILD_OP(multi_out)
    .Inputs({"X"})
    .Outputs({"Out", "Fake_float64", "ZFake_int32"})
    .SetKernelFn(PD_KERNEL(MultiOutCPU))
    .SetInferShapeFn(PD_INFER_SHAPE(MultiOutInferShape))
    .SetInferDtypeFn(PD_INFER_DTYPE(MultiOutInferDtype));

// output = w + 2 x + 3 y + 4 z; the grad op declares gradients for w and y only.
std::vector<paddle::Tensor> DiscreteOutForward(const paddle::Tensor& w, const paddle::Tensor& x,
                                               const paddle::Tensor& y, const paddle::Tensor& z) {
  return {w * 1 + x * 2 + y * 3 + z * 4};
}

std::vector<std::vector<int64_t>> DiscreteOutInferShape(const std::vector<int64_t>& w_shape,
                                                        const std::vector<int64_t>& x_shape,
                                                        const std::vector<int64_t>& y_shape,
                                                        const std::vector<int64_t>& z_shape) {
  return {w_shape};
}

std::vector<paddle::DataType> DiscreteOutInferDtype(const paddle::DataType& w_dtype,
                                                    const paddle::DataType& x_dtype,
                                                    const paddle::DataType& y_dtype,
                                                    const paddle::DataType& z_dtype) {
  return {w_dtype};
}

std::vector<paddle::Tensor> DiscreteOutBackward(const paddle::Tensor& w, const paddle::Tensor& x,
                                                const paddle::Tensor& y, const paddle::Tensor& z,
                                                const paddle::Tensor& out_grad) {
  return {out_grad, out_grad * 3};
}

PD_BUILD_OP(discrete_out)
    .Inputs({"w", "x", "y", "z"})
    .Outputs({"output"})
    .SetKernelFn(PD_KERNEL(DiscreteOutForward))
    .SetInferShapeFn(PD_INFER_SHAPE(DiscreteOutInferShape))
    .SetInferDtypeFn(PD_INFER_DTYPE(DiscreteOutInferDtype));

PD_BUILD_GRAD_OP(discrete_out)
    .Inputs({"w", "x", "y", "z", paddle::Grad("output")})
    .Outputs({paddle::Grad("w"), paddle::Grad("y")})
    .SetKernelFn(PD_KERNEL(DiscreteOutBackward));
