// Max pooling in the layout folded convolutions keep (Note [Convolutions folded
// for inference]): a float32 input whose channels are adjacent in memory (the
// channels-last tensor a folded convolution returns) pooled into the same
// layout, each window's channels compared as one vector. The ops' kernel
// copies such an input to the plain layout first, and the convolution after it
// then reorders its output back, twice (its input and the residual). The
// values are max_pool's: every element of a window is compared in the same
// order and a NaN wins, so they are the same bits.
#pragma once

#include <cstdint>
#include <vector>

#include "oar/core/dense_tensor.h"

namespace oar::conv_engine {

// Whether MaxPoolChannelsLast takes x with these attributes (max_pool's): a
// 4-D float32 tensor with unit channel stride, a 2-D pool whose windows all
// hold an element.
bool MaxPoolTakes(const DenseTensor& x, const std::vector<int64_t>& kernel_size,
                  const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                  bool ceil_mode);

// max_pool(x) for an x MaxPoolTakes: channels last, or contiguous if plain.
DenseTensor MaxPoolChannelsLast(const DenseTensor& x, const std::vector<int64_t>& kernel_size,
                                const std::vector<int64_t>& strides,
                                const std::vector<int64_t>& paddings, bool ceil_mode, bool plain);

// Note [Max pooling reads and writes channel blocks]
// The same pooling between oneDNN's dense 16-channel blocks ([N, C/16, H, W, 16]
// floats) and channels last, either way: a folded convolution before it and the ones
// after it then keep their activations in blocks (Note [A block's output stays in
// blocks for both its readers] in conv_inference.cc). The values are the same bits.
// Each window compares whole vectors of channels (`omp simd`: with a block's 16
// channels known to the compiler, GCC 12 otherwise unrolled the loop into scalar
// code, 5x slower). ResNet-18's max pooling at batch 1 (64 x 112 x 112 to 56 x 56, two
// threads, Xeon with AVX-512) takes 65-67 us block to block on an input in cache, 77-80 us
// channels last to blocks and 84-90 us channels last to channels last, against 94-101 us
// for the kernel before. It runs on oar's pool, as the convolution before it at batch 1
// (Note [A batch of one runs in parts of its output channels] in conv_inference.cc),
// whose worker is still awake: on OpenMP's team, whose worker had slept through that
// convolution, the caller did its static half and then waited for the worker to wake, and
// the pooling took 230-300 us a call in the C++ runtime against 195-215 (three
// alternating rounds; the input, just written, is mostly out of the core's cache there).
inline constexpr int64_t kPoolChannelBlock = 16;

// Whether max pooling of an input of x_dims (float32, kPoolChannelBlock channels a
// block) with these attributes is taken by MaxPoolChannelBlocks.
bool MaxPoolTakesBlocks(const DDim& x_dims, const std::vector<int64_t>& kernel_size,
                        const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                        bool ceil_mode);
// The pooled dims of an input of x_dims.
DDim MaxPoolDims(const DDim& x_dims, const std::vector<int64_t>& kernel_size,
                 const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                 bool ceil_mode);

// max_pool of an input that is either a channels-last float32 tensor (`x`) or bytes in
// channel blocks of dims x_dims (`x_blocks`, x null), written in channel blocks (bytes,
// uint8) when `blocks_out`, else as a channels-last tensor.
DenseTensor MaxPoolChannelBlocks(const DenseTensor* x, const DenseTensor* x_blocks,
                                 const DDim& x_dims, const std::vector<int64_t>& kernel_size,
                                 const std::vector<int64_t>& strides,
                                 const std::vector<int64_t>& paddings, bool ceil_mode,
                                 bool blocks_out);

}  // namespace oar::conv_engine
