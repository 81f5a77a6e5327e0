// C++ optimizers over the fused update (Note [Fused optimizer updates]): the same
// rules and results as oar.optimizer in Python.
#pragma once

#include <vector>

#include "oar/core/tensor.h"
#include "oar/eager/fused_optimizer.h"

namespace oar::optim {

class Optimizer {
 public:
  Optimizer(std::vector<Tensor> params, double lr, Rule rule, Hyper hyper,
            ParamOptions options = {});
  virtual ~Optimizer() = default;
  // Updates every parameter that has a gradient; returns how many.
  int64_t StepAll();
  void ClearGrad(bool set_to_zero = true);
  double lr() const { return lr_; }
  void set_lr(double lr);

 private:
  std::vector<Tensor> params_;
  std::vector<std::vector<Tensor>> states_;
  Tensor steps_;
  std::vector<ParamOptions> options_;
  double lr_;
  Rule rule_;
  Hyper hyper_;
};

struct SGD : Optimizer {
  SGD(std::vector<Tensor> params, double lr, double weight_decay = 0.0);
};
struct Momentum : Optimizer {
  Momentum(std::vector<Tensor> params, double lr, double momentum = 0.9, bool nesterov = false,
           double weight_decay = 0.0);
};
struct Adam : Optimizer {
  Adam(std::vector<Tensor> params, double lr = 1e-3, double beta1 = 0.9, double beta2 = 0.999,
       double epsilon = 1e-8, double weight_decay = 0.0);
};
struct AdamW : Optimizer {
  AdamW(std::vector<Tensor> params, double lr = 1e-3, double weight_decay = 0.01,
        double beta1 = 0.9, double beta2 = 0.999, double epsilon = 1e-8);
};

}  // namespace oar::optim
