// The grad node of a leaf tensor that needs a gradient: it adds what arrives
// into the leaf's .grad, then runs the leaf's reduce hooks. One leaf has one
// such node (Note [Publishing a leaf's accumulation node]), and the engine
// runs it under its mutex (Note [Thread safety of grad nodes]), so
// concurrent backward passes into a shared parameter sum exactly.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "oar/autograd/grad_node.h"

namespace oar {

class AutogradMeta;
using VoidHook = std::function<void()>;

class GradNodeAccumulation final : public GradNodeBase {
 public:
  // `leaf` is the tensor whose meta is `meta`; the node refers to it weakly
  // (the leaf owns the node), for Variable().
  GradNodeAccumulation(const Tensor& leaf, AutogradMeta* meta);

  GradSlots operator()(GradSlots& grads, bool create_graph = false,
                       bool is_new_grad = false) override;
  void ClearTensorWrappers() override {}
  std::string name() const override { return "GradNodeAccumulation"; }
  const char* forward_op() const override { return "leaf accumulation"; }
  bool IsAccumulationNode() const override { return true; }

  // Runs after the leaf's .grad has been updated (Paddle's reduce hooks;
  // Note [Hook order] in grad_node.h).
  int64_t RegisterReduceHook(VoidHook hook);
  bool RemoveReduceHook(int64_t id);
  // The leaf's gradient storage (null if the leaf is gone).
  std::shared_ptr<Tensor> Grad() const { return weak_grad_.lock(); }
  // The leaf this node accumulates into (PyTorch's AccumulateGrad.variable):
  // its data, name and autograd meta, or an undefined tensor once it is gone.
  Tensor Variable() const;
  size_t ReduceHookCount() const { return reduce_hooks_.size(); }

 private:
  std::weak_ptr<Tensor> weak_grad_;
  std::weak_ptr<TensorBase> weak_leaf_impl_;
  std::weak_ptr<AbstractAutogradMeta> weak_leaf_meta_;
  std::string leaf_name_;
  std::vector<std::pair<int64_t, VoidHook>> reduce_hooks_;
  int64_t next_reduce_hook_id_ = 0;
};

// A hook that runs after the leaf's .grad was updated by a backward (Paddle's
// reduce hook, used e.g. to start a gradient all-reduce). Returns its id.
int64_t RegisterLeafGradAccumulatedHook(const Tensor& leaf, VoidHook hook);
bool RemoveLeafGradAccumulatedHook(const Tensor& leaf, int64_t id);

}  // namespace oar
