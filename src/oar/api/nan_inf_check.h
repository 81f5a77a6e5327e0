// FLAGS_check_nan_inf: scan an op's output and name the op when it holds NaN or Inf.
#pragma once

#include <string>
#include <vector>

#include "oar/core/tensor.h"

namespace oar {

void CheckTensorHasNanOrInf(const std::string& op, const Tensor& t);
void CheckTensorHasNanOrInf(const std::string& op, const std::vector<Tensor>& ts);

}  // namespace oar
