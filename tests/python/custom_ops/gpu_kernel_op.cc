// A kernel that hands GPU tensors to a CUDA function defined in a .cu file, as
// Paddle's examples do; built from this source alone, the function is missing
// and load() says why.
#include <vector>

#include "paddle/extension.h"

std::vector<paddle::Tensor> relu_cuda_forward(const paddle::Tensor& x);

std::vector<paddle::Tensor> ReluForward(const paddle::Tensor& x) {
  if (x.is_gpu()) return relu_cuda_forward(x);
  PD_THROW("only the GPU kernel is written");
}

PD_BUILD_OP(gpu_only_relu).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(ReluForward));
