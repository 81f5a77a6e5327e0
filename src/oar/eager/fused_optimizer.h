// Tensor-level entry to the fused optimizer updates (Note [Fused optimizer
// updates]): what oar.optimizer calls through the bindings, usable from C++.
#pragma once

#include <vector>

#include "oar/core/tensor.h"
#include "oar/kernels/optim/fused_update.h"

namespace oar::optim {

struct ParamOptions {
  double lr_factor = 1.0;  // ParamAttr(learning_rate=...)
  double l2 = 0.0, l1 = 0.0, decoupled = 0.0;
};

// Updates every parameter that has a gradient, in place, in one fused pass.
// states[i] holds StateCount(rule) tensors of params[i]'s shape and dtype;
// steps is an int64 tensor of params.size() counters, incremented for each
// parameter updated (the t of the bias corrections). options: one per
// parameter, or empty for defaults. Returns the number of parameters updated.
int64_t Step(Rule rule, const Hyper& hyper, double lr, const std::vector<Tensor>& params,
             const std::vector<std::vector<Tensor>>& states, const Tensor& steps,
             const std::vector<ParamOptions>& options);

// sqrt(sum of squares) over the gradients of params (those that have one).
double GradGlobalNorm(const std::vector<Tensor>& params);
// grad *= factor for every parameter that has a gradient; true when a scaled
// gradient has an inf or NaN (one pass: GradScaler's unscale_ and its check).
bool ScaleGrads(const std::vector<Tensor>& params, double factor);

}  // namespace oar::optim
