#include "oar/kernels/infer_meta_conv.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "oar/core/errors.h"
#include "oar/core/wide_int.h"

namespace oar {
namespace {

std::string ListToString(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// Window arithmetic in 128 bits: a padding, stride or dilation near 2^63 (or a huge
// spatial dim of an empty input) must give an argument error, not a signed overflow.

int64_t Narrow(Int128 v, const char* name, const std::vector<int64_t>& attr, int d) {
  OAR_ENFORCE(v >= INT64_MIN && v <= INT64_MAX,
              errors::InvalidArgument("argument '", name, "' ", ListToString(attr),
                                      " makes the sizes along spatial dim ", d, " pass 2^63"));
  return static_cast<int64_t>(v);
}

// Checks an int[] attribute of one value per spatial dim (or `per_dim` values
// per dim) and that each is at least `min`.
void CheckPerDim(const std::vector<int64_t>& v, const char* name, int nd, int per_dim,
                 int64_t min) {
  OAR_ENFORCE(static_cast<int>(v.size()) == nd * per_dim,
              errors::InvalidArgument("argument '", name, "' ", ListToString(v), " must have ",
                                      nd * per_dim, " values for ", nd, " spatial dims"));
  for (int64_t e : v) {
    OAR_ENFORCE(e >= min, errors::InvalidArgument("argument '", name, "' ", ListToString(v),
                                                  " must hold values >= ", min));
  }
}

// The spatial rank of a [C_out, C_in / groups, *kernel] weight, checked against x.
int SpatialRank(const DDim& x, const DDim& weight) {
  const int rank = static_cast<int>(weight.size());
  OAR_ENFORCE(rank >= 3 && rank <= 5,
              errors::InvalidArgument("argument 'weight' must be 3-D, 4-D or 5-D (channels and "
                                      "1 to 3 spatial dims), but has shape ",
                                      DimsToString(weight)));
  OAR_ENFORCE(static_cast<int>(x.size()) == rank,
              errors::InvalidArgument("argument 'x' has shape ", DimsToString(x), " but weight ",
                                      DimsToString(weight), " needs a ", rank,
                                      "-D input [N, C, *spatial]"));
  return rank - 2;
}

void CheckGroups(int64_t groups, int64_t channels, const char* what) {
  OAR_ENFORCE(groups >= 1,
              errors::InvalidArgument("argument 'groups' (", groups, ") must be at least 1"));
  OAR_ENFORCE(channels % groups == 0,
              errors::InvalidArgument("argument 'groups' (", groups, ") must divide the ", what,
                                      " (", channels, ")"));
}

// weight.shape[1] * groups, the channels of a grouped convolution's input (conv) or output
// (conv_transpose). groups divides weight.shape[0], which bounds it unless that is 0.
int64_t GroupedChannels(int64_t per_group, int64_t groups) {
  int64_t channels = 0;
  OAR_ENFORCE(!__builtin_mul_overflow(per_group, groups, &channels),
              errors::InvalidArgument("argument 'groups' (", groups, ") times weight.shape[1] (",
                                      per_group, ") passes int64"));
  return channels;
}

// Fills stride, dilation and padding of g from the attributes (nd already set).
// Empty attributes take their defaults (PerDimOr).
void SetWindowAttrs(WindowGeometry* g, const std::vector<int64_t>& strides_in,
                    const std::vector<int64_t>& paddings_in,
                    const std::vector<int64_t>& dilations_in) {
  const int nd = g->nd, lead = 3 - nd;
  const auto strides = PerDimOr(strides_in, nd, 1), paddings = PerDimOr(paddings_in, 2 * nd, 0);
  const auto dilations = PerDimOr(dilations_in, nd, 1);
  CheckPerDim(strides, "strides", nd, 1, 1);
  CheckPerDim(paddings, "paddings", nd, 2, 0);
  CheckPerDim(dilations, "dilations", nd, 1, 1);
  for (int d = 0; d < nd; ++d) {
    g->stride[lead + d] = strides[d];
    g->dilation[lead + d] = dilations[d];
    g->pad_before[lead + d] = paddings[2 * d];
    g->pad_after[lead + d] = paddings[2 * d + 1];
  }
}

}  // namespace

std::vector<int64_t> PerDimOr(const std::vector<int64_t>& v, size_t n, int64_t value) {
  return v.empty() ? std::vector<int64_t>(n, value) : v;
}

WindowGeometry ConvGeometry(const DDim& x, const DDim& weight, const std::vector<int64_t>& strides,
                            const std::vector<int64_t>& paddings,
                            const std::vector<int64_t>& dilations, int64_t groups) {
  WindowGeometry g;
  g.nd = SpatialRank(x, weight);
  const int lead = 3 - g.nd;
  SetWindowAttrs(&g, strides, paddings, dilations);
  CheckGroups(groups, weight[0], "output channels weight.shape[0]");
  const int64_t channels = GroupedChannels(weight[1], groups);
  OAR_ENFORCE(x[1] == channels,
              errors::InvalidArgument("argument 'x' has ", x[1], " channels, but weight ",
                                      DimsToString(weight), " with groups=", groups, " expects ",
                                      channels, " (weight.shape[1] * groups)"));
  for (int d = 0; d < g.nd; ++d) {
    const int i = lead + d;
    g.in[i] = x[2 + d];
    g.kernel[i] = weight[2 + d];
    const Int128 padded = Int128(g.in[i]) + g.pad_before[i] + g.pad_after[i];
    const Int128 span = Int128(g.dilation[i]) * (g.kernel[i] - 1) + 1;
    OAR_ENFORCE(
        g.kernel[i] >= 1 && span <= padded,
        errors::InvalidArgument("argument 'weight' ", DimsToString(weight), ": the kernel spans ",
                                Narrow(span, "dilations", dilations, d), " along spatial dim ", d,
                                ", more than the padded input (",
                                Narrow(padded, "paddings", paddings, d), ")"));
    g.out[i] = Narrow((padded - span) / g.stride[i] + 1, "paddings", paddings, d);
  }
  return g;
}

void ConvInferMeta(const DenseTensor& x, const DenseTensor& weight,
                   const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                   const std::vector<int64_t>& dilations, int64_t groups, DenseTensor* out) {
  const WindowGeometry g =
      ConvGeometry(x.dims(), weight.dims(), strides, paddings, dilations, groups);
  DDim dims{x.dims()[0], weight.dims()[0]};
  for (int d = 0; d < g.nd; ++d) dims.push_back(g.out[3 - g.nd + d]);
  out->set_meta(x.dtype(), dims);
}

void ConvTransposeInferMeta(const DenseTensor& x, const DenseTensor& weight,
                            const std::vector<int64_t>& strides,
                            const std::vector<int64_t>& paddings,
                            const std::vector<int64_t>& output_padding,
                            const std::vector<int64_t>& dilations, int64_t groups,
                            DenseTensor* out) {
  const DDim& xd = x.dims();
  const DDim& wd = weight.dims();
  WindowGeometry g;
  g.nd = SpatialRank(xd, wd);
  SetWindowAttrs(&g, strides, paddings, dilations);
  if (!output_padding.empty()) CheckPerDim(output_padding, "output_padding", g.nd, 1, 0);
  CheckGroups(groups, wd[0], "input channels weight.shape[0]");
  OAR_ENFORCE(xd[1] == wd[0],
              errors::InvalidArgument("argument 'x' has ", xd[1], " channels, but weight ",
                                      DimsToString(wd), " expects weight.shape[0] = ", wd[0]));
  DDim dims{xd[0], GroupedChannels(wd[1], groups)};
  for (int d = 0; d < g.nd; ++d) {
    const int i = 3 - g.nd + d;
    const int64_t op = output_padding.empty() ? 0 : output_padding[d];
    OAR_ENFORCE(op < std::max(g.stride[i], g.dilation[i]),
                errors::InvalidArgument("argument 'output_padding' ", ListToString(output_padding),
                                        " must be smaller than the stride or the dilation"));
    const int64_t size =
        Narrow(Int128(xd[2 + d] - 1) * g.stride[i] - g.pad_before[i] - g.pad_after[i] +
                   Int128(g.dilation[i]) * (wd[2 + d] - 1) + 1 + op,
               "strides", strides, d);
    OAR_ENFORCE(size >= 0 && wd[2 + d] >= 1,
                errors::InvalidArgument("argument 'paddings' ", ListToString(paddings),
                                        " leaves no output along spatial dim ", d, " for input ",
                                        DimsToString(xd), " and weight ", DimsToString(wd)));
    dims.push_back(size);
  }
  out->set_meta(x.dtype(), dims);
}

void ConvFilterGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out,
                             const std::vector<int64_t>& filter_shape,
                             const std::vector<int64_t>& strides,
                             const std::vector<int64_t>& paddings,
                             const std::vector<int64_t>& dilations, int64_t groups,
                             DenseTensor* weight_grad) {
  const DDim w(filter_shape.begin(), filter_shape.end());
  for (size_t i = 0; i < w.size(); ++i) {
    OAR_ENFORCE(w[i] >= (i < 2 ? 0 : 1),
                errors::InvalidArgument("argument 'filter_shape' ", ListToString(filter_shape),
                                        " must have sizes >= 0 and kernel sizes >= 1"));
  }
  const WindowGeometry g = ConvGeometry(x.dims(), w, strides, paddings, dilations, groups);
  DDim expect{x.dims()[0], w[0]};
  for (int d = 0; d < g.nd; ++d) expect.push_back(g.out[3 - g.nd + d]);
  OAR_ENFORCE(grad_out.dims() == expect,
              errors::InvalidArgument("argument 'grad_out' has shape ",
                                      DimsToString(grad_out.dims()), " but the convolution of ",
                                      DimsToString(x.dims()), " gives ", DimsToString(expect)));
  weight_grad->set_meta(grad_out.dtype(), w);
}

WindowGeometry PoolGeometry(const DDim& x, const std::vector<int64_t>& kernel_size,
                            const std::vector<int64_t>& strides,
                            const std::vector<int64_t>& paddings, bool ceil_mode, bool adaptive) {
  WindowGeometry g;
  g.nd = static_cast<int>(kernel_size.size());
  OAR_ENFORCE(g.nd >= 1 && g.nd <= 3,
              errors::InvalidArgument("argument 'kernel_size' ", ListToString(kernel_size),
                                      " must have 1 to 3 values"));
  OAR_ENFORCE(static_cast<int>(x.size()) == g.nd + 2,
              errors::InvalidArgument("argument 'x' has shape ", DimsToString(x), " but a ", g.nd,
                                      "-D pool needs a ", g.nd + 2, "-D input [N, C, *spatial]"));
  const int lead = 3 - g.nd;
  if (adaptive) {
    CheckPerDim(kernel_size, "output_size", g.nd, 1, 1);
    for (int d = 0; d < g.nd; ++d) {
      g.in[lead + d] = x[2 + d];
      g.out[lead + d] = kernel_size[d];
    }
    return g;
  }
  CheckPerDim(kernel_size, "kernel_size", g.nd, 1, 1);
  // No strides: the kernel size, as the pools of PyTorch and Paddle default (a convolution's
  // default stride is 1).
  SetWindowAttrs(&g, strides.empty() ? kernel_size : strides, paddings, {});
  for (int d = 0; d < g.nd; ++d) {
    const int i = lead + d;
    g.in[i] = x[2 + d];
    g.kernel[i] = kernel_size[d];
    OAR_ENFORCE(g.pad_before[i] <= g.kernel[i] / 2 && g.pad_after[i] <= g.kernel[i] / 2,
                errors::InvalidArgument("argument 'paddings' ", ListToString(paddings),
                                        " must be at most half of kernel_size ",
                                        ListToString(kernel_size)));
    const Int128 span = Int128(g.in[i]) + g.pad_before[i] + g.pad_after[i] - g.kernel[i];
    OAR_ENFORCE(span >= 0, errors::InvalidArgument(
                               "argument 'kernel_size' ", ListToString(kernel_size),
                               " is larger than the padded input along spatial dim ", d, " (",
                               Narrow(span + g.kernel[i], "paddings", paddings, d), ")"));
    // The windows are computed in int64 (PoolWindow): the padded input must fit.
    Narrow(span + g.kernel[i], "paddings", paddings, d);
    Int128 n = (ceil_mode ? span + g.stride[i] - 1 : span) / g.stride[i] + 1;
    if (ceil_mode && (n - 1) * g.stride[i] >= Int128(g.in[i]) + g.pad_before[i]) --n;
    g.out[i] = Narrow(n, "paddings", paddings, d);
  }
  // avg_pool divides by up to the kernel's size (count_include_pad): it must be an int64.
  Int128 taps = 1;
  for (int64_t k : g.kernel) taps *= k;
  OAR_ENFORCE(taps <= std::numeric_limits<int64_t>::max(),
              errors::InvalidArgument("argument 'kernel_size' ", ListToString(kernel_size),
                                      ": the window's size (the product) passes int64"));
  return g;
}

Window PoolWindow(const WindowGeometry& g, int d, int64_t o, bool adaptive) {
  if (adaptive) {
    // In 128 bits: o * in passes int64 for an empty input with a dim near 2^63.
    const auto b = static_cast<int64_t>(Int128(o) * g.in[d] / g.out[d]);
    const auto e = static_cast<int64_t>((Int128(o + 1) * g.in[d] + g.out[d] - 1) / g.out[d]);
    return {b, e, e - b};
  }
  const int64_t start = o * g.stride[d] - g.pad_before[d];
  const int64_t padded_end = std::min(start + g.kernel[d], g.in[d] + g.pad_after[d]);
  return {std::max<int64_t>(start, 0), std::min(start + g.kernel[d], g.in[d]), padded_end - start};
}

namespace {
DDim PoolOutDims(const DDim& x, const WindowGeometry& g) {
  DDim dims{x[0], x[1]};
  for (int d = 0; d < g.nd; ++d) dims.push_back(g.out[3 - g.nd + d]);
  return dims;
}
}  // namespace

void PoolInferMeta(const DenseTensor& x, const std::vector<int64_t>& kernel_size,
                   const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                   bool ceil_mode, bool, int64_t divisor, bool adaptive, DenseTensor* out) {
  OAR_ENFORCE(divisor >= 0, errors::InvalidArgument("argument 'divisor' (", divisor,
                                                    ") must be positive, or 0 for none"));
  // Paddle's adaptive pooling has no divisor_override: its windows differ in size
  OAR_ENFORCE(divisor == 0 || !adaptive,
              errors::InvalidArgument("argument 'divisor' (", divisor,
                                      ") must be 0 with adaptive=True (the windows of adaptive "
                                      "pooling differ in size)"));
  const WindowGeometry g =
      PoolGeometry(x.dims(), kernel_size, strides, paddings, ceil_mode, adaptive);
  out->set_meta(x.dtype(), PoolOutDims(x.dims(), g));
}

void AvgPoolGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out,
                          const std::vector<int64_t>& kernel_size,
                          const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                          bool ceil_mode, bool exclusive, int64_t divisor, bool adaptive,
                          DenseTensor* x_grad) {
  DenseTensor expect;
  PoolInferMeta(x, kernel_size, strides, paddings, ceil_mode, exclusive, divisor, adaptive,
                &expect);
  OAR_ENFORCE(
      grad_out.dims() == expect.dims(),
      errors::InvalidArgument("argument 'grad_out' has shape ", DimsToString(grad_out.dims()),
                              " but the pool of ", DimsToString(x.dims()), " gives ",
                              DimsToString(expect.dims())));
  x_grad->set_meta(grad_out.dtype(), x.dims());
}

