// Out = 2 X + Y, where Y is an optional input (paddle::Optional): omitted, Out = 2 X.
#include <vector>

#include "paddle/extension.h"

std::vector<paddle::Tensor> AddOptionalForward(const paddle::Tensor& x,
                                               const paddle::optional<paddle::Tensor>& y) {
  paddle::Tensor out = x * 2.0;
  if (y) out = out + *y;
  return {out};
}

std::vector<paddle::Tensor> AddOptionalBackward(const paddle::optional<paddle::Tensor>& y,
                                                const paddle::Tensor& grad_out) {
  paddle::Tensor grad_y;
  if (y.is_initialized()) grad_y = grad_out.copy_to(paddle::CPUPlace(), true);
  return {grad_out * 2.0, grad_y};
}

PD_BUILD_OP(add_optional)
    .Inputs({"X", paddle::Optional("Y")})
    .Outputs({"Out"})
    .SetKernelFn(PD_KERNEL(AddOptionalForward));

PD_BUILD_GRAD_OP(add_optional)
    .Inputs({paddle::Optional("Y"), paddle::Grad("Out")})
    .Outputs({paddle::Grad("X"), paddle::Grad(paddle::Optional("Y"))})
    .SetKernelFn(PD_KERNEL(AddOptionalBackward));
