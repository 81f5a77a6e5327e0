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

// A saved tensor or attribute, for looking at a node from Python/graph tools.
struct SavedValueInfo {
  std::string name;
  std::string value;  // attributes: their value; tensors: "float32[2, 3]"
};

// Whether the node must compute the gradient of forward input `slot`.
inline bool NeedsGrad(const SlotMetas& metas, size_t slot) {
  if (slot >= metas.size()) return false;
  for (const auto& m : metas[slot]) {
    if (!m.IsStopGradient()) return true;
  }
  return false;
}

// Only floating tensors carry gradients.
inline bool IsDifferentiableDType(DType t) { return IsFloating(t); }

class GradNodeBase : public std::enable_shared_from_this<GradNodeBase> {
 public:
  GradNodeBase() = default;
  GradNodeBase(size_t bwd_in_slot_num, size_t bwd_out_slot_num);
  // Iterative, so dropping a very deep graph cannot overflow the stack.
  virtual ~GradNodeBase();
  GradNodeBase(const GradNodeBase&) = delete;
  GradNodeBase& operator=(const GradNodeBase&) = delete;

  // Computes the gradients of the forward inputs from those of the outputs.
  // With create_graph the computation is itself recorded for higher orders.
  virtual GradSlots operator()(GradSlots& grads, bool create_graph = false,
                               bool is_new_grad = false) = 0;
  virtual void ClearTensorWrappers() = 0;
  virtual std::string name() const = 0;
  // The forward op this node differentiates ("matmul"), for error messages.
  virtual const char* forward_op() const { return ""; }
  virtual bool IsAccumulationNode() const { return false; }
  virtual std::vector<SavedValueInfo> SavedValues() const { return {}; }

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
  // registration order before the node computes.
  int64_t RegisterGradientHook(size_t slot_id, size_t rank, std::shared_ptr<TensorHook> hook);
  bool RemoveGradientHook(int64_t hook_id);
  bool GradientHooksRegistered() const { return !gradient_hooks_.empty(); }
  using GradientHookMap =
      std::map<int64_t, std::tuple<size_t, size_t, std::shared_ptr<TensorHook>>>;
  const GradientHookMap& GetGradientHookFuntions() const { return gradient_hooks_; }
  GradSlots ApplyGradientHooks(const GradSlots& tensors);

  // retain_grads(): backward() stores the gradient arriving at (slot, rank)
  // into `grad` before any tensor hook runs (Paddle's behaviour).
  void RegisterRetainGrad(size_t slot_id, size_t rank, std::weak_ptr<Tensor> grad);
  void ApplyRetainGrads(const GradSlots& grads, bool create_graph);
  bool HasRetainGrads() const { return !retain_grads_.empty(); }

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

  GradientHookMap gradient_hooks_;
  int64_t next_hook_id_ = 0;
  struct RetainGradEntry {
    size_t slot, rank;
    std::weak_ptr<Tensor> grad;
  };
  std::vector<RetainGradEntry> retain_grads_;
  bool is_tensor_wrappers_cleared_ = false;
  uint64_t topological_nr_ = 0;
  mutable std::mutex mutex_;
};

}  // namespace oar
