// GradNodeBase: a node of the backward graph (one per recorded forward op).
// bwd_in_meta_ describes the gradients flowing in (one slot per forward
// output), bwd_out_meta_ the gradients it produces (one slot per forward input)
// together with the edges to the next nodes.
//
// Note [Thread safety of grad nodes]
// Threads that share a model run backward passes through the same nodes at
// once: every parameter's GradNodeAccumulation, and any non-leaf node built
// before the threads started. A node's state is not all read-only while it
// runs: the accumulation node adds into the leaf's .grad, retained grads add
// into a non-leaf's .grad, hooks may touch whatever state their author shares,
// and a backward without retain_graph frees the tensors the node saved. So
// the engine holds the node's mutex() for everything it does with one node
// (retained grads, hooks, operator(), ClearTensorWrappers): two passes through
// one node take turns, and the sums they leave are exactly the serial ones.
// Locks are never held from one node to the next, so passes that share many
// nodes still run in parallel where they do not meet. Registering or removing
// hooks while another thread runs a backward through the same node is not
// supported (as in PyTorch).
//
// Note [Hook order]
// When the engine reaches a node that received at least one gradient
// (GraphTask::RunNode in backward.cc), it runs, under the node's mutex:
//   1. retained grads (retain_grads() on a non-leaf output of this node): the
//      incoming gradient is added into that tensor's .grad before any tensor
//      hook runs, whatever the order of registration; only in backward(),
//      since grad() never writes a .grad;
//   2. tensor hooks (register_hook) on the node's input slots, in registration
//      order, each seeing the previous one's result; a hook returning an
//      undefined tensor (None) leaves the gradient as it is. A leaf's hooks
//      live on its GradNodeAccumulation, so they change what is accumulated,
//      and grad() captures an input's gradient after its hooks;
//   3. the node. A GradNodeAccumulation adds into the leaf's .grad and then
//      runs the leaf's reduce hooks (register_grad_accumulated_hook) in
//      registration order; grad() runs it only with only_inputs=False and
//      when the leaf is not one of its inputs.
// Nodes run in dependency order, accumulation nodes as soon as they are
// ready. Final callbacks (RegisterBackwardFinalHook) are per thread: they run
// once, in registration order, when the outermost backward()/grad() on the
// thread returns normally, and are dropped if it throws (as is a callback
// registered by a final callback); one registered outside a pass waits for
// the next one. A node that received no gradient runs none of the above.
//
// Note [Gradients of any order]
// The engine runs every node with grad mode set to create_graph
// (GraphTask::RunNode). Generated nodes compute with the differentiable ops of
// their src/oar/ops/ formulas, custom functions with the ops their backward uses,
// TensorWrapper::recover(true) reconnects saved tensors to their grad nodes,
// and gradient sums are recorded too (AccumulateGrad, GradTensorHolder::add).
// So with create_graph a backward records its own graph, which a later
// backward()/grad() differentiates; without it nothing is recorded. No op
// needs a separate double-grad node; a fused *_grad op (tanh_grad) is declared
// with its own backward like any other op.
//
// Note [Freeing deep graphs]
// A node owns the nodes it feeds through its edges, so dropping the output of
// a 100,000-op chain would destroy 100,000 nodes recursively and overflow the
// stack. Instead ~GradNodeBase moves every next node it holds the last
// reference to onto a thread-local list, and the outermost destructor on the
// thread destroys that list in a loop (as PyTorch's deleteNode does).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "oar/autograd/grad_slot_meta.h"
#include "oar/core/small_vector.h"
#include "oar/core/tensor.h"

namespace oar {

inline constexpr size_t kSlotSmallVectorSize = 3;
template <typename T>
using SlotVector = SmallVector<T, kSlotSmallVectorSize>;
// Gradients by [slot][rank]: a slot is one forward input/output, a rank one
// tensor of a Tensor[] argument.
using GradSlots = SlotVector<SmallVector<Tensor, 1>>;
using SlotMetas = SlotVector<SmallVector<GradSlotMeta, 1>>;

// A saved tensor or attribute, for looking at a node from Python/graph tools
// (oar.viz). For a tensor, `value` is "float32[2, 3]" and the other fields say
// what it holds; `released` once a backward without retain_graph freed it.
struct SavedValueInfo {
  std::string name;
  std::string value;  // attributes: their value; tensors: "float32[2, 3]"
  bool is_tensor = false;
  DDim dims;
  DType dtype = DType::kUndefined;
  int64_t bytes = 0;              // memory the node keeps alive (0 when only the meta is kept)
  bool released = false;          // freed by a backward without retain_graph
  bool meta_only = false;         // no_need_buffer: only shape and dtype were ever kept
  const void* storage = nullptr;  // the allocation held, to count shared memory once

  static SavedValueInfo Attribute(std::string name, std::string value) {
    SavedValueInfo v;
    v.name = std::move(name);
    v.value = std::move(value);
    return v;
  }
};

struct ForwardStack;

// Whether the node must compute the gradient of forward input `slot`.
inline bool NeedsGrad(const SlotMetas& metas, size_t slot) {
  if (slot >= metas.size()) return false;
  for (const auto& m : metas[slot]) {
    if (!m.IsStopGradient()) return true;
  }
  return false;
}

// Only floating and complex tensors carry gradients.
inline bool IsDifferentiableDType(DType t) { return IsFloating(t) || IsComplex(t); }

class GradNodeBase {
 public:
  GradNodeBase();
  GradNodeBase(size_t bwd_in_slot_num, size_t bwd_out_slot_num);
  // Iterative (Note [Freeing deep graphs]).
  virtual ~GradNodeBase();
  GradNodeBase(const GradNodeBase&) = delete;
  GradNodeBase& operator=(const GradNodeBase&) = delete;

