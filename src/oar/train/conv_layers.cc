#include "oar/train/conv_layers.h"

#include <cmath>
#include <string>

#include "oar/core/errors.h"
#include "oar/eager/creation.h"
#include "oar/eager/dygraph_functions.h"

namespace oar::nn {
namespace {

// One value per spatial dim (min_value bounds each).
std::vector<int64_t> PerDim(const char* layer, const char* name, const IntOrList& arg,
                            int64_t min_value) {
  std::vector<int64_t> v = arg.values;
  if (v.size() == 1) v.push_back(v[0]);
  if (v.size() != 2) {
    throw errors::InvalidArgument(layer, ": argument '", name, "' must be an int or 2 ints, got ",
                                  arg.values);
  }
  for (int64_t e : v) {
    if (e < min_value) {
      throw errors::InvalidArgument(layer, ": argument '", name, "' must be >= ", min_value,
                                    ", got ", arg.values);
    }
  }
  return v;
}

// The ops' (before, after) pair per spatial dim from Paddle's 1, 2 or 4 ints.
std::vector<int64_t> Paddings(const char* layer, const IntOrList& arg) {
  const std::vector<int64_t>& v = arg.values;
  std::vector<int64_t> out;
  if (v.size() == 1) out = {v[0], v[0], v[0], v[0]};
  if (v.size() == 2) out = {v[0], v[0], v[1], v[1]};
  if (v.size() == 4) out = v;
  if (out.empty()) {
    throw errors::InvalidArgument(layer, ": argument 'padding' must be an int, 2 ints or 4 ints ",
                                  "(top, bottom, left, right), got ", v);
  }
  for (int64_t e : out) {
    if (e < 0) throw errors::InvalidArgument(layer, ": argument 'padding' must be >= 0, got ", v);
  }
  return out;
}

void CheckImage(const char* layer, const Tensor& x) {
  if (x.ndim() != 4) {
    throw errors::InvalidArgument(layer, ": argument 'x' must be 4-D [N, C, H, W], got shape ",
                                  x.dims());
  }
}

// The op's own shape errors ("the window is larger than the input") gain the
// layer's name, which is what the caller wrote.
template <typename F>
Tensor Named(const char* layer, F&& f) {
  try {
    return f();
  } catch (Error& e) {
    e.Prepend(std::string(layer) + ": ");
    throw;
  }
}

}  // namespace

Conv2D::Conv2D(int64_t in_channels, int64_t out_channels, IntOrList kernel_size, IntOrList stride,
               IntOrList padding, IntOrList dilation, int64_t groups, bool bias)
    : in_channels_(in_channels),
      groups_(groups),
      stride_(PerDim("Conv2D", "stride", stride, 1)),
      padding_(Paddings("Conv2D", padding)),
      dilation_(PerDim("Conv2D", "dilation", dilation, 1)) {
  const std::pair<const char*, int64_t> counts[] = {
      {"in_channels", in_channels}, {"out_channels", out_channels}, {"groups", groups}};
  for (const auto& [name, v] : counts) {
    if (v < 1) {
      throw errors::InvalidArgument("Conv2D: argument '", name, "' must be >= 1, got ", v);
    }
  }
  if (in_channels % groups || out_channels % groups) {
    throw errors::InvalidArgument("Conv2D: in_channels (", in_channels, ") and out_channels (",
                                  out_channels, ") must be divisible by groups (", groups, ")");
  }
  const std::vector<int64_t> k = PerDim("Conv2D", "kernel_size", kernel_size, 1);
  const int64_t fan_in = in_channels / groups * k[0] * k[1];
  weight_ = &RegisterParameter("weight", normal({out_channels, in_channels / groups, k[0], k[1]},
                                                0.0, std::sqrt(2.0 / static_cast<double>(fan_in))));
  if (bias) bias_ = &RegisterParameter("bias", zeros({out_channels}));
}

Tensor Conv2D::Forward(const Tensor& x) {
  CheckImage("Conv2D", x);
  if (x.shape()[1] != in_channels_) {
    throw errors::InvalidArgument("Conv2D: argument 'x' has ", x.shape()[1],
                                  " channels (axis 1 of shape ", x.dims(), "), expected ",
                                  "in_channels = ", in_channels_);
  }
  return Named("Conv2D", [&] {
    Tensor y = conv(x, *weight_, stride_, padding_, dilation_, groups_);
    if (!bias_) return y;
    return add(y, reshape(*bias_, {1, bias_->shape()[0], 1, 1}));
  });
}

MaxPool2D::MaxPool2D(IntOrList kernel_size, std::optional<IntOrList> stride, IntOrList padding,
                     bool ceil_mode)
    : kernel_(PerDim("MaxPool2D", "kernel_size", kernel_size, 1)),
      stride_(stride ? PerDim("MaxPool2D", "stride", *stride, 1) : kernel_),
      padding_(Paddings("MaxPool2D", padding)),
      ceil_mode_(ceil_mode) {}

Tensor MaxPool2D::Forward(const Tensor& x) {
  CheckImage("MaxPool2D", x);
  return Named("MaxPool2D", [&] {
    return pool_gather(x, max_pool_index(x, kernel_, stride_, padding_, ceil_mode_));
  });
}

}  // namespace oar::nn
