// The optimizers' update rules as one fused pass over every parameter of a step
// (Note [Fused optimizer updates]).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "oar/core/dense_tensor.h"

namespace oar::optim {

// Note [Fused optimizer updates]
// An optimizer step updates every parameter with the same rule. Doing it from
// Python costs several op calls, temporaries and a grad-node check per
// parameter; here one call walks all (parameter, chunk) pairs in one OpenMP
// loop, reading the gradient and the state once and writing the parameter and
// the state in place, with no temporary tensor. The formulas are Paddle's (which
// equal PyTorch's for SGD, Momentum, Adam, AdamW, Adagrad, Adadelta, NAdam, RAdam
// and Rprop; docs/training.md lists where Adamax, RMSProp and Lamb place epsilon,
// and ASGD is Paddle's stochastic average gradient, not PyTorch's averaged SGD).
// Parameters of one step may mix float32 and float64; each slot's state has its
// parameter's dtype. Most states have the parameter's shape; NAdam's running
// product of momentum factors is one element, and ASGD keeps the last batch_num
// gradients as one [batch_num, *shape] tensor (StateShape). Per-parameter scalars
// (NAdam's product) are updated once per slot before the element loop.
enum class Rule {
  kSGD,
  kMomentum,
  kAdam,
  kAdamW,
  kAdamax,
  kAdagrad,
  kRMSProp,
  kLamb,
  kAdadelta,
  kNAdam,
  kRAdam,
  kRprop,
  kASGD
};

// Parses "sgd", "momentum", "adam", "adamw", "adamax", "adagrad", "rmsprop",
// "lamb", "adadelta", "nadam", "radam", "rprop", "asgd"; throws InvalidArgument
// naming the rule otherwise.
Rule ParseRule(std::string_view name);
// How many state tensors a rule keeps per parameter.
int StateCount(Rule rule, bool amsgrad, bool centered);

struct Hyper {
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  double momentum = 0.9;          // Momentum, RMSProp
  double rho = 0.95;              // RMSProp
  bool nesterov = false;          // Momentum
  bool amsgrad = false;           // Adam, AdamW
  bool centered = false;          // RMSProp
  double momentum_decay = 0.004;  // NAdam's psi
  double eta_minus = 0.5;         // Rprop: step size factor after a sign change
  double eta_plus = 1.2;          // Rprop: step size factor while the sign holds
  double step_min = 1e-5;         // Rprop: step size range
  double step_max = 50;           //
  int64_t batch_num = 1;          // ASGD: gradients averaged over
};

// The shape of state k of a parameter of shape `param` (see the Note).
DDim StateShape(Rule rule, const Hyper& hyper, int k, const DDim& param);
// The value state k starts from: 0, except Rprop's step sizes (the learning
// rate `lr`) and NAdam's product of momentum factors (1).
double StateInitialValue(Rule rule, int k, double lr);

struct Slot {
  DenseTensor* param = nullptr;
  const DenseTensor* grad = nullptr;
  DenseTensor* state[3] = {nullptr, nullptr, nullptr};
  double lr = 0;         // the learning rate of this parameter (group lr x its factor)
  double l2 = 0;         // L2 decay: grad += l2 * param (Paddle's L2Decay)
  double l1 = 0;         // L1 decay: grad += l1 * sign(param) (Paddle's L1Decay)
  double decoupled = 0;  // AdamW/Lamb weight decay coefficient
  int64_t step = 1;      // the step number of this parameter (bias corrections)
};

// Checks every slot (defined, contiguous, same shape and dtype for param, grad
// and states, a floating dtype) and then applies `rule` to all slots.
void FusedUpdate(Rule rule, const Hyper& hyper, std::span<Slot> slots);

// sum over tensors of sum(t*t), in float64, deterministic (fixed chunking).
double SquaredNorm(std::span<const DenseTensor* const> tensors);
// t *= factor for every tensor, in place; true when a result is inf or NaN
// (GradScaler's unscale and its check in one pass).
bool ScaleInPlace(std::span<DenseTensor* const> tensors, double factor);

}  // namespace oar::optim
