#include "oar/autograd/accumulation_node.h"

#include "oar/autograd/accumulate.h"
#include "oar/autograd/autograd_meta.h"
#include "oar/autograd/eager_utils.h"

namespace oar {

GradNodeAccumulation::GradNodeAccumulation(const Tensor& leaf, AutogradMeta* meta)
    : GradNodeBase(1, 1),
      weak_grad_(meta->WeakGrad()),
      weak_leaf_impl_(leaf.impl()),
      weak_leaf_meta_(leaf.mutable_autograd_meta()),
      leaf_name_(leaf.name()) {
  SetDefaultGradInOutMeta();
}

Tensor GradNodeAccumulation::Variable() const {
  auto impl = weak_leaf_impl_.lock();
  auto meta = weak_leaf_meta_.lock();
  if (!impl || !meta) return Tensor();
  Tensor t(std::move(impl), leaf_name_);
  t.set_autograd_meta(std::move(meta));
  return t;
}

GradSlots GradNodeAccumulation::operator()(GradSlots& grads, bool create_graph, bool) {
  if (!grads.empty() && !grads[0].empty() && grads[0][0].defined()) {
    if (auto grad = weak_grad_.lock()) {
      // Note [A cleared gradient is zeroed when read]: pending zeros add nothing (with
      // create_graph the sum is recorded, so they are made and added as before).
      bool zeros = false;
      if (auto meta = std::static_pointer_cast<AutogradMeta>(weak_leaf_meta_.lock())) {
        if (create_graph) {
          meta->Grad();
        } else {
          zeros = meta->TakePendingZeros();
        }
      }
      *grad = AccumulateGrad(zeros ? Tensor() : *grad, grads[0][0], create_graph);
    }
  }
  for (auto& [id, hook] : reduce_hooks_) hook();
  return {};
}

int64_t GradNodeAccumulation::RegisterReduceHook(VoidHook hook) {
  reduce_hooks_.emplace_back(next_reduce_hook_id_, std::move(hook));
  return next_reduce_hook_id_++;
}

bool GradNodeAccumulation::RemoveReduceHook(int64_t id) {
  for (auto it = reduce_hooks_.begin(); it != reduce_hooks_.end(); ++it) {
    if (it->first == id) {
      reduce_hooks_.erase(it);
      return true;
    }
  }
  return false;
}

namespace {
GradNodeAccumulation* AccumulationNodeOf(const Tensor& leaf, const char* api) {
  auto node = EagerUtils::GetGradAccumulationNode(leaf);
  if (!node) {
    throw errors::PreconditionNotMet(api,
                                     "(): the tensor must be a leaf that requires grad "
                                     "(stop_gradient=False)");
  }
  return static_cast<GradNodeAccumulation*>(node.get());
}
}  // namespace

int64_t RegisterLeafGradAccumulatedHook(const Tensor& leaf, VoidHook hook) {
  return AccumulationNodeOf(leaf, "register_grad_accumulated_hook")
      ->RegisterReduceHook(std::move(hook));
}

bool RemoveLeafGradAccumulatedHook(const Tensor& leaf, int64_t id) {
  return AccumulationNodeOf(leaf, "remove_grad_accumulated_hook")->RemoveReduceHook(id);
}

}  // namespace oar
