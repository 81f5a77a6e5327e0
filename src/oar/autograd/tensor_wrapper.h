// A tensor saved by a grad node for its backward (Paddle's TensorWrapper,
// docs/design.md §4).
//
// Note [TensorWrapper lifetimes]
// What a saved tensor holds:
// - the data (the DenseTensor), but only a weak pointer to the producer's grad
//   node: an op that saves its own output (tanh saves `out`) would otherwise
//   own the node that owns it, a cycle that is never freed. The pointer is
//   alive whenever recover() needs it: a saved input's producer is kept alive
//   by the saving node's own edge to it, and a saved output's producer is the
//   saving node itself.
// - for a no_need_buffer input, only its dims and dtype, inline: saving
//   allocates nothing, takes no reference and does not keep the memory alive;
//   recover() returns a tensor with that meta, no data and no grad node (a
//   formula reads only its shape, which nothing differentiates).
// - inside saved-tensor hooks, whatever pack() returned; recover() calls
//   unpack() and checks it gave back the shape and dtype that were packed.
// When the data is freed: right after the node ran in a backward() or grad()
// without retain_graph (the engine calls ClearTensorWrappers under the node's
// mutex; a later pass through the node is the "backward through the graph a
// second time" error), or when the node dies with the last tensor or node that
// reaches it. Nodes a pruned grad() did not run keep what they saved.
// Inplace versions: Save() snapshots the version counter of the memory
// (core/inplace_version.h, shared by all views) and recover() compares it, so
// a saved tensor written in place in between is an error naming the op, the
// argument and both versions instead of a wrong gradient. Meta-only and
// packed tensors are not checked: the wrapper does not hold their memory.
#pragma once

#include <memory>
#include <utility>

#include "oar/autograd/grad_node.h"
#include "oar/autograd/saved_tensors_hooks.h"
#include "oar/core/tensor.h"

namespace oar {

class GradNodeBase;

class TensorWrapper {
 public:
  TensorWrapper() = default;
  // `op` and `arg` name the saved tensor in error messages ("input 'x' of multiply").
  explicit TensorWrapper(const Tensor& tensor, bool no_need_buffer = false, const char* op = "",
                         const char* arg = "") {
    Save(tensor, no_need_buffer, op, arg);
  }
  // What the constructor does, in place (no temporary to move from).
  void Save(const Tensor& tensor, bool no_need_buffer, const char* op, const char* arg);

  // The saved tensor. With `with_grad_meta` it is reconnected to its grad
  // node so that formulas using it are differentiated again
  // (Note [Gradients of any order] in grad_node.h).
  Tensor recover(bool with_grad_meta = false) const;
  void clear();
  bool defined() const { return defined_; }
  uint32_t inplace_version_snapshot() const { return inplace_version_snapshot_; }
  // "float32[2, 3]" of the saved tensor, for graph inspection.
  std::string Describe() const;
  // The saved tensor's shape, dtype, bytes held and whether it was released,
  // under `name`, for graph inspection.
  SavedValueInfo Info(std::string name) const;

 private:
  void check_inplace_version() const;

  const DDim& dims() const { return impl_ ? impl_->dims() : dims_; }
  DType dtype() const { return impl_ ? impl_->dtype() : dtype_; }

  bool defined_ = false;
  bool released_ = false;  // clear() freed it after a backward
  bool no_need_buffer_ = false;
  std::shared_ptr<TensorBase> impl_;  // the data (null if only the meta is kept)
  DDim dims_;                         // the meta, kept inline: saving it allocates nothing
  DType dtype_ = DType::kUndefined;
  Tensor::SharedName name_;  // the tensor's (Note [A tensor's name is held out of line])
  std::weak_ptr<GradNodeBase> weak_grad_node_;
  std::pair<size_t, size_t> out_rank_info_{0, 0};
  bool has_autograd_meta_ = false;
  bool stop_gradient_ = true;
  uint32_t inplace_version_snapshot_ = 0;
  const char* op_ = "";
  const char* arg_ = "";
  std::shared_ptr<void> packed_value_;
  std::shared_ptr<const SavedTensorsHooks> unpack_hook_;
};

// Note [A shape-only input is read from its slot meta]
// A no_need_buffer input that the node also differentiates (add's x and y, reshape's
// x, cast's x) has its dims and dtype in its output slot meta already: SetGradOutMeta
// records them, for every input with a gradient, when the node is built. So a
// generated node saves nothing more for it; its formulas read the tensor
// SlotMetaTensor builds from the meta (what a no_need_buffer TensorWrapper would
// recover: dims and dtype, no data, no grad node), and graph inspection shows it with
// SlotMetaInfo. Saving a second copy of the dims, and freeing it, was 125 of the 2,790
// instructions of a recorded `a + b`.

// A tensor with the meta's dims and dtype and no data; undefined when the input was
// not given (the meta has none).
Tensor SlotMetaTensor(const GradSlotMeta& meta);
// What graph inspection shows for such an input; `released` once the node's saved
// tensors were freed.
SavedValueInfo SlotMetaInfo(std::string name, const GradSlotMeta& meta, bool released);

}  // namespace oar
