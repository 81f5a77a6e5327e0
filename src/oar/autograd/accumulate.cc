#include "oar/autograd/accumulate.h"

#include "oar/api/api.h"
#include "oar/autograd/autograd_meta.h"
#include "oar/autograd/eager_utils.h"
#include "oar/autograd/grad_mode.h"
#include "oar/autograd/grad_node.h"

namespace oar {
namespace {

// Backward of a + b recorded by the engine itself: the gradient passes to both.
class GradSumNode final : public GradNodeBase {
 public:
  GradSumNode() : GradNodeBase(1, 2) {}
  GradSlots operator()(GradSlots& grads, bool, bool) override {
    GradSlots out(2);
    for (size_t i = 0; i < 2; ++i) {
      if (!bwd_out_meta_[i].empty() && !bwd_out_meta_[i][0].IsStopGradient()) {
        out[i].push_back(grads[0][0]);
      }
    }
    return out;
  }
  void ClearTensorWrappers() override {}
  std::string name() const override { return "GradSumNode"; }
  const char* forward_op() const override { return "add (gradient accumulation)"; }
};

}  // namespace

bool IsSoleOwner(const Tensor& t) {
  const auto& impl = t.impl();
  return impl.use_count() == 1 && (!impl->Holder() || impl->Holder().use_count() == 1) &&
         impl->is_contiguous() && impl->offset() == 0;
}

Tensor DetachedOwnedCopy(const Tensor& t) {
  if (IsSoleOwner(t)) return Tensor(t.impl());
  NoGradGuard no_grad;
  return api::assign(t);
}

Tensor AccumulateGrad(const Tensor& existing, const Tensor& incoming, bool create_graph) {
  if (!existing.defined()) return create_graph ? incoming : DetachedOwnedCopy(incoming);
  if (!create_graph) {
    return api::add(existing, incoming);
  }
  Tensor out = api::add(existing, incoming);
  auto* a = EagerUtils::nullable_autograd_meta(existing);
  auto* b = EagerUtils::nullable_autograd_meta(incoming);
  if (EagerUtils::ComputeRequireGrad(HasGrad(), a, b)) {
    auto node = std::make_shared<GradSumNode>();
    node->SetGradOutMeta(existing, 0);
    node->SetGradOutMeta(incoming, 1);
    AutogradMeta* out_meta = EagerUtils::autograd_meta(&out);
    out_meta->SetStopGradient(false);
    EagerUtils::SetOutRankWithSlot(out_meta, 0);
    EagerUtils::SetHistory(out_meta, node);
    node->SetGradInMeta(out, 0);
  }
  return out;
}

}  // namespace oar