void MaxPoolIndexInferMeta(const DenseTensor& x, const std::vector<int64_t>& kernel_size,
                           const std::vector<int64_t>& strides,
                           const std::vector<int64_t>& paddings, bool ceil_mode, bool adaptive,
                           DenseTensor* out) {
  const WindowGeometry g =
      PoolGeometry(x.dims(), kernel_size, strides, paddings, ceil_mode, adaptive);
  out->set_meta(DType::kInt64, PoolOutDims(x.dims(), g));
}

void MaxPoolInferMeta(const DenseTensor& x, const std::vector<int64_t>& kernel_size,
                      const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                      bool ceil_mode, bool adaptive, DenseTensor* out) {
  MaxPoolIndexInferMeta(x, kernel_size, strides, paddings, ceil_mode, adaptive, out);
  out->set_meta(x.dtype(), out->dims());
}

namespace {
void CheckPoolIndex(const DDim& x, const DenseTensor& index) {
  OAR_ENFORCE(
      index.dtype() == DType::kInt64,
      errors::InvalidType("argument 'index' must be an int64 tensor, but got ", index.dtype()));
  const DDim& id = index.dims();
  OAR_ENFORCE(x.size() >= 3 && id.size() == x.size() && id[0] == x[0] && id[1] == x[1],
              errors::InvalidArgument("argument 'index' has shape ", DimsToString(id),
                                      " but x has shape ", DimsToString(x),
                                      ": both must be [N, C, *spatial] with the same N and C"));
}
}  // namespace

void PoolGatherInferMeta(const DenseTensor& x, const DenseTensor& index, DenseTensor* out) {
  CheckPoolIndex(x.dims(), index);
  out->set_meta(x.dtype(), index.dims());
}

void PoolScatterInferMeta(const DenseTensor& x, const DenseTensor& index,
                          const DenseTensor& grad_out, DenseTensor* x_grad) {
  CheckPoolIndex(x.dims(), index);
  OAR_ENFORCE(
      grad_out.dims() == index.dims(),
      errors::InvalidArgument("argument 'grad_out' has shape ", DimsToString(grad_out.dims()),
                              " but index has shape ", DimsToString(index.dims())));
  x_grad->set_meta(grad_out.dtype(), x.dims());
}

}  // namespace oar
