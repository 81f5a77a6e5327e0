#include "oar/train/module.h"

#include <cmath>
#include <cstring>

#include "oar/core/errors.h"
#include "oar/core/grad_mode.h"
#include "oar/eager/creation.h"
#include "oar/eager/dygraph_functions.h"

namespace oar::nn {

Tensor& Module::RegisterParameter(const std::string& name, Tensor value) {
  value.set_stop_gradient(false);
  params_.emplace_back(name, std::make_unique<Tensor>(std::move(value)));
  return *params_.back().second;
}

void Module::Collect(const std::string& prefix, NamedTensors* out) const {
  for (const auto& [name, p] : params_) out->emplace_back(prefix + name, *p);
  for (const auto& [name, m] : modules_) m->Collect(prefix + name + ".", out);
}

NamedTensors Module::NamedParameters() const {
  NamedTensors out;
  Collect("", &out);
  return out;
}

std::vector<Tensor> Module::Parameters() const {
  std::vector<Tensor> out;
  for (auto& [name, t] : NamedParameters()) out.push_back(t);
  return out;
}

NamedTensors Module::StateDict() const { return NamedParameters(); }

void Module::LoadStateDict(const NamedTensors& state) {
  NoGradGuard no_grad;
  for (auto& [name, p] : NamedParameters()) {
    const Tensor* src = nullptr;
    for (const auto& [k, v] : state) {
      if (k == name) src = &v;
    }
    if (!src) throw errors::InvalidArgument("LoadStateDict: no entry '", name, "'");
    if (src->shape() != p.shape() || src->dtype() != p.dtype()) {
      throw errors::InvalidArgument("LoadStateDict: '", name, "' has shape ", src->dims(),
                                    " and dtype ", DTypeName(src->dtype()),
                                    " in the state, the module ", p.dims(), " and ",
                                    DTypeName(p.dtype()));
    }
    const Tensor value = src->is_contiguous() ? *src : assign(*src);
    Tensor dst = p;  // parameters are created contiguous
    std::memcpy(dst.dense().data(), value.dense().data(),
                static_cast<size_t>(value.numel()) * SizeOf(value.dtype()));
    dst.bump_inplace_version();
  }
}

void Module::Train(bool on) {
  training_ = on;
  for (auto& [name, m] : modules_) m->Train(on);
}

Linear::Linear(int64_t in_features, int64_t out_features, bool bias) {
  if (in_features < 0 || out_features < 0) {
    throw errors::InvalidArgument("Linear: the feature counts must be >= 0, got ", in_features,
                                  " and ", out_features);
  }
  // Paddle's default: XavierUniform, limit sqrt(6 / (fan_in + fan_out)).
  const double limit =
      in_features + out_features > 0 ? std::sqrt(6.0 / double(in_features + out_features)) : 0;
  weight_ = &RegisterParameter(
      "weight", uniform({in_features, out_features}, DType::kFloat32, -limit, limit));
  if (bias) bias_ = &RegisterParameter("bias", zeros({out_features}));
}

Tensor Linear::Forward(const Tensor& x) {
  Tensor y = matmul(x, *weight_);
  return bias_ ? add(y, *bias_) : y;
}

Tensor ReLU::Forward(const Tensor& x) { return relu(x); }

Tensor Flatten::Forward(const Tensor& x) {
  const auto s = x.shape();
  if (s.empty()) throw errors::InvalidArgument("Flatten: the input must have a batch axis");
  int64_t rest = 1;
  for (size_t i = 1; i < s.size(); ++i) rest *= s[i];
  return reshape(x, {s[0], rest});
}

Tensor Sequential::Forward(const Tensor& x) {
  Tensor y = x;
  for (auto& l : layers_) y = l->Forward(y);
  return y;
}

Tensor CrossEntropy(const Tensor& logits, const Tensor& labels) {
  if (logits.ndim() != 2) {
    throw errors::InvalidArgument("CrossEntropy: logits must be [N, C], got ", logits.dims());
  }
  const int64_t n = logits.shape()[0], c = logits.shape()[1];
  Tensor lab = reshape(labels, {n, 1});
  // One-hot by comparison with 0..C-1, then the mean of -log p[label].
  Tensor classes = reshape(cast(arange(0, c, 1, DType::kInt64), lab.dtype()), {1, c});
  Tensor onehot = cast(equal(lab, classes), logits.dtype());
  Tensor picked = sum(multiply(log_softmax(logits, -1), onehot));
  return scale(picked, -1.0 / static_cast<double>(n), 0.0, true);
}

double Accuracy(const Tensor& logits, const Tensor& labels) {
  NoGradGuard no_grad;
  const int64_t n = logits.shape()[0], c = logits.shape()[1];
  const Tensor l = assign(cast(logits, DType::kFloat32));  // contiguous
  const Tensor lab = assign(cast(labels, DType::kInt64));
  const float* p = l.data<float>();
  int64_t right = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t best = 0;
    for (int64_t j = 1; j < c; ++j) {
      if (p[i * c + j] > p[i * c + best]) best = j;
    }
    right += best == lab.data<int64_t>()[i];
  }
  return n ? static_cast<double>(right) / static_cast<double>(n) : 0.0;
}

}  // namespace oar::nn