  // Computes the gradients of the forward inputs from those of the outputs.
  // With create_graph the computation is itself recorded:
  // Note [Gradients of any order].
  virtual GradSlots operator()(GradSlots& grads, bool create_graph = false,
                               bool is_new_grad = false) = 0;
  virtual void ClearTensorWrappers() = 0;
  virtual std::string name() const = 0;
  // The forward op this node differentiates ("matmul"), for error messages.
  virtual const char* forward_op() const { return ""; }
  virtual bool IsAccumulationNode() const { return false; }
  virtual std::vector<SavedValueInfo> SavedValues() const { return {}; }

  // The creation order of nodes on the thread that recorded the forward op
  // (PyTorch's sequence_nr): it pairs a grad node with its forward op in
  // traces and error messages. Unique per thread, not across threads.
  uint64_t sequence_nr() const { return sequence_nr_; }
  // Where the forward op was called (Python frames outside oar, the layer
  // path), recorded only with FLAGS_record_forward_stack; null otherwise.
  // Note [Forward stacks] in forward_stack.h.
  const ForwardStack* forward_stack() const {
    return extras_ ? extras_->forward_stack.get() : nullptr;
  }
  // The oar.nn.Layer path ("Net.block1.conv") that was running when the
  // forward op ran, or null outside any layer (core/layer_scope.h).
  const std::string* layer_path() const { return layer_path_; }

  const SlotMetas& InputMeta() const { return bwd_in_meta_; }
  const SlotMetas& OutputMeta() const { return bwd_out_meta_; }
  SlotMetas& MutableOutputMeta() { return bwd_out_meta_; }
  SlotMetas& MutableInputMeta() { return bwd_in_meta_; }

  void SetGradInMeta(const Tensor& fwd_out, size_t slot_rank);
  void SetGradInMeta(const std::vector<Tensor>& fwd_out, size_t slot_rank);
  void SetGradOutMeta(const Tensor& fwd_in, size_t slot_rank);
  void SetGradOutMeta(const std::vector<Tensor>& fwd_in, size_t slot_rank);
  void SetDefaultGradInOutMeta();

  // Tensor hooks on the gradient of input slot (slot_id, rank); run in
  // registration order before the node computes (Note [Hook order]).
  int64_t RegisterGradientHook(size_t slot_id, size_t rank, std::shared_ptr<TensorHook> hook);
  bool RemoveGradientHook(int64_t hook_id);
  bool GradientHooksRegistered() const { return extras_ && !extras_->gradient_hooks.empty(); }
  using GradientHookMap =
      std::map<int64_t, std::tuple<size_t, size_t, std::shared_ptr<TensorHook>>>;
  const GradientHookMap& GetGradientHookFuntions() const;
  GradSlots ApplyGradientHooks(const GradSlots& tensors);

  // retain_grads(): backward() adds the gradient arriving at (slot, rank)
  // into `grad` before any tensor hook runs (Note [Hook order]).
  void RegisterRetainGrad(size_t slot_id, size_t rank, std::weak_ptr<Tensor> grad);
  void ApplyRetainGrads(const GradSlots& grads, bool create_graph);
  bool HasRetainGrads() const { return extras_ && !extras_->retain_grads.empty(); }
  // The (slot, rank) of each retain_grads() registered here, for inspection.
  std::vector<std::pair<size_t, size_t>> RetainGradSlots() const;

  bool IsTensorWrappersCleared() const { return is_tensor_wrappers_cleared_; }
  void SetIsTensorWrappersCleared(bool cleared) { is_tensor_wrappers_cleared_ = cleared; }

  // 1 + the largest topological number of the nodes this one feeds; leaves
  // have 0. If node A can reach node B then A's number is larger, which lets
  // grad() skip everything below its inputs.
  uint64_t topological_nr() const { return topological_nr_; }

  // Held by the engine while it runs this node (Note [Thread safety of grad nodes]).
  std::mutex& mutex() const { return mutex_; }

 protected:
  SlotMetas bwd_out_meta_;
  SlotMetas bwd_in_meta_;

 private:
  void UpdateTopologicalNr(const GradNodeBase* next);

  // What few nodes have: tensor hooks, retain_grads() entries, a forward stack. Kept
  // out of line, made on first use, so that a node without them builds and frees none
  // of their containers (most nodes of a graph: every op's).
  struct RetainGradEntry {
    size_t slot, rank;
    std::weak_ptr<Tensor> grad;
  };
  struct Extras {
    GradientHookMap gradient_hooks;
    int64_t next_hook_id = 0;
    std::vector<RetainGradEntry> retain_grads;
    std::shared_ptr<const ForwardStack> forward_stack;
  };
  Extras& MutableExtras();

  bool is_tensor_wrappers_cleared_ = false;
  uint64_t topological_nr_ = 0;
  uint64_t sequence_nr_ = 0;
  const std::string* layer_path_ = nullptr;  // interned, lives for the process
  std::unique_ptr<Extras> extras_;
  mutable std::mutex mutex_;
};

}  // namespace oar
