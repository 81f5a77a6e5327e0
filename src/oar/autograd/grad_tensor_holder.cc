#include "oar/autograd/grad_tensor_holder.h"

#include "oar/api/api.h"
#include "oar/autograd/accumulate.h"

namespace oar {

void GradTensorHolder::SizeFor(const SlotMetas& metas) {
  buffer_.resize(metas.size());
  for (size_t i = 0; i < metas.size(); ++i) buffer_[i].resize(metas[i].size());
}

void GradTensorHolder::ThrowIndexOutOfRange(size_t slot_id, size_t rank) const {
  throw errors::Fatal("gradient buffer index (", slot_id, ", ", rank,
                      ") is out of range for a node with ", buffer_.size(), " slots");
}

void GradTensorHolder::add(size_t slot_id, size_t rank, Tensor t, bool create_graph) {
  CheckIndex(slot_id, rank);
  Tensor& buf = buffer_[slot_id][rank];
  if (!buf.defined()) {
    buf = std::move(t);  // shared: nodes never write into their input gradients
  } else if (!create_graph && t.is_dense() && IsSoleOwner(buf) && buf.dims() == t.dims() &&
             buf.dtype() == t.dtype()) {
    api::add_(buf, t);  // nobody else sees this buffer: sum in place, no allocation
  } else {
    buf = AccumulateGrad(buf, t, create_graph);
  }
}

void GradTensorHolder::CopyValueFromTensor(size_t slot_id, size_t rank, const Tensor& t,
                                           bool fill_one) {
  CheckIndex(slot_id, rank);
  buffer_[slot_id][rank] = fill_one ? OnesLike(t) : t;
}

}  // namespace oar
