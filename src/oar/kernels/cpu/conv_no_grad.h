// The eager convolution's forward pass where no graph is recorded.
//
// Note [A convolution without a graph runs folded]
// Under no_grad a convolution's output never reaches a backward pass, so its forward
// pass may take the inference algorithms the C++ runtime's folded convolutions take
// (conv_inference.h): oneDNN's forward_inference kernels with the weight packed once
// (for Winograd's algorithm, transformed once: the training kernel transforms it at
// every call), Winograd's algorithm by the rule for small activations rather than the
// training rule (Note [Winograd's algorithm in the eager convolution] in conv_impl.h,
// which weighs the three passes of a training step), and a batch of one in parts of
// its output channels on oar's pool (Note [A batch of one runs in parts of its output
// channels] in conv_inference.cc). So the float32 2-D convolution of one sample with a
// contiguous weight, with grad mode off, runs as an InferenceConv with no batch norm
// (the weight as it is, a zero bias), reading and writing plain tensors. Eager
// ResNet-18 at batch 1 took 22.6-24.2 ms a call instead of 22.9-26.7 (five alternating
// rounds, Xeon with AVX-512, two threads; 31.2-32.9 instead of 35.5-39.5 held to AVX2):
// alone, 128 channels at 28x28 took 0.61-0.64 ms instead of 0.94-1.06, 256 at 14x14
// 0.73-0.77 instead of 0.94-0.98. A larger batch keeps the ops' passes: at batch 16 the
// plain input and output, reordered to and from oneDNN's blocks at every call (the C++
// runtime holds them blocked between convolutions), made ResNet-18 1.23x slower.
//
// The InferenceConv is kept on the weight's Allocation (a DerivedCopy, beside the packed
// weight: WeightCopyKind in conv_weight_cache.h) under the rules of Note [A
// convolution's weight packed across calls] (conv_weight_cache.h): it is made at the
// second call that finds the weight unchanged (its count of writes, its offset, the
// op's attributes and FLAGS_conv_winograd those of the call before), and never for
// memory written outside oar's ops; calls before it run the ops' passes. Its
// making is the cost: oneDNN's primitives for the whole and its parts, the weight
// copied and packed (Winograd's transform among them). Made anew at every call, one of
// 256 channels at 14x14 took 10.4 ms against the ops' 1.4, 128 at 28x28 3.0 against
// 1.1; so a weight that changes between calls (a policy acting between updates, the
// data gradient of conv_transpose in a backward pass) keeps the ops' passes and their
// cost. The first call's results differ from the later ones' by rounding only, as
// they differ from a call with grad mode on (another algorithm or kernel for some
// shapes; the input channels are summed in the same blocks, Note [Folded convolutions
// sum in blocks where the ops do] in conv_inference.cc). The kept convolution reads
// the weight through a view that does not own its memory, since the weight's
// Allocation owns the convolution: a view that owned the memory would keep both alive
// forever.
#pragma once

#include <cstdint>
#include <vector>

#include "oar/core/dense_tensor.h"

namespace oar::conv_engine {

// Computes conv(x, w) into *out (shaped by the op's InferMeta) as the note says and
// returns true where it applies: grad mode off, float32 x and w on the CPU, a 2-D
// convolution of a contiguous weight in oar's memory, an x of one sample whose elements
// fill its memory, the weight unchanged since the last such call. Where the weight is
// new or changed it remembers the weight and returns false, as where the path does not
// apply: the caller runs the op's passes.
bool NoGradForward(const DenseTensor& x, const DenseTensor& w, const std::vector<int64_t>& strides,
                   const std::vector<int64_t>& paddings, const std::vector<int64_t>& dilations,
                   int64_t groups, DenseTensor* out);

// Whether w's memory keeps an InferenceConv for calls without a graph now (for tests).
bool HoldsNoGradConv(const DenseTensor& w);

}  // namespace oar::conv_engine
