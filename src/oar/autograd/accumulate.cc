#include "oar/autograd/accumulate.h"

#include "oar/api/api.h"
#include "oar/autograd/autograd_meta.h"
#include "oar/autograd/eager_utils.h"
#include "oar/autograd/grad_node.h"
#include "oar/core/grad_mode.h"

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
  if (!t.is_dense()) return false;  // sparse gradients are summed into new tensors
  const auto& impl = t.impl();
  const DenseTensor& d = t.dense();
  return impl.use_count() == 1 && (!d.Holder() || d.Holder().use_count() == 1) &&
         d.is_contiguous() && d.offset() == 0;
}

Tensor DetachedOwnedCopy(const Tensor& t) {
  // A sparse tensor is immutable, so sharing it is as good as owning it.
  if (IsSoleOwner(t) || t.is_sparse()) return Tensor(t.impl());
  NoGradGuard no_grad;
  return api::assign(t);
}

Tensor SumGrads(const Tensor& a, const Tensor& b) {
  if (a.is_dense() && b.is_dense()) return api::add(a, b);
  // Sparse gradients of one format add up sparse; any mix with dense is dense.
  if (a.kind() == b.kind()) return api::sparse_add(a, b);
  return api::add(a.is_sparse() ? api::sparse_to_dense(a) : a,
                  b.is_sparse() ? api::sparse_to_dense(b) : b);
}

Tensor OnesLike(const Tensor& t) {
  if (!t.is_sparse()) return api::full_like(t, 1.0, t.dtype());
  const Tensor values = api::sparse_values(t);
  return api::sparse_with_values(t, api::full_like(values, 1.0, values.dtype()));
}

Tensor AccumulateGrad(const Tensor& existing, const Tensor& incoming, bool create_graph) {
  if (!existing.defined()) return create_graph ? incoming : DetachedOwnedCopy(incoming);
  if (!create_graph) {
    return SumGrads(existing, incoming);
  }
  Tensor out = SumGrads(existing, incoming);
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
