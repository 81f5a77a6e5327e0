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
// w, then s): where the ops' kernel sums the input channels in blocks (Note [The
// forward convolution sums in blocks] in conv_impl.h), so does the folded one
// (Note [Folded convolutions sum in blocks where the ops do] in
// conv_inference.cc).
//
// Note [Winograd's algorithm for small activations]
// A 3x3 stride-1 convolution can multiply far less: Winograd's F(2x2, 3x3) and
// F(4x4, 3x3) transform 4x4 (6x6) input tiles, multiply them channel by channel
// with the weight transformed once, and transform back 2x2 (4x4) outputs, 2.25x
// (4x) fewer products. oneDNN has both on AVX-512 (its own choice between
// them), reading and writing its 16-channel blocked layout, which no strided
// tensor holds; so each call reorders the input from channels last, and the
// output (and the residual the sum post-op adds) between the two (Note
// [Channel-blocked copies run on oar's pool] in channel_blocks.h). At batch 1
// of ResNet-18 (inputs of 64x56x56 down to 512x7x7, at most 0.8 MB) the
// convolutions take 0.35-0.62 ms instead of 0.87-0.98 ms and the reorders
// stay in cache (10-40 us); at batch 16 the same reorders go to memory and
// cost more than Winograd saves, except on the smallest activations. With few
// output positions the weight is the traffic instead: F(2x2, 3x3)'s transformed
// weight is 16/9 the size of the direct one and each of its elements serves one
// product per 2x2 tile, where the direct weight's serve one per position. ResNet-18's
// 512-channel convolutions at batch 1 (7x7: 49 positions, 16 tiles) read 16.8 MB of
// weight each instead of 9.4, from memory, since the model's weights do not stay in
// cache between calls. Run direct, they took the C++ runtime's batch-1 call from
// 12.3-15.0 to 12.3-13.3 ms, less in each of five alternating rounds (Xeon with
// AVX-512, two threads, oar_bench_jit_latency), and its peak memory from 177 to 141
// MiB; the 256-channel ones at 14x14 (196 positions) run direct made it 4-7% slower
// (three rounds). So a folded convolution takes Winograd for inputs of at most
// kWinogradMaxInputBytes with at least kWinogradMinFoldedPositions output positions
// (batch x height x width), per input shape, and where oneDNN has it for this CPU (else the direct
// algorithm; without AVX-512, oar's own kernel: Note [Folded convolutions run oar's
// Winograd kernel where oneDNN has none] in conv_inference.cc). The transforms round differently:
// the results differ from the direct algorithm's by a few float32 roundings of the tile sums, not
// of each product (docs/jit.md gives the measured difference on ResNet-18); FLAGS_conv_winograd off
// keeps the direct algorithm.
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
  bool winograd = false;  // may run Winograd's algorithm (see the note)
  // Reads and writes oneDNN's 16-channel blocks where it has a kernel for them (AVX-512),
  // rather than the layouts it would pick (Note [A block's output stays in blocks for
  // both its readers] in conv_inference.cc).
  bool prefer_blocked = false;
  // A batch of one may run as one primitive per thread over a range of the output
  // channels, on oar's pool (Note [A batch of one runs in parts of its output
  // channels] in conv_inference.cc); false keeps one primitive on OpenMP's team.
  bool split_output_channels = true;
  bool operator==(const InferenceConvSpec&) const = default;
};

// The largest input (bytes) for which a folded convolution runs Winograd's
// algorithm (Note [Winograd's algorithm for small activations]).
inline constexpr int64_t kWinogradMaxInputBytes = int64_t{2} << 20;
// The fewest output positions for which it does (the same note).
inline constexpr int64_t kWinogradMinFoldedPositions = 128;

// The fewest output channels each part of a batch of one has (Note [A batch of one runs
// in parts of its output channels] in conv_inference.cc).
inline constexpr int64_t kPartMinChannels = 64;

// The most input channels for which a folded convolution reads its input in the plain
// layout (Note [A stem convolution reads its plain input] in conv_inference.cc).
inline constexpr int64_t kPlainInputMaxChannels = 4;

// A oneDNN memory layout of an activation (conv_inference.cc): opaque here.
struct BlockedLayout;

// A folded convolution's output held in a layout of oneDNN's channel blocks, which no
// strided tensor describes: a folded convolution's input or output layout (Note [A
// convolution's only reader takes its output blocked] and Note [A block's output stays
// in blocks for both its readers] in conv_inference.cc).
struct BlockedActivation {
  DenseTensor bytes;  // uint8: `layout` for `dims`
  DDim dims;          // [N, C, *spatial]
  std::shared_ptr<const BlockedLayout> layout;
};

// What one call reads: the input as a tensor or held blocked (ReadsAsIs), and, for a
// spec with a residual, the residual as a tensor or held blocked in this convolution's
// output layout (AddsOnto), whose bytes the sum is added onto and become the output's
// (`onto` is left empty).
struct ConvOperands {
  const DenseTensor* x = nullptr;
  const BlockedActivation* blocked_x = nullptr;
  const DenseTensor* residual = nullptr;
  BlockedActivation* onto = nullptr;
};

