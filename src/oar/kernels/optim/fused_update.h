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
// equal PyTorch's for SGD, Momentum, Adam, AdamW and Adagrad; docs/training.md
// lists where Adamax, RMSProp and Lamb place epsilon). Parameters of one step may
// mix float32 and float64; each slot's state has its parameter's dtype.
enum class Rule { kSGD, kMomentum, kAdam, kAdamW, kAdamax, kAdagrad, kRMSProp, kLamb };

// Parses "sgd", "momentum", "adam", "adamw", "adamax", "adagrad", "rmsprop",
// "lamb"; throws InvalidArgument naming the rule otherwise.
Rule ParseRule(std::string_view name);
// How many state tensors (of the parameter's shape) a rule keeps per parameter.
int StateCount(Rule rule, bool amsgrad, bool centered);

struct Hyper {
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  double momentum = 0.9;  // Momentum, RMSProp
  double rho = 0.95;      // RMSProp
  bool nesterov = false;  // Momentum
  bool amsgrad = false;   // Adam, AdamW
  bool centered = false;  // RMSProp
};

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
