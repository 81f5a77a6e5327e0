// A convolution prepared for inference: batch norm folded into its weight and
// bias, the weight packed once into the layout oneDNN's kernel reads, and the
// residual add and relu that follow it applied as oneDNN post-ops. The C++
// runtime builds one per conv -> batch_norm_infer [-> add] [-> relu] group of
// a loaded program (src/oar/jit/conv_folding.h).
//
// Note [Convolutions folded for inference]
// In eval mode a batch norm is x * s + t per channel with s and t fixed, so
// conv(x, w) * s + t = conv(x, w * s) + t: one convolution with a bias. The
// folded weight is computed once (in double, rounded to float32 once), and
// packed once for each layout oneDNN picks, where the ops' kernel reorders
// the weight at every call: at batch 1 a 512-channel 3x3 weight (9.4 MB) is
// more memory traffic than the convolution's activations. The results differ
// from the op-by-op ones by rounding only (the products use w * s instead of
// w, then s). The folded path runs where the ops' kernel would sum all input
// channels in oneDNN's own order anyway (Note [The forward convolution sums in
// blocks] in conv_impl.h): on AVX-512, or a 1x1 or grouped convolution, or at
// most 16 input channels; elsewhere Supports says no and the runtime runs the
// ops one by one.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "oar/core/dense_tensor.h"

namespace oar::conv_engine {

struct InferenceConvSpec {
  std::vector<int64_t> strides, paddings, dilations;  // the conv op's attributes
  int64_t groups = 1;
  bool residual = false;  // adds a tensor shaped like the output
  bool relu = false;      // then relu
};

class InferenceConv {
 public:
  // weight [C_out, C_in / groups, *kernel], float32; mean, variance, scale and
  // shift [C_out]: the batch norm's statistics and affine parameters.
  InferenceConv(const DenseTensor& weight, const DenseTensor& mean, const DenseTensor& variance,
                const DenseTensor& scale, const DenseTensor& shift, double epsilon,
                InferenceConvSpec spec);
  ~InferenceConv();
  InferenceConv(const InferenceConv&) = delete;
  InferenceConv& operator=(const InferenceConv&) = delete;

  // Whether t is a float32 tensor whose elements fill its memory in some order
  // of its dims (plain, or channels last as Run may return).
  static bool Takes(const DenseTensor& t);
  // Whether Run takes x (as Takes says, [N, C_in, *spatial] of the weight's
  // rank) on this CPU (see the note).
  bool Supports(const DenseTensor& x) const;
  // The output's dims for x (the conv op's shape errors for a wrong x).
  DDim OutputDims(const DenseTensor& x) const;
  // The group's result for x: relu?(bn(conv(x)) [+ residual]), a new tensor,
  // contiguous if plain, else in oneDNN's layout where that is channels last
  // (a strided tensor; a folded convolution reading it needs no reorder).
  // Safe to call from several threads at once. Shape errors are the conv op's.
  DenseTensor Run(const DenseTensor& x, const DenseTensor* residual, bool plain) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace oar::conv_engine
