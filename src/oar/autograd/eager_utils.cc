#include "oar/autograd/eager_utils.h"

#include "oar/autograd/accumulation_node.h"

namespace oar {

AutogradMeta* EagerUtils::unsafe_autograd_meta(const Tensor& target) {
  auto* meta = nullable_autograd_meta(target);
  OAR_ENFORCE_NOT_NULL(meta, errors::Fatal("the tensor has no autograd metadata"));
  return meta;
}

void EagerUtils::CheckInplace(const Tensor& x, const char* op) {
  const auto* meta = nullable_autograd_meta(x);
  if (!meta || meta->StopGradient()) return;
  if (IsLeafTensor(x)) {
    throw errors::PreconditionNotMet(
        op,
        "(): 'x' is a leaf tensor that requires grad (stop_gradient=False); it cannot be "
        "modified in place while grad mode is on. Update it under no_grad(), or work on a copy");
  }
  if (meta->IsView()) {
    throw errors::PreconditionNotMet(
        op,
        "(): 'x' is a view (from reshape, transpose, slice, ...) of a tensor that requires "
        "grad; an in-place write would change that tensor behind the backward graph. Use the "
        "out-of-place op, or clone() the view first");
  }
}

std::shared_ptr<GradNodeBase> EagerUtils::GetGradAccumulationNode(const Tensor& tensor) {
  auto* meta = nullable_autograd_meta(tensor);
  if (!meta || meta->StopGradient()) return nullptr;
  const auto& node =
      meta->GradNodeOrMake([&] { return MakeShared<GradNodeAccumulation>(tensor, meta); });
  if (!node->IsAccumulationNode()) return nullptr;
  return node;
}

}  // namespace oar