class InferenceConv {
 public:
  // weight [C_out, C_in / groups, *kernel], float32; mean, variance, scale and
  // shift [C_out]: the batch norm's statistics and affine parameters.
  InferenceConv(const DenseTensor& weight, const DenseTensor& mean, const DenseTensor& variance,
                const DenseTensor& scale, const DenseTensor& shift, double epsilon,
                InferenceConvSpec spec);
  // A convolution with no batch norm after it: the weight as it is, no bias (Note [A
  // convolution without a graph runs folded] in conv_no_grad.h).
  InferenceConv(const DenseTensor& weight, InferenceConvSpec spec);
  ~InferenceConv();
  InferenceConv(const InferenceConv&) = delete;
  InferenceConv& operator=(const InferenceConv&) = delete;

  // Whether t is a float32 tensor whose elements fill its memory in some order
  // of its dims (plain, or channels last as Run may return).
  static bool Takes(const DenseTensor& t);
  // Whether Run on x would run Winograd's algorithm (see the note).
  bool RunsWinograd(const DenseTensor& x) const;
  // The primitives over ranges of the output channels an input of x_dims runs as, one
  // per thread of oar's pool, or 0 where it runs as one primitive.
  int64_t Parts(const DDim& x_dims) const;
  // Whether Run takes x (as Takes says, [N, C_in, *spatial] of the weight's
  // rank) on this CPU (see the note).
  bool Supports(const DenseTensor& x) const;
  // The output's dims for x (the conv op's shape errors for a wrong x).
  DDim OutputDims(const DenseTensor& x) const;
  DDim OutputDims(const DDim& x) const;
  // The group's result for x: relu?(bn(conv(x)) [+ residual]), a new tensor,
  // contiguous if plain or where oar's own Winograd kernel runs (which reads and
  // writes that layout), else channels last (a strided tensor: the layout a folded
  // convolution reads without a reorder, or the one it reorders from most cheaply
  // when its kernel reads a blocked layout).
  // Safe to call from several threads at once. Shape errors are the conv op's.
  DenseTensor Run(const DenseTensor& x, const DenseTensor* residual, bool plain) const;
  // Run on an input RunBlocked gave in this convolution's input layout (ReadsAsIs).
  DenseTensor Run(const BlockedActivation& x, const DenseTensor* residual, bool plain) const;

  // The general call: relu?(bn(conv(x)) [+ residual]) as Run gives it.
  DenseTensor Run(const ConvOperands& in, bool plain) const;
  // The same, held in `next`'s input layout (next.ReadsBlocked(OutputDims(x)) must hold),
  // or with next null in this convolution's own output layout (WritesBlocked).
  BlockedActivation RunBlocked(const ConvOperands& in, const InferenceConv* next) const;

  // Whether the kernel for an input of x_dims reads a layout no strided tensor holds
  // (oneDNN's channel blocks), so that an input RunBlocked gives it skips two reorders.
  bool ReadsBlocked(const DDim& x_dims) const;
  // Whether this convolution's output for x_dims is in such a layout.
  bool WritesBlocked(const DDim& x_dims) const;
  // Whether this convolution and `other` read an input of x_dims in one layout.
  bool SameInputLayout(const InferenceConv& other, const DDim& x_dims) const;
  // Whether x (a RunBlocked output) is in this convolution's input layout.
  bool ReadsAsIs(const BlockedActivation& x) const;
  // Whether `residual` (a RunBlocked output) is in this convolution's output layout for
  // an input of x_dims (a spec with a residual, one oneDNN primitive).
  bool AddsOnto(const BlockedActivation& residual, const DDim& x_dims) const;
  // Run, with the output in the input layout of `next`, which must read it.
  BlockedActivation RunBlocked(const DenseTensor& x, const DenseTensor* residual,
                               const InferenceConv& next) const;
  BlockedActivation RunBlocked(const BlockedActivation& x, const DenseTensor* residual,
                               const InferenceConv& next) const;
  // A RunBlocked output as a contiguous tensor.
  static DenseTensor Plain(const BlockedActivation& x);

  // Whether this convolution's input (or output) layout for x_dims is oneDNN's dense
  // channel blocks of `block` channels, [N, C / block, *spatial, block] floats, as max
  // pooling reads and writes them (Note [Max pooling reads and writes channel blocks] in
  // max_pool_channels_last.h).
  bool DenseChannelBlocks(const DDim& x_dims, bool input, int64_t block) const;
  // Whether x is held in dense channel blocks of `block` channels.
  static bool DenseChannelBlocks(const BlockedActivation& x, int64_t block);
  // `bytes` of dims `dims`, written in this convolution's input layout for them, as a
  // held input.
  BlockedActivation AsInput(DenseTensor bytes, const DDim& dims) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace oar::conv_engine
