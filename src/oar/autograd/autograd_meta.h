// Autograd information of a tensor (Paddle's AutogradMeta, docs/design.md §4):
// its gradient, the grad node that produced it and which output of that node
// it is, stop_gradient and retain_grads.
//
// Note [Publishing a leaf's accumulation node]
// A leaf that needs a gradient gets its GradNodeAccumulation the first time an
// op records it as an input, and threads that share a model may do that at
// the same moment. Two nodes for one leaf would each hold half of its
// gradient, and a shared_ptr overwritten while another thread copies it is a
// use-after-free. So the node is created under `mutex_`, and `grad_node_` is
// published through the atomic `published_node_`: readers that see it
// non-null (acquire) also see the finished shared_ptr, readers that see null
// never touch it. After publication grad_node_ changes only in ways a single
// owner does (an in-place op re-parenting a non-leaf), never concurrently.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <utility>

#include "oar/autograd/edge.h"
#include "oar/core/tensor.h"

namespace oar {

class GradNodeBase;

class AutogradMeta : public AbstractAutogradMeta {
 public:
  explicit AutogradMeta(const Edge& edge = Edge())
      : grad_node_(edge.GetMutableGradNode()),
        published_node_(grad_node_.get()),
        out_slot_id_(edge.GetEdgeRankInfo().first),
        out_rank_(edge.GetEdgeRankInfo().second) {}
  ~AutogradMeta() override = default;

  // The stored gradient (undefined until a backward writes one).
  const Tensor& Grad() const {
    static const Tensor kEmpty;
    return grad_ ? *grad_ : kEmpty;
  }
  Tensor* MutableGrad() { return GradHolder().get(); }
  std::weak_ptr<Tensor> WeakGrad() { return GradHolder(); }

  void SetGradNode(const std::shared_ptr<GradNodeBase>& grad_node) {
    grad_node_ = grad_node;
    published_node_.store(grad_node_.get(), std::memory_order_release);
  }
  const std::shared_ptr<GradNodeBase>& GetMutableGradNode() const {
    static const std::shared_ptr<GradNodeBase> kNone;
    return published_node_.load(std::memory_order_acquire) ? grad_node_ : kNone;
  }
  GradNodeBase* GradNode() const { return published_node_.load(std::memory_order_acquire); }
  void ResetGradNode() {
    published_node_.store(nullptr, std::memory_order_release);
    grad_node_.reset();
  }
  // The grad node, or one made by make() if there is none yet: safe when
  // several threads ask at once (Note [Publishing a leaf's accumulation node]).
  template <typename Make>
  const std::shared_ptr<GradNodeBase>& GradNodeOrMake(Make make) {
    if (published_node_.load(std::memory_order_acquire)) return grad_node_;
    std::lock_guard<std::mutex> lock(mutex_);
    if (!published_node_.load(std::memory_order_relaxed)) SetGradNode(make());
    return grad_node_;
  }

  void SetSingleOutRankWithSlot(size_t slot_id, size_t rank) {
    out_slot_id_ = slot_id;
    out_rank_ = rank;
  }
  std::pair<size_t, size_t> OutRankInfo() const { return {out_slot_id_, out_rank_}; }
  bool IsInitialized() const { return grad_node_ != nullptr; }

  // -1 (unset) counts as stopped: tensors do not need gradients by default.
  bool StopGradient() const { return stop_gradient_ != 0; }
  int NumericStopGradient() const { return stop_gradient_; }
  void SetStopGradient(bool stop_gradient) { stop_gradient_ = stop_gradient ? 1 : 0; }

  bool Persistable() const { return persistable_; }
  void SetPersistable(bool persistable) { persistable_ = persistable; }
  bool RetainGrads() const { return retain_grads_; }
  void SetRetainGrads(bool value) { retain_grads_ = value; }
  // The tensor shares memory with another tensor through a view op, so an
  // in-place write to it would change that tensor behind the graph's back.
  bool IsView() const { return is_view_; }
  void SetIsView(bool value) { is_view_ = value; }

 private:
  const std::shared_ptr<Tensor>& GradHolder() {
    if (!grad_) grad_ = std::make_shared<Tensor>();
    return grad_;
  }

  std::shared_ptr<Tensor> grad_;
  std::shared_ptr<GradNodeBase> grad_node_;
  std::atomic<GradNodeBase*> published_node_{nullptr};
  std::mutex mutex_;  // guards the creation of grad_node_ for leaves
  size_t out_slot_id_ = 0;
  size_t out_rank_ = 0;
  int stop_gradient_ = -1;
  bool persistable_ = false;
  bool retain_grads_ = false;
  bool is_view_ = false;
};

}  // namespace oar
