// A library whose grad op reads a name the op does not have: loading it fails and
// registers none of its ops.
#include <vector>

#include "paddle/extension.h"

std::vector<paddle::Tensor> Identity(const paddle::Tensor& x) {
  return {x.copy_to(paddle::CPUPlace(), true)};
}

PD_BUILD_OP(fine_op).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(Identity));

PD_BUILD_OP(bad_grad_op).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(Identity));

PD_BUILD_GRAD_OP(bad_grad_op)
    .Inputs({"Z"})
    .Outputs({paddle::Grad("X")})
    .SetKernelFn(PD_KERNEL(Identity));
