// Operators built from Paddle's functional API inside a kernel
// (paddle::matmul with transposes, paddle::add, paddle::experimental::sum), an
// infer-shape function that validates with PADDLE_ENFORCE_GT and
// phi::errors, a relu whose kernels check their pointers with
// PADDLE_ENFORCE_EQ / _NE as Paddle's relu example does, and the CPU context
// from paddle::experimental::DeviceContextPool.
#include <iostream>
#include <vector>

#include "paddle/extension.h"
#include "paddle/phi/backends/context_pool.h"

// Out = X W + B; B is required.
std::vector<paddle::Tensor> CustomLinearForward(const paddle::Tensor& x,
                                                const paddle::Tensor& weight,
                                                const paddle::Tensor& bias) {
  return {paddle::add(paddle::matmul(x, weight), bias)};
}

std::vector<paddle::Tensor> CustomLinearBackward(const paddle::Tensor& x,
                                                 const paddle::Tensor& weight,
                                                 const paddle::Tensor& bias,
                                                 const paddle::Tensor& out_grad) {
  auto x_grad = paddle::matmul(out_grad, weight, false, true);
  auto weight_grad = paddle::matmul(x, out_grad, true, false);
  auto bias_grad = paddle::experimental::sum(out_grad, {0});
  return {x_grad, weight_grad, bias_grad};
}

// Matmul's output shape for operands of rank 2 and up (batch axes broadcast).
std::vector<std::vector<int64_t>> LinearInferShape(const std::vector<int64_t>& x_shape,
                                                   const std::vector<int64_t>& weight_shape,
                                                   const std::vector<int64_t>& bias_shape) {
  PADDLE_ENFORCE_GT(
      x_shape.size(), 1,
      phi::errors::InvalidArgument("custom_linear: X must have rank 2 or more, but its rank is %d.",
                                   x_shape.size()));
  PADDLE_ENFORCE_GT(weight_shape.size(), 1,
                    phi::errors::InvalidArgument(
                        "custom_linear: Weight must have rank 2 or more, but its rank is %d.",
                        weight_shape.size()));
  PADDLE_ENFORCE_EQ(
      x_shape.back(), weight_shape[weight_shape.size() - 2],
      phi::errors::InvalidArgument("custom_linear: X has %d columns but Weight has %d rows.",
                                   x_shape.back(), weight_shape[weight_shape.size() - 2]));
  const auto& longer = x_shape.size() >= weight_shape.size() ? x_shape : weight_shape;
  std::vector<int64_t> out(longer.begin(), longer.end() - 2);
  out.push_back(x_shape[x_shape.size() - 2]);
  out.push_back(weight_shape.back());
  return {out};
}

std::vector<paddle::DataType> LinearInferDtype(const paddle::DataType& x_dtype,
                                               const paddle::DataType& weight_dtype,
                                               const paddle::DataType& bias_dtype) {
  return {x_dtype};
}

PD_BUILD_OP(custom_linear)
    .Inputs({"X", "Weight", "Bias"})
    .Outputs({"Out"})
    .SetKernelFn(PD_KERNEL(CustomLinearForward))
    .SetInferShapeFn(PD_INFER_SHAPE(LinearInferShape))
    .SetInferDtypeFn(PD_INFER_DTYPE(LinearInferDtype));

PD_BUILD_GRAD_OP(custom_linear)
    .Inputs({"X", "Weight", "Bias", paddle::Grad("Out")})
    .Outputs({paddle::Grad("X"), paddle::Grad("Weight"), paddle::Grad("Bias")})
    .SetKernelFn(PD_KERNEL(CustomLinearBackward));

