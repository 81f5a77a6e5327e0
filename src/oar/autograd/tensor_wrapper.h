// A tensor saved by a grad node for its backward (the seeds' TensorWrapper).
// It keeps the data but not the producer's grad node (only a weak pointer to
// it), so an op that saves its own output creates no reference cycle. It
// snapshots the inplace version so a later in-place write is detected, can
// keep only the meta (no_need_buffer) and goes through saved-tensor hooks.
#pragma once

#include <memory>
#include <utility>

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
  // node so that formulas using it are differentiated again (create_graph).
  Tensor recover(bool with_grad_meta = false) const;
  void clear();
  bool defined() const { return defined_; }
  uint32_t inplace_version_snapshot() const { return inplace_version_snapshot_; }
  // "float32[2, 3]" of the saved tensor, for graph inspection.
  std::string Describe() const;

 private:
  void check_inplace_version() const;

  const DDim& dims() const { return impl_ ? impl_->dims() : dims_; }
  DType dtype() const { return impl_ ? impl_->dtype() : dtype_; }

  bool defined_ = false;
  bool no_need_buffer_ = false;
  std::shared_ptr<DenseTensor> impl_;  // the data (null if only the meta is kept)
  DDim dims_;                          // the meta, kept inline: saving it allocates nothing
  DType dtype_ = DType::kUndefined;
  std::string name_;
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

}  // namespace oar
