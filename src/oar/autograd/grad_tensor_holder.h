// The buffer where a node's incoming gradients are summed before it runs.
#pragma once

#include "oar/autograd/grad_node.h"

namespace oar {

class GradTensorHolder {
 public:
  GradTensorHolder() = default;
  // One slot per meta slot, one rank per tensor of the slot.
  explicit GradTensorHolder(const SlotMetas& metas) { SizeFor(metas); }
  // The same for an empty holder, in place (a GradSlots is moved tensor by tensor).
  void SizeFor(const SlotMetas& metas);

  // Adds t into buffer[slot_id][rank] (recorded when create_graph); the first gradient
  // of a rank is kept as is, moved in when given as an rvalue.
  void add(size_t slot_id, size_t rank, Tensor t, bool create_graph = false);
  // Sets buffer[slot_id][rank] to t, or to ones shaped like t (the backward seed).
  void CopyValueFromTensor(size_t slot_id, size_t rank, const Tensor& t, bool fill_one = false);
  GradSlots& Buffers() { return buffer_; }
  const SmallVector<Tensor, 1>& operator[](size_t pos) const { return buffer_[pos]; }

 private:
  void CheckIndex(size_t slot_id, size_t rank) const {
    if (slot_id >= buffer_.size() || rank >= buffer_[slot_id].size()) [[unlikely]]
      ThrowIndexOutOfRange(slot_id, rank);
  }
  [[noreturn, gnu::cold, gnu::noinline]] void ThrowIndexOutOfRange(size_t slot_id,
                                                                   size_t rank) const;
  GradSlots buffer_;
};

}  // namespace oar
