// Integer, complex and 16-bit float dispatch, an op without a grad op, a failing
// PD_CHECK, a kernel asking for GPU memory, kernels that disagree with their
// declarations.
#include <algorithm>
#include <vector>

#include "paddle/extension.h"

std::vector<paddle::Tensor> IntSquare(const paddle::Tensor& x) {
  auto out = paddle::empty_like(x);
  PD_DISPATCH_INTEGRAL_TYPES(x.dtype(), "int_square", ([&] {
                               for (int64_t i = 0; i < x.numel(); ++i) {
                                 out.data<data_t>()[i] = x.data<data_t>()[i] * x.data<data_t>()[i];
                               }
                             }));
  return {out};
}

template <typename T>
T AbsSq(T v) {
  return v * v;
}
template <typename T>
paddle::complex<T> AbsSq(paddle::complex<T> v) {
  return v * conj(v);
}

// x * conj(x): |x|^2 for complex inputs, x^2 for real ones.
std::vector<paddle::Tensor> AbsSquare(const paddle::Tensor& x) {
  auto out = paddle::empty(x.shape(), x.dtype());
  PD_DISPATCH_FLOATING_AND_COMPLEX_TYPES(x.dtype(), "abs_square", ([&] {
                                           const data_t* px = x.data<data_t>();
                                           data_t* po = out.data<data_t>();
                                           for (int64_t i = 0; i < x.numel(); ++i) {
                                             po[i] = AbsSq(px[i]);
                                           }
                                         }));
  return {out};
}

std::vector<paddle::Tensor> CheckPositive(const paddle::Tensor& x) {
  PD_CHECK(x.data<float>()[0] > 0, "the first element must be positive, got ", x.data<float>()[0]);
  return {x.copy_to(paddle::CPUPlace(), true)};
}

std::vector<paddle::Tensor> OnGpu(const paddle::Tensor& x) {
  return {paddle::empty(x.shape(), x.dtype(), paddle::GPUPlace())};
}

PD_BUILD_OP(int_square).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(IntSquare));
PD_BUILD_OP(abs_square).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(AbsSquare));
PD_BUILD_OP(check_positive).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(CheckPositive));
PD_BUILD_OP(on_gpu).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(OnGpu));

// Declaration and kernel disagree: two tensors for one output, an int attribute
// taken as int64_t.
std::vector<paddle::Tensor> TwoOutputs(const paddle::Tensor& x) { return {x, x}; }
std::vector<paddle::Tensor> TakesInt64(const paddle::Tensor& x, int64_t) { return {x}; }

PD_BUILD_OP(two_outputs).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(TwoOutputs));
PD_BUILD_OP(attr_mismatch)
    .Inputs({"X"})
    .Outputs({"Out"})
    .Attrs({"n: int"})
    .SetKernelFn(PD_KERNEL(TakesInt64));

// ReLU over the floating types and the 16-bit ones.
std::vector<paddle::Tensor> HalfRelu(const paddle::Tensor& x) {
  auto out = paddle::empty_like(x);
  PD_DISPATCH_FLOATING_AND_HALF_TYPES(x.dtype(), "half_relu", ([&] {
                                        const data_t* px = x.data<data_t>();
                                        data_t* po = out.data<data_t>();
                                        for (int64_t i = 0; i < x.numel(); ++i) {
                                          po[i] = std::max(static_cast<data_t>(0.), px[i]);
                                        }
                                      }));
  return {out};
}

PD_BUILD_OP(half_relu).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(HalfRelu));
