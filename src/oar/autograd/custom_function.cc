#include "oar/autograd/custom_function.h"

#include "oar/api/api.h"
#include "oar/autograd/eager_utils.h"
#include "oar/core/grad_mode.h"

namespace oar {

void FunctionContext::save_for_backward(std::vector<Tensor> tensors) {
  to_save_ = std::move(tensors);
}

std::vector<Tensor> FunctionContext::saved_tensors() const {
  if (released_) {
    throw errors::PreconditionNotMet(
        "saved_tensors(): the tensors saved for backward have been freed by an earlier "
        "backward; trying to backward through the graph a second time. Specify "
        "retain_graph=True the first time");
  }
  if (saved_.empty()) return to_save_;  // called inside forward
  std::vector<Tensor> out;
  out.reserve(saved_.size());
  for (const auto& w : saved_) out.push_back(w.recover(create_graph_));
  return out;
}

void FunctionContext::mark_non_differentiable(const std::vector<Tensor>& outputs) {
  for (const auto& t : outputs) {
    if (t.defined()) non_differentiable_.push_back(t.impl().get());
  }
}

bool FunctionContext::needs_input_grad(size_t i) const {
  return i < needs_input_grad_.size() && needs_input_grad_[i];
}

class CustomGradNode final : public GradNodeBase {
 public:
  CustomGradNode(std::string name, size_t n_out, size_t n_in, std::shared_ptr<FunctionContext> ctx,
                 CustomBackward backward)
      : GradNodeBase(n_out, n_in),
        name_(std::move(name)),
        ctx_(std::move(ctx)),
        backward_(std::move(backward)) {}

  GradSlots operator()(GradSlots& grads, bool create_graph, bool) override {
    // The user's backward receives one gradient per output; missing ones are zeros
    // (or undefined without materialize_grads).
    std::vector<Tensor> grad_outputs;
    for (size_t i = 0; i < grads.size(); ++i) {
      const Tensor g = grads[i].empty() ? Tensor() : grads[i][0];
      const GradSlotMeta& m = bwd_in_meta_[i][0];
      if (!g.defined()) {
        grad_outputs.push_back(
            ctx_->materialize_grads_ ? api::full(Vectorize(m.dims()), 0.0, m.dtype()) : Tensor());
      } else if (ctx_->grad_in_dtype_consistent_ && m.HasTensorMeta() && g.dtype() != m.dtype()) {
        grad_outputs.push_back(api::cast(g, m.dtype()));
      } else {
        grad_outputs.push_back(g);
      }
    }
    ctx_->create_graph_ = create_graph;
    ctx_->needs_input_grad_.assign(bwd_out_meta_.size(), false);
    for (size_t i = 0; i < bwd_out_meta_.size(); ++i) {
      ctx_->needs_input_grad_[i] = NeedsGrad(bwd_out_meta_, i);
    }
    std::vector<Tensor> in_grads = backward_(*ctx_, grad_outputs);
    if (in_grads.size() != bwd_out_meta_.size()) {
      throw errors::InvalidArgument(name_, ".backward() returned ", in_grads.size(),
                                    " gradients, but forward received ", bwd_out_meta_.size(),
                                    " tensor inputs: return one gradient (or None) per input");
    }
    GradSlots out(in_grads.size());
    for (size_t i = 0; i < in_grads.size(); ++i) {
      const Tensor& g = in_grads[i];
      if (!g.defined() || !NeedsGrad(bwd_out_meta_, i)) continue;
      const GradSlotMeta& m = bwd_out_meta_[i][0];
      if (m.HasTensorMeta() && g.dims() != m.dims()) {
        throw errors::InvalidArgument(name_, ".backward() returned a gradient of shape ",
                                      DimsToString(g.dims()), " for input ", i, ", whose shape is ",
                                      DimsToString(m.dims()));
      }
      out[i].push_back(g);
    }
    return out;
  }

  void ClearTensorWrappers() override {
    for (auto& w : ctx_->saved_) w.clear();  // the meta stays for SavedValues()
    ctx_->released_ = true;
    SetIsTensorWrappersCleared(true);
  }
  std::string name() const override { return name_; }
  const char* forward_op() const override { return name_.c_str(); }
  std::vector<SavedValueInfo> SavedValues() const override {
    std::vector<SavedValueInfo> v;
    for (size_t i = 0; i < ctx_->saved_.size(); ++i) {
      v.push_back(ctx_->saved_[i].Info(StrCat("saved_tensor[", i, "]")));
    }
    return v;
  }

 private:
  std::string name_;
  std::shared_ptr<FunctionContext> ctx_;
  CustomBackward backward_;
};

std::vector<Tensor> ApplyCustomFunction(const std::string& name, const std::vector<Tensor>& inputs,
                                        const CustomForward& forward, CustomBackward backward,
                                        std::shared_ptr<FunctionContext> ctx) {
  if (!ctx) ctx = std::make_shared<FunctionContext>();
  std::vector<Tensor> outputs;
  {
    NoGradGuard no_grad;  // the forward's own ops are not recorded
    outputs = forward(*ctx, inputs);
  }
  bool require_any_grad = false;
  for (const auto& t : inputs) {
    require_any_grad |=
        EagerUtils::ComputeRequireGrad(HasGrad(), EagerUtils::nullable_autograd_meta(t));
  }
  for (auto& o : outputs) {
    OAR_ENFORCE(o.defined(),
                errors::InvalidArgument(name, ".forward() returned an undefined tensor"));
    // An output that is an input returned as is becomes a new handle, so the
    // input's own autograd meta is never rebound to this node.
    if (o.get_autograd_meta()) o = Tensor(o.impl(), o.name());
  }
  if (!require_any_grad) {
    return outputs;
  }
  auto node = std::make_shared<CustomGradNode>(name, outputs.size(), inputs.size(), ctx,
                                               std::move(backward));
  for (size_t i = 0; i < inputs.size(); ++i) node->SetGradOutMeta(inputs[i], i);
  for (size_t j = 0; j < outputs.size(); ++j) {
    Tensor& o = outputs[j];
    const bool non_diff =
        !IsDifferentiableDType(o.dtype()) ||
        std::find(ctx->non_differentiable_.begin(), ctx->non_differentiable_.end(),
                  o.impl().get()) != ctx->non_differentiable_.end();
    if (!non_diff) {
      AutogradMeta* meta = EagerUtils::autograd_meta(&o);
      meta->SetStopGradient(false);
      meta->SetSingleOutRankWithSlot(j, 0);
      EagerUtils::SetHistory(meta, node);
    }
    node->SetGradInMeta(o, j);
    if (non_diff) node->MutableInputMeta()[j][0].SetStopGradient(true);
  }
  // Saved tensors become wrappers now, so saved outputs know their node
  // (weakly: Note [TensorWrapper lifetimes]).
  for (const Tensor& t : ctx->to_save_) {
    const Tensor* src = &t;
    for (const auto& o : outputs) {
      if (o.impl() == t.impl()) src = &o;
    }
    ctx->saved_.emplace_back(*src, false, node->forward_op(), "saved tensor");
  }
  ctx->to_save_.clear();
  return outputs;
}

}  // namespace oar
