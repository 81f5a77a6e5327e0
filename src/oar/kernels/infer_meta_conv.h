// InferMeta functions and window geometry of the convolution and pooling ops
// (src/oar/ops/conv.yaml, src/oar/ops/pooling.yaml). Both kinds of op slide a
// window over the trailing `nd` spatial dims of a channels-first tensor
// [N, C, *spatial]; `paddings` holds a (before, after) pair per spatial dim.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "oar/core/dense_tensor.h"
#include "oar/core/wide_int.h"

namespace oar {

// The geometry of one sliding-window op, padded to three spatial dims (a 1-D
// or 2-D op has leading dims of size 1, kernel 1, stride 1, no padding), so the
// kernels have one code path for every rank.
struct WindowGeometry {
  int nd = 0;  // spatial rank of the op: 1, 2 or 3
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, kernel{1, 1, 1};
  std::array<int64_t, 3> stride{1, 1, 1}, dilation{1, 1, 1}, pad_before{0, 0, 0};
  std::array<int64_t, 3> pad_after{0, 0, 0};
  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
  int64_t kernel_size() const { return kernel[0] * kernel[1] * kernel[2]; }
  // The work of one plane for ParallelFor, saturated: a huge window over a tiny input is
  // allowed (its windows are clipped to the input), and out_size * kernel_size may not fit.
  int64_t plane_cost() const {
    const Int128 c = static_cast<Int128>(out_size()) * std::max<int64_t>(kernel_size(), 4);
    return c > INT64_MAX ? INT64_MAX : static_cast<int64_t>(c);
  }
};

// An int[] attribute of n values, or n copies of `value` when it is empty
// (the conv ops' defaults for strides, paddings, dilations, output_padding).
std::vector<int64_t> PerDimOr(const std::vector<int64_t>& v, size_t n, int64_t value);

// conv: x [N, C_in, *in] and weight [C_out, C_in / groups, *kernel] -> the
// geometry (out filled in). Throws the ops' argument errors.
WindowGeometry ConvGeometry(const DDim& x, const DDim& weight, const std::vector<int64_t>& strides,
                            const std::vector<int64_t>& paddings,
                            const std::vector<int64_t>& dilations, int64_t groups);

void ConvInferMeta(const DenseTensor& x, const DenseTensor& weight,
                   const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                   const std::vector<int64_t>& dilations, int64_t groups, DenseTensor* out);
// conv_transpose: the output size per spatial dim is
// (in - 1) * stride - pad_before - pad_after + dilation * (kernel - 1) + 1 + output_padding.
void ConvTransposeInferMeta(const DenseTensor& x, const DenseTensor& weight,
                            const std::vector<int64_t>& strides,
                            const std::vector<int64_t>& paddings,
                            const std::vector<int64_t>& output_padding,
                            const std::vector<int64_t>& dilations, int64_t groups,
                            DenseTensor* out);
void ConvFilterGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out,
                             const std::vector<int64_t>& filter_shape,
                             const std::vector<int64_t>& strides,
                             const std::vector<int64_t>& paddings,
                             const std::vector<int64_t>& dilations, int64_t groups,
                             DenseTensor* weight_grad);

// Pooling over x [N, C, *in] with nd = kernel_size.size(). With adaptive,
// kernel_size is the output size. ceil_mode keeps a last partial window only
// if it starts inside the input or its leading padding (as PyTorch does; a
// window entirely in the trailing padding would have nothing to pool).
WindowGeometry PoolGeometry(const DDim& x, const std::vector<int64_t>& kernel_size,
                            const std::vector<int64_t>& strides,
                            const std::vector<int64_t>& paddings, bool ceil_mode, bool adaptive);
// The window of output position o along spatial dim d, clipped to the input:
// [begin, end). `padded_end` is the end clipped to the padded input instead
// (the count avg_pool divides by when padding counts).
struct Window {
  int64_t begin, end, padded_count;
};
Window PoolWindow(const WindowGeometry& g, int d, int64_t o, bool adaptive);

void PoolInferMeta(const DenseTensor& x, const std::vector<int64_t>& kernel_size,
                   const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                   bool ceil_mode, bool exclusive, int64_t divisor, bool adaptive,
                   DenseTensor* out);
void AvgPoolGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out,
                          const std::vector<int64_t>& kernel_size,
                          const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                          bool ceil_mode, bool exclusive, int64_t divisor, bool adaptive,
                          DenseTensor* x_grad);
void MaxPoolIndexInferMeta(const DenseTensor& x, const std::vector<int64_t>& kernel_size,
                           const std::vector<int64_t>& strides,
                           const std::vector<int64_t>& paddings, bool ceil_mode, bool adaptive,
                           DenseTensor* out);
// max_pool: the pooled values, x's dtype, MaxPoolIndexInferMeta's shape.
void MaxPoolInferMeta(const DenseTensor& x, const std::vector<int64_t>& kernel_size,
                      const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                      bool ceil_mode, bool adaptive, DenseTensor* out);
void PoolGatherInferMeta(const DenseTensor& x, const DenseTensor& index, DenseTensor* out);
void PoolScatterInferMeta(const DenseTensor& x, const DenseTensor& index,
                          const DenseTensor& grad_out, DenseTensor* x_grad);

}  // namespace oar
