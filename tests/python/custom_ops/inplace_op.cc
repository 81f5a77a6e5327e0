// X += Y in place (SetInplaceMap), the kernel returning nothing.
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
