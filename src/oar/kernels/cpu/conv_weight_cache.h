// The eager convolution's weight, packed once into oneDNN's layout and kept
// beside the weight's memory while the weight does not change.
//
// Note [A convolution's weight packed across calls]
// oneDNN's convolution reads its weight in a blocked layout of its own, so the
// eager forward pass reorders the plain weight at every call. At batch 1 that
// reorder is a large part of the call: ResNet-18's 512->512 3x3 weight is
// 9.4 MB, read and written once more than the convolution itself reads it,
// and the model's 44.7 MB of weights go through it at every inference. So the
// forward pass keeps the packed copy on the weight's Allocation (a
// DerivedCopy, freed with the memory) and reads it again while
//   - the memory has not been written in place since: its count of writes
//     (InplaceVersion::Writes, which every in-place op, optimizer step,
//     set_value and state-dict load bumps, and which never resets) is the one
//     the copy was made at;
//   - the call asks for the same view (offset) in the same plain and packed
//     layouts;
//   - nothing outside oar's ops can write the memory
//     (Allocation::shared_outside: foreign memory, and blocks handed out
//     writable to numpy or DLPack, are never kept).
// A copy is kept only at the second call that finds the weight unchanged, so
// a training step, which writes each weight once, keeps none and its peak
// memory stays as it was; repeated inference keeps one packed copy per weight.
// A write through a raw pointer (C++ data(), or ctypes at a data_ptr()) is not
// seen: such code must bump the tensor's version, as saved tensors already
// require (Note [TensorWrapper lifetimes] in autograd/tensor_wrapper.h).
// A forward pass that sums its input channels in blocks (Note [The forward
// convolution sums in blocks] in conv_impl.h) runs one convolution per block, each
// reading its block of the weight in its own packed layout: those parts are kept
// together, as one copy, under the same rules.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <dnnl.hpp>

#include "oar/core/dense_tensor.h"

namespace oar::conv_engine {

// The weight w, whose plain layout `user` describes (over w's memory), in the
// layout `want`: user itself when that is it, else a packed copy, from w's
// Allocation when it is current (see the note). Reorders on s otherwise.
dnnl::memory PackedWeight(const DenseTensor& w, const dnnl::memory& user,
                          const dnnl::memory::desc& want, dnnl::stream& s);

// One part of a weight packed on its own: the view `view` of w's memory from byte
// `offset` of w's data, in the layout `want`.
struct WeightPart {
  dnnl::memory::desc view, want;
  int64_t offset = 0;
  bool operator==(const WeightPart&) const = default;
};

// Each part of w in its layout, as PackedWeight gives one (see the note).
std::vector<dnnl::memory> PackedWeightParts(const DenseTensor& w,
                                            const std::vector<WeightPart>& parts, dnnl::stream& s);

// Whether w's memory holds a packed copy now (for tests).
bool HoldsPackedWeight(const DenseTensor& w);

// What a weight's memory keeps, one of each kind side by side, so that the eager
// passes' packed weight and the folded convolution of calls without a graph (Note [A
// convolution without a graph runs folded] in conv_no_grad.h) never evict each other.
enum class WeightCopyKind { kPacked, kNoGradConv };
inline constexpr int kWeightCopyKinds = 2;
// The copy of `kind` block keeps (null: none).
std::shared_ptr<const DerivedCopy> HeldCopy(const Allocation& block, WeightCopyKind kind);
// Keeps `copy` as block's copy of `kind`, the other kinds' as they are. Two threads
// keeping copies at once may leave one of them unkept: a later call makes it again.
void Hold(Allocation& block, WeightCopyKind kind, std::shared_ptr<const DerivedCopy> copy);

}  // namespace oar::conv_engine
