#include "oar/eager/fused_optimizer.h"

#include <cmath>
#include <limits>

#include "oar/autograd/eager_utils.h"
#include "oar/core/errors.h"
#include "oar/core/grad_mode.h"
#include "oar/eager/dygraph_functions.h"

namespace oar::optim {
namespace {

// The parameter's stored gradient, or nullptr (no backward reached it yet). A
// gradient stored as a strided view is replaced by a contiguous copy first: the
// fused loops index the raw buffer.
DenseTensor* GradOf(const Tensor& p) {
  AutogradMeta* meta = EagerUtils::nullable_autograd_meta(p);
  if (!meta) return nullptr;
  Tensor* g = meta->MutableGrad();
  if (!g || !g->defined() || !g->impl()) return nullptr;
  if (g->is_sparse()) {  // the fused loops read every element
    NoGradGuard no_grad;
    *g = sparse_to_dense(*g);
  }
  if (!g->is_contiguous()) {
    NoGradGuard no_grad;
    *g = assign(*g);
  }
  return &g->dense();
}

}  // namespace

int64_t Step(Rule rule, const Hyper& hyper, double lr, const std::vector<Tensor>& params,
             const std::vector<std::vector<Tensor>>& states, const Tensor& steps,
             const std::vector<ParamOptions>& options) {
  const size_t n = params.size();
  const int nstate = StateCount(rule, hyper.amsgrad, hyper.centered);
  if (states.size() != n) {
    throw errors::InvalidArgument("optimizer step: ", n, " parameters but ", states.size(),
                                  " state lists");
  }
  if (!options.empty() && options.size() != n) {
    throw errors::InvalidArgument("optimizer step: ", n, " parameters but ", options.size(),
                                  " option entries");
  }
  if (!steps.defined() || !steps.is_dense() || steps.dtype() != DType::kInt64 ||
      steps.numel() != static_cast<int64_t>(n) || !steps.is_contiguous()) {
    throw errors::InvalidArgument(
        "optimizer step: argument 'steps' must be a contiguous int64 "
        "tensor of ",
        n, " elements");
  }
  if (!std::isfinite(lr))
    throw errors::InvalidArgument("optimizer step: the learning rate is ", lr);
  int64_t* step = steps.dense().data<int64_t>();
  std::vector<Slot> slots;
  slots.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    DenseTensor* g = GradOf(params[i]);
    if (!g) continue;
    if (static_cast<int>(states[i].size()) != nstate) {
      throw errors::InvalidArgument("optimizer step: parameter ", i, " has ", states[i].size(),
                                    " state tensors, the rule keeps ", nstate);
    }
    Slot s;
    s.param = &params[i].dense();
    s.grad = g;
    for (int k = 0; k < nstate; ++k) s.state[k] = &states[i][k].dense();
    const ParamOptions o = options.empty() ? ParamOptions{} : options[i];
    s.lr = lr * o.lr_factor;
    s.l2 = o.l2;
    s.l1 = o.l1;
    s.decoupled = o.decoupled;
    OAR_ENFORCE(step[i] < std::numeric_limits<int64_t>::max(),
                errors::InvalidArgument("the step count of parameter ", i, " (", step[i],
                                        ") cannot advance past int64"));
    s.step = step[i] + 1;
    slots.push_back(s);
  }
  FusedUpdate(rule, hyper, slots);  // validates everything before writing anything
  for (size_t i = 0; i < n; ++i) {
    if (GradOf(params[i])) ++step[i];
  }
  return static_cast<int64_t>(slots.size());
}

double GradGlobalNorm(const std::vector<Tensor>& params) {
  std::vector<const DenseTensor*> grads;
  for (const Tensor& p : params) {
    if (const DenseTensor* g = GradOf(p)) grads.push_back(g);
  }
  return std::sqrt(SquaredNorm(grads));
}

bool ScaleGrads(const std::vector<Tensor>& params, double factor) {
  std::vector<DenseTensor*> grads;
  for (const Tensor& p : params) {
    if (DenseTensor* g = GradOf(p)) grads.push_back(g);
  }
  return ScaleInPlace(grads, factor);
}

}  // namespace oar::optim
