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

}  // namespace oar::conv_engine
