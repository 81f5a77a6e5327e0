#include "oar/train/optimizer.h"

#include <cmath>

#include "oar/core/errors.h"
#include "oar/eager/creation.h"
#include "oar/eager/dygraph_functions.h"

namespace oar::optim {

Optimizer::Optimizer(std::vector<Tensor> params, double lr, Rule rule, Hyper hyper,
                     ParamOptions options)
    : params_(std::move(params)), lr_(lr), rule_(rule), hyper_(hyper) {
  if (params_.empty()) throw errors::InvalidArgument("optimizer: no parameters");
  set_lr(lr);
  const int n = StateCount(rule_, hyper_.amsgrad, hyper_.centered);
  for (const Tensor& p : params_) {
    std::vector<Tensor> s;
    for (int k = 0; k < n; ++k) {
      s.push_back(full(Vectorize(StateShape(rule_, hyper_, k, p.impl()->dims())),
                       StateInitialValue(rule_, k, lr), p.dtype()));
    }
    states_.push_back(std::move(s));
  }
  steps_ = zeros({static_cast<int64_t>(params_.size())}, DType::kInt64);
  options_.assign(params_.size(), options);
}

void Optimizer::set_lr(double lr) {
  if (!(lr >= 0) || !std::isfinite(lr)) {
    throw errors::InvalidArgument("optimizer: the learning rate must be finite and >= 0, got ", lr);
  }
  lr_ = lr;
}

int64_t Optimizer::StepAll() {
  return Step(rule_, hyper_, lr_, params_, states_, steps_, options_);
}

void Optimizer::ClearGrad(bool set_to_zero) {
  for (const Tensor& p : params_) p.clear_grad(set_to_zero);
}

SGD::SGD(std::vector<Tensor> params, double lr, double weight_decay)
    : Optimizer(std::move(params), lr, Rule::kSGD, Hyper{}, ParamOptions{1.0, weight_decay}) {}

Momentum::Momentum(std::vector<Tensor> params, double lr, double momentum, bool nesterov,
                   double weight_decay)
    : Optimizer(
          std::move(params), lr, Rule::kMomentum,
          [&] {
            Hyper h;
            h.momentum = momentum;
            h.nesterov = nesterov;
            return h;
          }(),
          ParamOptions{1.0, weight_decay}) {}

Adam::Adam(std::vector<Tensor> params, double lr, double beta1, double beta2, double epsilon,
           double weight_decay)
    : Optimizer(
          std::move(params), lr, Rule::kAdam,
          [&] {
            Hyper h;
            h.beta1 = beta1;
            h.beta2 = beta2;
            h.epsilon = epsilon;
            return h;
          }(),
          ParamOptions{1.0, weight_decay}) {}

AdamW::AdamW(std::vector<Tensor> params, double lr, double weight_decay, double beta1, double beta2,
             double epsilon)
    : Optimizer(
          std::move(params), lr, Rule::kAdamW,
          [&] {
            Hyper h;
            h.beta1 = beta1;
            h.beta2 = beta2;
            h.epsilon = epsilon;
            return h;
          }(),
          ParamOptions{1.0, 0.0, 0.0, weight_decay}) {}

}  // namespace oar::optim
