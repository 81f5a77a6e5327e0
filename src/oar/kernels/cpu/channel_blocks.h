// Copies between a float32 tensor in channels-last order and oneDNN's channel-blocked
// layout (the one its AVX-512 direct and Winograd convolutions read and write), the
// reorders around every folded or eager convolution that runs in blocks.
//
// Note [Channel-blocked copies run on oar's pool]
// oneDNN's reorder between channels last and 16-channel blocks (jit:uni) took about
// 125 us for a 64 x 56 x 56 activation on the Xeon with AVX-512 (ONEDNN_VERBOSE), and
// ResNet-18's batch-1 forward in the C++ runtime made 37 of them, 2.9 of its 14 ms.
// The copy is 16-float runs from one layout to the other: for every pixel, channels
// [16b, 16b + 16) go to block b. Done here on oar's pool, a pixel range per chunk, it
// moves the same bytes in the same order, so the result is oneDNN's to the bit.
#pragma once

#include <dnnl.hpp>

#include <cstdint>

namespace oar::onednn {

// The channels per block of `d` where it is a float32 layout of 3 to 5 dims with one
// inner block, over the channels (dim 1), else 0; the outer dims at any strides.
int64_t ChannelBlock(const dnnl_memory_desc_t& d);

// Copies `from` into `to` where one is a float32 channel-blocked layout (8 or 16
// channels a block, the channel count a multiple of the block, no padding) and the other
// a float32 strided layout of the same dims whose channels are adjacent (channel stride
// 1). Returns false, copying nothing, for any other pair.
bool CopyChannelBlocks(const dnnl::memory& from, const dnnl::memory& to);

// `from` copied into `to`: CopyChannelBlocks where it applies, else oneDNN's reorder
// on `s`.
void Reorder(const dnnl::memory& from, const dnnl::memory& to, dnnl::stream& s);

}  // namespace oar::onednn
