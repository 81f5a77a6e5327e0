#include "oar/autograd/grad_tensor_holder.h"

#include "oar/autograd/accumulate.h"
#include "oar/core/profiler/record_event.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {

namespace {

// Note [A gradient is summed into its buffer by the add kernel]
// A node's second and later gradients of one input are summed into the first, in
// place, when nobody else sees that buffer (IsSoleOwner: one handle, sole owner of its
// memory, contiguous) and the two agree in shape, dtype and place. Then none of the
// checks of the API's add_ can fail (the inputs are defined dense tensors of the
// kernel's dtype, the target is neither expanded nor read by the other operand, whose
// memory is another block) and no one can observe the target's version, so the kernel
// runs directly. The API's path cost more than the kernel for small tensors: on a
// chain of one-element products, 683 instructions of the 861 that each summed
// gradient took. The span is the one api::add_ records, so profiles keep their name.
void SumInto(DenseTensor* buf, const DenseTensor& t) {
  static const KernelTable& table = KernelFactory::Instance().Table("add");
  const KernelKey key{BackendOf(buf->place()), DataLayout::kAny, buf->dtype()};
  const KernelResult kernel = table.SelectKernelOrThrowError(key);
  const DeviceContext& dev_ctx = GetDeviceContextByBackend(kernel.RunsOn(key.backend));
  using Signature =
      void (*)(const DeviceContext&, const DenseTensor&, const DenseTensor&, DenseTensor*);
  auto* fn = kernel.kernel.GetVariadicKernelFn<Signature>();
  profiler::RecordEvent event(profiler::StaticName("add_ kernel"), profiler::EventKind::kKernel);
  (*fn)(dev_ctx, *buf, t, buf);
}

}  // namespace

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
  } else if (!create_graph && t.is_dense() && t.initialized() && buf.initialized() &&
             IsSoleOwner(buf) && buf.dims() == t.dims() && buf.dtype() == t.dtype() &&
             buf.place() == t.place()) {
    // Note [A gradient is summed into its buffer by the add kernel]
    SumInto(&buf.dense(), t.dense());
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
