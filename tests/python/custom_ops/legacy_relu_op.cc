// A ReLU in the style of Paddle 2.1's custom-op tutorial: deferred allocation
// (paddle::Tensor(place) + reshape + mutable_data<T>(place)), x.size(), infer
// functions taking their arguments by value.
#include <vector>

#include "paddle/extension.h"

template <typename data_t>
void relu_forward_kernel(const data_t* x, data_t* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::max(x[i], static_cast<data_t>(0.));
}

std::vector<paddle::Tensor> ReluCPUForward(const paddle::Tensor& x) {
  auto out = paddle::Tensor(paddle::PlaceType::kCPU);
  out.reshape(x.shape());
  PD_DISPATCH_FLOATING_TYPES(x.type(), "relu_cpu_forward", ([&] {
                               relu_forward_kernel<data_t>(
                                   x.data<data_t>(), out.mutable_data<data_t>(x.place()), x.size());
                             }));
  return {out};
}

std::vector<std::vector<int64_t>> ReluInferShape(std::vector<int64_t> x_shape) { return {x_shape}; }

std::vector<paddle::DataType> ReluInferDtype(paddle::DataType x_dtype) { return {x_dtype}; }

PD_BUILD_OP(legacy_relu)
    .Inputs({"X"})
    .Outputs({"Out"})
    .SetKernelFn(PD_KERNEL(ReluCPUForward))
    .SetInferShapeFn(PD_INFER_SHAPE(ReluInferShape))
    .SetInferDtypeFn(PD_INFER_DTYPE(ReluInferDtype));
