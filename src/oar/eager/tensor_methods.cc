// The autograd methods of Tensor (declared in core/tensor.h so that
// `loss.backward()` reads naturally; defined here, above the autograd layer).
#include "oar/api/api.h"
#include "oar/autograd/accumulate.h"
#include "oar/autograd/backward.h"
#include "oar/autograd/eager_utils.h"
#include "oar/core/grad_mode.h"

namespace oar {

void Tensor::backward(const Tensor& grad_tensor, bool retain_graph) const {
  Backward({*this}, {grad_tensor}, retain_graph);
}

Tensor Tensor::grad() const {
  const auto* meta = EagerUtils::nullable_autograd_meta(*this);
  return meta ? meta->Grad() : Tensor();
}

bool Tensor::stop_gradient() const {
  const auto* meta = EagerUtils::nullable_autograd_meta(*this);
  return !meta || meta->StopGradient();
}

void Tensor::set_stop_gradient(bool stop_gradient) {
  EagerUtils::autograd_meta(this)->SetStopGradient(stop_gradient);
}

bool Tensor::is_leaf() const { return EagerUtils::IsLeafTensor(*this); }

void Tensor::retain_grads() const {
  auto* meta = EagerUtils::nullable_autograd_meta(*this);
  if (!meta || meta->StopGradient() || is_leaf()) return;  // leaves always keep .grad
  meta->SetRetainGrads(true);
  const auto [slot, rank] = meta->OutRankInfo();
  meta->GradNode()->RegisterRetainGrad(slot, rank, meta->WeakGrad());
}

void Tensor::clear_grad(bool set_to_zero) const {
  auto* meta = EagerUtils::nullable_autograd_meta(*this);
  if (!meta) return;
  if (meta->ZerosPending()) {
    if (!set_to_zero && meta->TakePendingZeros()) meta->MutableGrad()->reset();
    return;
  }
  if (!meta->Grad().defined()) return;
  Tensor* g = meta->MutableGrad();
  // a gradient with no history of its own (a leaf, as Python's .grad is) is zeroed in
  // place; one from create_graph=True is part of a graph and is replaced instead
  const bool plain = g->get_autograd_meta() == nullptr || g->is_leaf();
  if (!set_to_zero) {
    g->reset();
  } else if (plain && is_leaf() && IsSoleOwner(*g)) {
    meta->SetPendingZeros(g->place());  // Note [A cleared gradient is zeroed when read]
  } else if (plain && g->is_contiguous()) {
    NoGradGuard no_grad;
    api::fill_(*g, 0.0);
  } else {
    *g = api::full_like(*g, 0.0, g->dtype());
  }
}

HookHandle Tensor::register_hook(TensorHook hook) const {
  auto* meta = EagerUtils::nullable_autograd_meta(*this);
  if (!meta || meta->StopGradient()) {
    throw errors::PreconditionNotMet(
        "register_hook(): cannot register a hook on a tensor with stop_gradient=True: no "
        "gradient flows into it");
  }
  std::shared_ptr<GradNodeBase> node = meta->GetMutableGradNode();
  if (!node) node = EagerUtils::GetGradAccumulationNode(*this);
  const auto [slot, rank] = meta->OutRankInfo();
  const int64_t id =
      node->RegisterGradientHook(slot, rank, std::make_shared<TensorHook>(std::move(hook)));
  return HookHandle(node, id);
}

bool HookHandle::remove() {
  auto node = node_.lock();
  return node && node->RemoveGradientHook(id_);
}

Tensor Tensor::detach() const { return Tensor(impl_, name_); }

std::shared_ptr<GradNodeBase> Tensor::grad_fn() const {
  const auto* meta = EagerUtils::nullable_autograd_meta(*this);
  if (!meta || !meta->GradNode() || meta->GradNode()->IsAccumulationNode()) return nullptr;
  return meta->GetMutableGradNode();
}

}  // namespace oar
