// The 2-D image layers of the C++ modules, Paddle's nn.Conv2D and nn.MaxPool2D
// (python/oar/nn/layer/conv.py, pooling.py) over channels-first [N, C, H, W]
// input: the same weight layout, defaults and state-dict names, so a Conv2D
// saved here loads into the Python layer and back.
#pragma once

#include <initializer_list>
#include <optional>
#include <vector>

#include "oar/train/module.h"

namespace oar::nn {

// Paddle's int-or-list size arguments: Conv2D(1, 8, 3) and
// Conv2D(1, 8, {3, 5}, 1, {1, 1, 2, 2}) both read as in Python.
struct IntOrList {
  IntOrList(int64_t v) : values{v} {}  // NOLINT(google-explicit-constructor): Paddle's int form
  IntOrList(std::initializer_list<int64_t> v) : values(v) {}
  IntOrList(std::vector<int64_t> v) : values(std::move(v)) {}  // NOLINT: Paddle's list form
  std::vector<int64_t> values;
};

// Cross-correlation of x [N, in_channels, H, W] with weight
// [out_channels, in_channels / groups, kh, kw] plus bias [out_channels].
// kernel_size, stride and dilation take one value or one per spatial dim;
// padding one value, one per dim, or (before, after) per dim
// ([top, bottom, left, right]). Paddle's default initialization: weight
// Normal(0, sqrt(2 / fan_in)) with fan_in = in_channels / groups * kh * kw,
// bias zeros.
class Conv2D : public Module {
 public:
  Conv2D(int64_t in_channels, int64_t out_channels, IntOrList kernel_size, IntOrList stride = 1,
         IntOrList padding = 0, IntOrList dilation = 1, int64_t groups = 1, bool bias = true);
  Tensor Forward(const Tensor& x) override;
  Tensor& weight() { return *weight_; }
  // Null when built with bias = false.
  Tensor* bias() { return bias_; }

 private:
  int64_t in_channels_, groups_;
  std::vector<int64_t> stride_, padding_, dilation_;
  Tensor* weight_ = nullptr;
  Tensor* bias_ = nullptr;
};

// The maximum of each kernel_size window of x [N, C, H, W]; stride defaults
// to kernel_size (Paddle's stride=None), padding counts as -inf. No
// parameters; Paddle's return_mask is the functional max_pool_index.
class MaxPool2D : public Module {
 public:
  explicit MaxPool2D(IntOrList kernel_size, std::optional<IntOrList> stride = std::nullopt,
                     IntOrList padding = 0, bool ceil_mode = false);
  Tensor Forward(const Tensor& x) override;

 private:
  std::vector<int64_t> kernel_, stride_, padding_;
  bool ceil_mode_;
};

}  // namespace oar::nn
