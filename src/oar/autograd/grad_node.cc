#include "oar/autograd/grad_node.h"

#include "oar/autograd/accumulate.h"
#include "oar/autograd/accumulation_node.h"
#include "oar/autograd/autograd_meta.h"
#include "oar/autograd/forward_stack.h"
#include "oar/core/errors.h"
#include "oar/core/flags.h"
#include "oar/core/layer_scope.h"
#include "oar/core/macros.h"
#include "oar/core/memory.h"

namespace oar {

namespace {
OAR_HOT_TLS thread_local uint64_t tls_sequence_nr = 0;
}  // namespace

GradNodeBase::GradNodeBase() : sequence_nr_(tls_sequence_nr++), layer_path_(CurrentLayerPath()) {
  if (FLAGS_record_forward_stack()) [[unlikely]]
    MutableExtras().forward_stack = RecordForwardStack();
}

GradNodeBase::Extras& GradNodeBase::MutableExtras() {
  if (!extras_) extras_ = std::make_unique<Extras>();
  return *extras_;
}

GradNodeBase::GradNodeBase(size_t bwd_in_slot_num, size_t bwd_out_slot_num) : GradNodeBase() {
  bwd_in_meta_.resize(bwd_in_slot_num);
  bwd_out_meta_.resize(bwd_out_slot_num);
}

namespace {
// Nodes whose last owner is being destroyed on this thread, waiting their turn.
// Inline room for a few: freeing a small graph takes no heap block for the queue.
using PendingDeletes = SmallVector<std::shared_ptr<GradNodeBase>, 8>;
OAR_HOT_TLS thread_local PendingDeletes* tls_pending_deletes = nullptr;
}  // namespace

GradNodeBase::~GradNodeBase() {
  // Queued, not recursive: see Note [Freeing deep graphs] in grad_node.h.
  PendingDeletes local;
  const bool outermost = tls_pending_deletes == nullptr;
  if (outermost) tls_pending_deletes = &local;
  for (auto& slot : bwd_out_meta_) {
    for (auto& meta : slot) {
      auto& next = meta.GetMutableEdge().MutableGradNodeRef();
      if (next && next.use_count() == 1) tls_pending_deletes->push_back(std::move(next));
    }
  }
  if (outermost) {
    while (!local.empty()) {
      std::shared_ptr<GradNodeBase> node = std::move(local.back());
      local.pop_back();
      node.reset();  // may push more nodes onto `local`
    }
    tls_pending_deletes = nullptr;
  }
}

void GradNodeBase::UpdateTopologicalNr(const GradNodeBase* next) {
  if (next && next->topological_nr_ + 1 > topological_nr_) {
    topological_nr_ = next->topological_nr_ + 1;
  }
}

namespace {
[[noreturn, gnu::cold, gnu::noinline]] void ThrowSlotOutOfRange(size_t slot_rank, size_t size,
                                                                const char* which) {
  throw errors::Fatal("slot ", slot_rank, " is out of range: the grad node has ", size, " ", which,
                      " slots");
}

// One compare inline; the message is built out of line.
void CheckSlot(size_t slot_rank, size_t size, const char* which) {
  if (slot_rank >= size) [[unlikely]]
    ThrowSlotOutOfRange(slot_rank, size, which);
}

// Builds the meta of forward input `fwd_in` with put(args...), args for one of
// GradSlotMeta's constructors.
template <typename Put>
GradSlotMeta& PutOutMeta(const Tensor& fwd_in, Put put) {
  auto* fwd_in_meta = static_cast<AutogradMeta*>(fwd_in.get_autograd_meta());
  const bool stop = fwd_in_meta == nullptr || fwd_in_meta->StopGradient();
  // A leaf that needs a gradient gets its accumulation node on first use.
  Edge edge = stop ? Edge()
                   : Edge(fwd_in_meta->GradNodeOrMake([&] {
                       return MakeShared<GradNodeAccumulation>(fwd_in, fwd_in_meta);
                     }),
                          fwd_in_meta->OutRankInfo());
  if (fwd_in.has_meta()) {
    return put(stop, fwd_in.dtype(), fwd_in.dims(), fwd_in.place(), std::move(edge));
  }
  return put(stop, std::move(edge));
}

// The same for forward output `fwd_out`, which has no edge.
template <typename Put>
GradSlotMeta& PutInMeta(const Tensor& fwd_out, Put put) {
  auto* fwd_out_meta = static_cast<AutogradMeta*>(fwd_out.get_autograd_meta());
  const bool stop = fwd_out_meta && fwd_out_meta->StopGradient();
  if (fwd_out.has_meta()) {
    return put(stop, fwd_out.dtype(), fwd_out.dims(), fwd_out.place(), Edge());
  }
  return put(stop, Edge());
}

// A put for a slot of one tensor: its meta is built in place when the slot is empty.
auto IntoSlot(SlotMetas::value_type& metas) {
  return [&metas](auto&&... args) -> GradSlotMeta& {
    if (metas.empty()) return metas.emplace_back(std::forward<decltype(args)>(args)...);
    return metas[0] = GradSlotMeta(std::forward<decltype(args)>(args)...);
  };
}

// A put for rank i of a Tensor[] slot.
auto IntoRank(SlotMetas::value_type& metas, size_t i) {
  return [&metas, i](auto&&... args) -> GradSlotMeta& {
    return metas[i] = GradSlotMeta(std::forward<decltype(args)>(args)...);
  };
}
}  // namespace

void GradNodeBase::SetGradOutMeta(const Tensor& fwd_in, size_t slot_rank) {
  CheckSlot(slot_rank, bwd_out_meta_.size(), "output");
  const GradSlotMeta& meta = PutOutMeta(fwd_in, IntoSlot(bwd_out_meta_[slot_rank]));
  UpdateTopologicalNr(meta.GetEdge().GetGradNode());
}

void GradNodeBase::SetGradOutMeta(const std::vector<Tensor>& fwd_in, size_t slot_rank) {
  CheckSlot(slot_rank, bwd_out_meta_.size(), "output");
  auto& metas = bwd_out_meta_[slot_rank];
  metas.resize(fwd_in.size());
  for (size_t i = 0; i < fwd_in.size(); ++i) {
    const GradSlotMeta& meta = PutOutMeta(fwd_in[i], IntoRank(metas, i));
    UpdateTopologicalNr(meta.GetEdge().GetGradNode());
  }
}

void GradNodeBase::SetGradInMeta(const Tensor& fwd_out, size_t slot_rank) {
  CheckSlot(slot_rank, bwd_in_meta_.size(), "input");
  PutInMeta(fwd_out, IntoSlot(bwd_in_meta_[slot_rank]));
}

void GradNodeBase::SetGradInMeta(const std::vector<Tensor>& fwd_out, size_t slot_rank) {
  CheckSlot(slot_rank, bwd_in_meta_.size(), "input");
  auto& metas = bwd_in_meta_[slot_rank];
  metas.resize(fwd_out.size());
  for (size_t i = 0; i < fwd_out.size(); ++i) PutInMeta(fwd_out[i], IntoRank(metas, i));
}

void GradNodeBase::SetDefaultGradInOutMeta() {
  bwd_in_meta_.resize(1);
  bwd_in_meta_[0].resize(1);
  bwd_out_meta_.resize(1);
  bwd_out_meta_[0].resize(1);
}

const GradNodeBase::GradientHookMap& GradNodeBase::GetGradientHookFuntions() const {
  static const GradientHookMap kNone;
  return extras_ ? extras_->gradient_hooks : kNone;
}

int64_t GradNodeBase::RegisterGradientHook(size_t slot_id, size_t rank,
                                           std::shared_ptr<TensorHook> hook) {
  Extras& x = MutableExtras();
  x.gradient_hooks.emplace(x.next_hook_id, std::make_tuple(slot_id, rank, std::move(hook)));
  return x.next_hook_id++;
}

bool GradNodeBase::RemoveGradientHook(int64_t hook_id) {
  return extras_ && extras_->gradient_hooks.erase(hook_id) > 0;
}

GradSlots GradNodeBase::ApplyGradientHooks(const GradSlots& tensors) {
  GradSlots outs = tensors;
  for (auto& [id, entry] : GetGradientHookFuntions()) {
    const auto& [slot_id, rank, hook] = entry;
    if (slot_id >= outs.size() || rank >= outs[slot_id].size()) continue;
    Tensor& out = outs[slot_id][rank];
    if (!out.defined()) continue;  // no gradient reached this tensor
    Tensor hooked = (*hook)(out);
    if (!hooked.defined()) continue;  // a hook may observe without replacing
    if (hooked.dims() != out.dims() || hooked.dtype() != out.dtype()) {
      throw errors::InvalidArgument(
          "a gradient hook on the input of ", name(), " returned a tensor of shape ",
          DimsToString(hooked.dims()), " and dtype ", hooked.dtype(),
          ", but the gradient it received has shape ", DimsToString(out.dims()), " and dtype ",
          out.dtype(), "; a hook must return a gradient of the same shape and dtype (or None)");
    }
    out = std::move(hooked);
  }
  return outs;
}

void GradNodeBase::RegisterRetainGrad(size_t slot_id, size_t rank, std::weak_ptr<Tensor> grad) {
  auto& retain_grads = MutableExtras().retain_grads;
  for (const auto& e : retain_grads) {
    if (e.slot == slot_id && e.rank == rank && !e.grad.owner_before(grad) &&
        !grad.owner_before(e.grad)) {
      return;
    }
  }
  retain_grads.push_back({slot_id, rank, std::move(grad)});
}

std::vector<std::pair<size_t, size_t>> GradNodeBase::RetainGradSlots() const {
  std::vector<std::pair<size_t, size_t>> v;
  if (extras_) {
    for (const auto& e : extras_->retain_grads) v.emplace_back(e.slot, e.rank);
  }
  return v;
}

void GradNodeBase::ApplyRetainGrads(const GradSlots& grads, bool create_graph) {
  if (!extras_) return;
  for (const auto& e : extras_->retain_grads) {
    auto grad = e.grad.lock();
    if (!grad || e.slot >= grads.size() || e.rank >= grads[e.slot].size()) continue;
    const Tensor& g = grads[e.slot][e.rank];
    if (!g.defined()) continue;
    *grad = AccumulateGrad(*grad, g, create_graph);
  }
}

}  // namespace oar
