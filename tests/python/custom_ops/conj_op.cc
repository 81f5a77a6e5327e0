// paddle::complex64 / complex128 with Paddle's public members `real` and
// `imag` (a functor specialised for complex and real element types, as
// Paddle's conjugate example writes it), and casts through
// paddle::experimental::cast with the target dtype named by a string
// attribute, checked by an infer-dtype function.
#include <iostream>
#include <type_traits>
#include <vector>

#include "paddle/extension.h"

#define CHECK_INPUT(x) \
  PADDLE_ENFORCE_EQ(x.is_cpu(), true, common::errors::Fatal(#x " must be a CPU Tensor."))

template <typename data_t>
using IfComplex = typename std::enable_if<std::is_same<data_t, paddle::complex64>::value ||
                                          std::is_same<data_t, paddle::complex128>::value>::type;

template <typename data_t>
using IfReal = typename std::enable_if<!std::is_same<data_t, paddle::complex64>::value &&
                                       !std::is_same<data_t, paddle::complex128>::value>::type;

template <typename data_t, typename Enable = void>
struct Conjugate;

template <typename data_t>
struct Conjugate<data_t, IfComplex<data_t>> {
  void operator()(const data_t* in, data_t* out, int64_t i) const {
    out[i] = data_t(in[i].real, -in[i].imag);
  }
};

template <typename data_t>
struct Conjugate<data_t, IfReal<data_t>> {
  void operator()(const data_t* in, data_t* out, int64_t i) const { out[i] = in[i]; }
};

template <typename data_t>
void ConjCPUKernel(const data_t* x_data, int64_t numel, data_t* out_data) {
  Conjugate<data_t> conj;
  for (int64_t i = 0; i < numel; ++i) conj(x_data, out_data, i);
}

std::vector<paddle::Tensor> ConjFunction(const paddle::Tensor& x) {
  CHECK_INPUT(x);
  paddle::Tensor out = paddle::empty(x.shape(), x.dtype(), x.place());
  PD_DISPATCH_FLOATING_AND_COMPLEX_TYPES(
      x.type(), "ConjCPUKernel",
      ([&] { ConjCPUKernel<data_t>(x.data<data_t>(), x.size(), out.mutable_data<data_t>()); }));
  return {out};
}

// The gradient of conj is conj of the gradient (Paddle's convention).
PD_BUILD_OP(custom_conj).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(ConjFunction));
PD_BUILD_GRAD_OP(custom_conj)
    .Inputs({paddle::Grad("Out")})
    .Outputs({paddle::Grad("X")})
    .SetKernelFn(PD_KERNEL(ConjFunction));

// |z|^2 through the complex type's operators and functions: z * conj(z) and
// abs(z) * abs(z) must agree.
std::vector<paddle::Tensor> AbsSquareFunction(const paddle::Tensor& x) {
  paddle::Tensor out = paddle::empty(x.shape(), paddle::DataType::FLOAT64, x.place());
  double* po = out.data<double>();
  PD_DISPATCH_COMPLEX_TYPES(x.type(), "AbsSquare", ([&] {
                              const data_t* px = x.data<data_t>();
                              for (int64_t i = 0; i < x.numel(); ++i) {
                                data_t p = px[i] * conj(px[i]);
                                PD_CHECK(std::abs(p.imag) < 1e-6, "z * conj(z) is not real");
                                PD_CHECK(std::abs(p.real - abs(px[i]) * abs(px[i])) < 1e-4,
                                         "|z|^2 disagrees with z * conj(z)");
                                po[i] = p.real;
                              }
                            }));
  return {out};
}
PD_BUILD_OP(custom_abs_square)
    .Inputs({"X"})
    .Outputs({"Out"})
    .SetKernelFn(PD_KERNEL(AbsSquareFunction));

paddle::DataType ConvertDtype(const std::string& data_type) {
  if (data_type == "float16") {
    return paddle::DataType::FLOAT16;
  } else if (data_type == "float32") {
    return paddle::DataType::FLOAT32;
  } else if (data_type == "float64") {
    return paddle::DataType::FLOAT64;
  } else {
    PD_THROW("custom_cast: data_type must be float16, float32 or float64, got ", data_type);
  }
}

std::vector<paddle::Tensor> CastForward(const paddle::Tensor& x, const std::string& data_type) {
  return {paddle::experimental::cast(x, ConvertDtype(data_type))};
}

std::vector<paddle::DataType> CastForwardInferDtype(const paddle::DataType& input_dtype,
                                                    const std::string& data_type) {
  return {ConvertDtype(data_type)};
}

// The gradient goes back to the input's dtype, which the grad op is told by
// its own attribute.
std::vector<paddle::Tensor> CastBackward(const paddle::Tensor& grad_out,
                                         const std::string& data_type) {
  return {paddle::experimental::cast(grad_out, ConvertDtype(data_type))};
}

PD_BUILD_OP(custom_cast)
    .Inputs({"X"})
    .Attrs({"data_type: std::string"})
    .Outputs({"Out"})
    .SetKernelFn(PD_KERNEL(CastForward))
    .SetInferDtypeFn(PD_INFER_DTYPE(CastForwardInferDtype));

PD_BUILD_GRAD_OP(custom_cast)
    .Inputs({paddle::Grad("Out")})
    .Attrs({"data_type: std::string"})
    .Outputs({paddle::Grad("X")})
    .SetKernelFn(PD_KERNEL(CastBackward));
