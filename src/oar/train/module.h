// C++ layers in the manner of Paddle's nn.Layer (python/oar/nn/layer/layers.py):
// parameters and sub-modules registered under names, dotted state-dict keys
// ("0.weight") equal to the Python layers' so checkpoints move between the two,
// train/eval modes. Weight layouts and default initializers are Paddle's.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "oar/core/tensor.h"
#include "oar/train/checkpoint.h"

namespace oar::nn {

class Module {
 public:
  virtual ~Module() = default;
  virtual Tensor Forward(const Tensor& x) = 0;
  Tensor operator()(const Tensor& x) { return Forward(x); }

  // Every parameter (and, in StateDict, every buffer) under its dotted name.
  NamedTensors NamedParameters() const;
  std::vector<Tensor> Parameters() const;
  NamedTensors StateDict() const;
  // Copies values in place by name; throws InvalidArgument on a missing key or a
  // shape/dtype mismatch.
  void LoadStateDict(const NamedTensors& state);

  void Train(bool on = true);
  void Eval() { Train(false); }
  bool training() const { return training_; }

 protected:
  // A trainable leaf registered under name (returned for the member).
  Tensor& RegisterParameter(const std::string& name, Tensor value);
  template <typename M>
  std::shared_ptr<M> RegisterModule(const std::string& name, std::shared_ptr<M> m) {
    modules_.emplace_back(name, m);
    return m;
  }

 private:
  void Collect(const std::string& prefix, NamedTensors* out) const;
  std::vector<std::pair<std::string, std::unique_ptr<Tensor>>> params_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> modules_;
  bool training_ = true;
};

// y = x @ weight + bias; weight [in, out] (XavierUniform), bias [out] (zeros).
class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  Tensor Forward(const Tensor& x) override;
  Tensor& weight() { return *weight_; }

 private:
  Tensor* weight_ = nullptr;
  Tensor* bias_ = nullptr;
};

class ReLU : public Module {
 public:
  Tensor Forward(const Tensor& x) override;
};

// Flattens every axis after the first.
class Flatten : public Module {
 public:
  Tensor Forward(const Tensor& x) override;
};

class Sequential : public Module {
 public:
  Sequential() = default;
  template <typename M>
  Sequential& Add(std::shared_ptr<M> m) {
    layers_.push_back(RegisterModule(std::to_string(layers_.size()), std::move(m)));
    return *this;
  }
  Tensor Forward(const Tensor& x) override;

 private:
  std::vector<std::shared_ptr<Module>> layers_;
};

// Mean cross-entropy of logits [N, C] against int64 class labels [N] (or [N, 1]).
Tensor CrossEntropy(const Tensor& logits, const Tensor& labels);
// The fraction of rows whose largest logit is at the label.
double Accuracy(const Tensor& logits, const Tensor& labels);

}  // namespace oar::nn