#define CHECK_CPU_INPUT(x) \
  PADDLE_ENFORCE_EQ(x.is_cpu(), true, phi::errors::Fatal(#x " must be a CPU Tensor."))

template <typename data_t>
void relu_cpu_forward_kernel(const data_t* x_data, data_t* out_data, int64_t x_numel) {
  PADDLE_ENFORCE_NE(x_data, nullptr, phi::errors::InvalidArgument("x_data is nullptr."));
  PADDLE_ENFORCE_NE(out_data, nullptr, phi::errors::InvalidArgument("out_data is nullptr."));
  for (int64_t i = 0; i < x_numel; ++i) {
    out_data[i] = std::max(static_cast<data_t>(0.), x_data[i]);
  }
}

template <typename data_t>
void relu_cpu_backward_kernel(const data_t* grad_out_data, const data_t* out_data,
                              data_t* grad_x_data, int64_t out_numel) {
  for (int64_t i = 0; i < out_numel; ++i) {
    grad_x_data[i] = grad_out_data[i] * (out_data[i] > static_cast<data_t>(0) ? 1. : 0.);
  }
}

std::vector<paddle::Tensor> ReluCPUForward(const paddle::Tensor& x) {
  CHECK_CPU_INPUT(x);
  auto out = paddle::empty_like(x);
  PD_DISPATCH_FLOATING_TYPES(x.type(), "relu_cpu_forward", ([&] {
                               relu_cpu_forward_kernel<data_t>(x.data<data_t>(),
                                                               out.mutable_data<data_t>(x.place()),
                                                               x.numel());
                             }));
  return {out};
}

std::vector<paddle::Tensor> ReluCPUBackward(const paddle::Tensor& x, const paddle::Tensor& out,
                                            const paddle::Tensor& grad_out) {
  CHECK_CPU_INPUT(out);
  auto grad_x = paddle::empty(x.shape(), x.dtype(), x.place());
  PD_DISPATCH_FLOATING_TYPES(out.type(), "relu_cpu_backward", ([&] {
                               relu_cpu_backward_kernel<data_t>(
                                   grad_out.data<data_t>(), out.data<data_t>(),
                                   grad_x.mutable_data<data_t>(x.place()), out.size());
                             }));
  return {grad_x};
}

PD_BUILD_OP(custom_relu).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(ReluCPUForward));
PD_BUILD_GRAD_OP(custom_relu)
    .Inputs({"X", "Out", paddle::Grad("Out")})
    .Outputs({paddle::Grad("X")})
    .SetKernelFn(PD_KERNEL(ReluCPUBackward));

// The CPU context of the pool is the CPU's; ask_eigen != 0 also asks for its
// Eigen device, which oar does not have.
std::vector<paddle::Tensor> ContextPoolTest(const paddle::Tensor& x, int ask_eigen) {
  paddle::Place cpu_place(phi::AllocationType::CPU);
  auto* cpu_ctx =
      paddle::experimental::DeviceContextPool::Instance().Get<phi::AllocationType::CPU>(cpu_place);
  PD_CHECK(cpu_ctx->GetPlace() == cpu_place);
  PD_CHECK(paddle::experimental::DeviceContextPool::Instance().Get(x.place()) == cpu_ctx);
  if (ask_eigen) {
    auto* cpu_eigen_device = cpu_ctx->eigen_device();
    PD_CHECK(cpu_eigen_device != nullptr);
  }
  return {x};
}

// Asking the pool for the GPU's context.
std::vector<paddle::Tensor> GpuContextTest(const paddle::Tensor& x) {
  paddle::GPUPlace gpu_place(0);
  auto* gpu_ctx =
      paddle::experimental::DeviceContextPool::Instance().Get<phi::AllocationType::GPU>(gpu_place);
  PD_CHECK(gpu_ctx != nullptr);
  return {x};
}

PD_BUILD_OP(context_pool_test)
    .Inputs({"X"})
    .Outputs({"Out"})
    .Attrs({"ask_eigen: int"})
    .SetKernelFn(PD_KERNEL(ContextPoolTest));
PD_BUILD_OP(gpu_context_test).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(GpuContextTest));
