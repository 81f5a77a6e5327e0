#include "oar/autograd/tensor_wrapper.h"

#include "oar/autograd/autograd_meta.h"
#include "oar/autograd/eager_utils.h"
#include "oar/core/memory.h"

namespace oar {

void TensorWrapper::Save(const Tensor& tensor, bool no_need_buffer, const char* op,
                         const char* arg) {
  no_need_buffer_ = no_need_buffer;
  op_ = op;
  arg_ = arg;
  if (!tensor.defined()) return;
  defined_ = true;
  if (no_need_buffer) {
    // Only the meta: no memory to check for in-place writes, and no grad node to
    // reconnect (nothing differentiable reads a tensor without data).
    dims_ = tensor.impl()->dims();
    dtype_ = tensor.impl()->dtype();
    name_ = tensor.shared_name();
    return;
  }
  inplace_version_snapshot_ = tensor.current_inplace_version();
  if (HasSavedTensorsHooks()) {
    // Only the meta stays here: the memory may be freed while the graph lives.
    dims_ = tensor.impl()->dims();
    dtype_ = tensor.impl()->dtype();
    unpack_hook_ = CurrentSavedTensorsHooks();
    // The hook sees the data with the tensor's stop_gradient (as in Paddle), on a
    // fresh autograd meta: the tensor's own would let a hook that keeps its argument
    // hold the grad node that holds the packed value (a reference cycle).
    Tensor shown(tensor.impl(), tensor.name());
    const auto* meta = EagerUtils::nullable_autograd_meta(tensor);
    if (meta && !meta->StopGradient()) EagerUtils::autograd_meta(&shown)->SetStopGradient(false);
    packed_value_ = unpack_hook_->pack(shown);
  } else {
    impl_ = tensor.impl();
  }
  name_ = tensor.shared_name();
  if (const auto* meta = EagerUtils::nullable_autograd_meta(tensor)) {
    has_autograd_meta_ = true;
    stop_gradient_ = meta->StopGradient();
    out_rank_info_ = meta->OutRankInfo();
    weak_grad_node_ = meta->GetMutableGradNode();
  }
}

void TensorWrapper::clear() {
  if (defined_ && impl_) {  // the meta stays for graph inspection (Info())
    dims_ = impl_->dims();
    dtype_ = impl_->dtype();
  }
  released_ = defined_;
  defined_ = false;
  impl_.reset();
  packed_value_.reset();
  unpack_hook_.reset();
}

void TensorWrapper::check_inplace_version() const {
  // Sparse tensors are never written in place.
  if (!impl_ || impl_->kind() != TensorKind::kDense) return;
  const uint32_t current = static_cast<const DenseTensor&>(*impl_).current_inplace_version();
  if (current != inplace_version_snapshot_) {
    const std::string n = name_ ? *name_ : std::string();
    throw errors::PreconditionNotMet(
        "a tensor needed for gradient computation has been modified by an inplace operation: "
        "the ",
        (n.empty() ? std::string() : "tensor '" + n + "', "), "input '", arg_, "' of ", op_, " (",
        Describe(), "), is at version ", current, "; it was saved at version ",
        inplace_version_snapshot_,
        ". Compute it out of place, or clone() it before the inplace operation");
  }
}

Tensor TensorWrapper::recover(bool with_grad_meta) const {
  if (!defined_) return Tensor();
  Tensor recovered;
  if (packed_value_ && unpack_hook_) {
    Tensor unpacked = unpack_hook_->unpack(packed_value_);
    OAR_ENFORCE(unpacked.defined() && unpacked.dims() == dims_ && unpacked.dtype() == dtype_,
                errors::InvalidArgument(
                    "the unpack hook of saved_tensors_hooks must return a tensor like the one "
                    "packed (",
                    Describe(), ")"));
    recovered = Tensor(unpacked.impl(), name_);
  } else if (impl_) {
    check_inplace_version();
    recovered = Tensor(impl_, name_);
  } else {
    recovered = Tensor(MakeShared<DenseTensor>(dtype_, dims_), name_);
  }
  if (with_grad_meta && has_autograd_meta_) {
    auto meta = MakeShared<AutogradMeta>();
    meta->SetStopGradient(stop_gradient_);
    meta->SetSingleOutRankWithSlot(out_rank_info_.first, out_rank_info_.second);
    if (auto node = weak_grad_node_.lock()) meta->SetGradNode(node);
    recovered.set_autograd_meta(std::move(meta));
  }
  return recovered;
}

std::string TensorWrapper::Describe() const {
  if (!defined_) return "released";
  return StrCat(dtype(), DimsToString(dims()));
}

namespace {
// What a saved tensor shows for graph inspection from its meta alone: "None" for an
// optional input that was not given, else "float32[2, 3]" (with " (released)").
SavedValueInfo MetaInfo(std::string name, bool defined, bool released, bool meta_only, DType dtype,
                        const DDim& dims) {
  SavedValueInfo info;
  info.name = std::move(name);
  info.is_tensor = true;
  info.released = released;
  info.meta_only = meta_only;
  if (!defined && !released) {
    info.value = "None";
    return info;
  }
  info.dims = dims;
  info.dtype = dtype;
  info.value = StrCat(dtype, DimsToString(dims), released ? " (released)" : "");
  return info;
}
}  // namespace

SavedValueInfo TensorWrapper::Info(std::string name) const {
  SavedValueInfo info =
      MetaInfo(std::move(name), defined_, released_, no_need_buffer_, dtype(), dims());
  const auto* dense = impl_ && impl_->kind() == TensorKind::kDense
                          ? static_cast<const DenseTensor*>(impl_.get())
                          : nullptr;
  if (dense && dense->Holder()) {
    info.bytes = static_cast<int64_t>(dense->Holder()->size());
    info.storage = dense->Holder().get();
  }
  return info;
}

Tensor SlotMetaTensor(const GradSlotMeta& meta) {
  if (!meta.HasTensorMeta()) return Tensor();
  return Tensor(MakeShared<DenseTensor>(meta.dtype(), meta.dims()));
}

SavedValueInfo SlotMetaInfo(std::string name, const GradSlotMeta& meta, bool released) {
  const bool defined = meta.HasTensorMeta();
  return MetaInfo(std::move(name), defined && !released, defined && released,
                  /*meta_only=*/true, meta.dtype(), meta.dims());
}

}  // namespace oar
