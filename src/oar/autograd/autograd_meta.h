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
//
// Note [A cleared gradient is zeroed when read]
// clear_grad(set_to_zero=True), Paddle's default and what its optimizers' clear_grad()
// do after every step, promises zeros in .grad until the next backward adds to them.
// Filling every parameter's gradient with zeros and then adding the next gradient onto
// them is two passes over the memory of all parameters, where PyTorch's zero_grad()
// (set_to_none) makes none. For the 11.4 M parameters of the LSTM language model in
// benchmarks/models.py, clear_grad took 1.5 ms of a 201-203 ms step, which took 3.5-6.5
// ms less without the fill and the adds (three runs each), and the zeros kept 45 MB
// resident between steps (the row's peak RSS went from 371 to 284 MiB). When nothing
// else shares the gradient's memory (IsSoleOwner: no Python handle, no view, no NumPy
// array), nothing can tell the zeros are not there yet. So clear_grad drops that memory
// and leaves the gradient's shape, dtype and metadata with a mark: reading the gradient
// (Grad(), MutableGrad()) makes the zeros then, and the leaf's accumulation node takes
// the mark off and stores the incoming gradient as a first backward does, without an add
// (TakePendingZeros). Only a leaf's gradient without history of its own gets the mark:
// nothing but its accumulation node writes it without reading it first.
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

  // The stored gradient (undefined until a backward writes one), its zeros made first
  // if they are pending (Note [A cleared gradient is zeroed when read]).
  const Tensor& Grad() const {
    static const Tensor kEmpty;
    if (!grad_) return kEmpty;
    if (ZerosPending()) FillPendingZeros();
    return *grad_;
  }
  Tensor* MutableGrad() {
    Tensor* g = GradHolder().get();
    if (ZerosPending()) FillPendingZeros();
    return g;
  }
  // The holder itself, zeros pending or not: for the nodes that store into it.
  std::weak_ptr<Tensor> WeakGrad() { return GradHolder(); }

  // Note [A cleared gradient is zeroed when read]. The caller checked that the stored
  // gradient is a dense tensor on `place` whose memory nothing else shares.
  void SetPendingZeros(const Place& place);
  bool ZerosPending() const { return zeros_pending_.load(std::memory_order_acquire); }
  // Whether zeros were pending; they are not any more, and the caller overwrites the
  // stored gradient.
  bool TakePendingZeros() { return zeros_pending_.exchange(false, std::memory_order_acq_rel); }

  void SetGradNode(const std::shared_ptr<GradNodeBase>& grad_node) {
    grad_node_ = grad_node;
    published_node_.store(grad_node_.get(), std::memory_order_release);
  }
  void SetGradNode(std::shared_ptr<GradNodeBase>&& grad_node) {
    grad_node_ = std::move(grad_node);
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
  void FillPendingZeros() const;

  std::shared_ptr<Tensor> grad_;
  std::shared_ptr<GradNodeBase> grad_node_;
  std::atomic<GradNodeBase*> published_node_{nullptr};
  // guards the creation of grad_node_ for leaves, and the filling of pending zeros
  mutable std::mutex mutex_;
  mutable std::atomic<bool> zeros_pending_{false};
  Place zeros_place_;
  size_t out_slot_id_ = 0;
  size_t out_rank_ = 0;
  int stop_gradient_ = -1;
  bool persistable_ = false;
  bool retain_grads_ = false;
  bool is_view_ = false;
};

}  // namespace oar
