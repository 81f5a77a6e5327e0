// Out = X * FACTOR; the cache test rewrites FACTOR to see a rebuilt library.
#include <vector>

#include "paddle/extension.h"

#define FACTOR 2.0

std::vector<paddle::Tensor> ScaleForward(const paddle::Tensor& x) { return {x * FACTOR}; }

PD_BUILD_OP(custom_scale).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(ScaleForward));
