// Autograd information of a tensor (the seeds' AutogradMeta): its gradient,
// the grad node that produced it and which output of that node it is,
// stop_gradient and retain_grads.
#pragma once

#include <memory>
#include <utility>

#include "oar/autograd/edge.h"
#include "oar/core/tensor.h"

namespace oar {

class GradNodeBase;

class AutogradMeta : public AbstractAutogradMeta {
 public:
  explicit AutogradMeta(const Edge& edge = Edge())
      : grad_node_(edge.GetMutableGradNode()),
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

  void SetGradNode(const std::shared_ptr<GradNodeBase>& grad_node) { grad_node_ = grad_node; }
  const std::shared_ptr<GradNodeBase>& GetMutableGradNode() const { return grad_node_; }
  GradNodeBase* GradNode() const { return grad_node_.get(); }
  void ResetGradNode() { grad_node_.reset(); }

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
  size_t out_slot_id_ = 0;
  size_t out_rank_ = 0;
  int stop_gradient_ = -1;
  bool persistable_ = false;
  bool retain_grads_ = false;
  bool is_view_ = false;
};

}  // namespace oar
