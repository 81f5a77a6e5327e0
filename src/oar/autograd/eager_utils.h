// Paddle's EagerUtils (docs/design.md §4): the small steps every dygraph
// function and the engine use to read and write autograd metadata.
#pragma once

#include <memory>
#include <vector>

#include "oar/autograd/autograd_meta.h"
#include "oar/autograd/grad_node.h"
#include "oar/core/memory.h"

namespace oar {

class EagerUtils {
 public:
  static AutogradMeta* nullable_autograd_meta(const Tensor& target) {
    return static_cast<AutogradMeta*>(target.get_autograd_meta());
  }
  // Creates the metadata if the tensor has none.
  static AutogradMeta* autograd_meta(Tensor* target) {
    if (!target->get_autograd_meta()) target->set_autograd_meta(MakeShared<AutogradMeta>());
    return static_cast<AutogradMeta*>(target->get_autograd_meta());
  }
  static std::vector<AutogradMeta*> nullable_autograd_meta(const std::vector<Tensor>& targets) {
    std::vector<AutogradMeta*> metas;
    metas.reserve(targets.size());
    for (const auto& t : targets) metas.push_back(nullable_autograd_meta(t));
    return metas;
  }
  // Throws if the tensor has no metadata.
  static AutogradMeta* unsafe_autograd_meta(const Tensor& target);

  // Whether an op must record a grad node: grad mode is on and some input
  // needs a gradient.
  static bool ComputeRequireGrad(bool) { return false; }
  template <typename... Rest>
  static bool ComputeRequireGrad(bool trace_backward, const AutogradMeta* meta, Rest... rest) {
    if (!trace_backward) return false;
    if (meta && !meta->StopGradient()) return true;
    return ComputeRequireGrad(trace_backward, rest...);
  }
  template <typename... Rest>
  static bool ComputeRequireGrad(bool trace_backward, const std::vector<AutogradMeta*>& metas,
                                 Rest... rest) {
    if (!trace_backward) return false;
    for (const auto* m : metas) {
      if (m && !m->StopGradient()) return true;
    }
    return ComputeRequireGrad(trace_backward, rest...);
  }

  static void PassStopGradient(bool generate_grad, AutogradMeta* meta) {
    if (meta) meta->SetStopGradient(generate_grad);
  }
  static void SetOutRankWithSlot(AutogradMeta* meta, size_t slot_id) {
    meta->SetSingleOutRankWithSlot(slot_id, 0);
  }
  static void SetOutRankWithSlot(std::vector<AutogradMeta*>* metas, size_t slot_id) {
    for (size_t i = 0; i < metas->size(); ++i) (*metas)[i]->SetSingleOutRankWithSlot(slot_id, i);
  }
  static void SetHistory(AutogradMeta* meta, const std::shared_ptr<GradNodeBase>& grad_node) {
    meta->SetGradNode(grad_node);
  }
  static void SetHistory(AutogradMeta* meta, std::shared_ptr<GradNodeBase>&& grad_node) {
    meta->SetGradNode(std::move(grad_node));
  }

  // A leaf has no grad node or only its accumulation node.
  static bool IsLeafTensor(const Tensor& target) {
    const auto* meta = nullable_autograd_meta(target);
    return !meta || !meta->GradNode() || meta->GradNode()->IsAccumulationNode();
  }
  // In-place writes to x are refused while they would corrupt the graph: x is
  // a leaf that needs a gradient, or a view of a tensor that does.
  static void CheckInplace(const Tensor& x, const char* op);

  // The accumulation node of a leaf that needs a gradient, created on demand.
  static std::shared_ptr<GradNodeBase> GetGradAccumulationNode(const Tensor& tensor);
};

}  // namespace oar
