// Writing a convolution weight in the layouts oneDNN's kernels read, where oar does it
// faster than oneDNN's reorder (Note [oar writes a folded convolution's weight layouts]).
// Only kernel files include this header.
#pragma once

#include <dnnl.hpp>

#include <cstdint>

namespace oar::onednn {

// Note [oar writes a folded convolution's weight layouts]
// A folded convolution (Note [Convolutions folded for inference] in conv_inference.h)
// reorders its weight once into the layout of each primitive it makes; the C++ runtime's
// first call of a model and, in eager mode, a no_grad convolution's second call with a
// weight (Note [A convolution without a graph runs folded] in conv_no_grad.h) pay for them.
// oneDNN 2.6 makes two of these slowly:
// - Winograd's algorithm (Note [Winograd's algorithm for small activations]) reads
//   U = G w G^T for every pair of output and input channels. oneDNN's reorder into its
//   Winograd layouts runs one small work item per input channel and block of output
//   channels, each clearing a scratch buffer, and a second pass over a plain [alpha, alpha,
//   I, O] copy. oar writes the three float32 layouts oneDNN 2.6 uses (F(2x2, 3x3): aaOBiOo
//   and aaOio; F(4x4, 3x3): OBaaIBOIio) sixteen output channels of one input channel at a
//   time (the layouts' innermost run), with oneDNN's transform matrices, summed in
//   oneDNN's order. F(2x2, 3x3)'s matrix holds only 0, 1/2 and 1, so its products are
//   exact and the bits are oneDNN's; F(4x4, 3x3)'s products round, and a fused
//   multiply-add where oneDNN's build has none may change the last bit.
// - The direct AVX-512 kernels read 16 x 16 blocks of input by output channels
//   (OIhw16i16o). A batch of one's parts (Note [A batch of one runs in parts of its output
//   channels] in conv_inference.cc) are made on one OpenMP thread, where oneDNN's reorder
//   of a 512-channel 3x3 part took about 3 ms. oar copies the blocks on its pool.
// Both run on oar's pool. test_kernels_conv_weight_layout.cc checks the bytes against
// oneDNN's reorder.

// Writes `from`, a dense float32 [c_out, c_in, kh, kw] (OIHW) weight, into `to` and returns
// true when `to`'s layout is one of the note's (a 3x3 weight for the Winograd ones);
// returns false, writing nothing, otherwise.
bool WriteConvWeight(const dnnl::memory& from, const dnnl::memory& to);

}  // namespace oar::onednn
