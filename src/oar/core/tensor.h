// The user-facing tensor handle (Paddle's paddle::Tensor, docs/design.md §4):
// an impl holding the data (a DenseTensor, SparseCooTensor or SparseCsrTensor),
// autograd metadata, and a name. Copies are cheap handles that share both the
// data and the autograd metadata.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "oar/core/dense_tensor.h"
#include "oar/core/scalar.h"
#include "oar/core/sparse_tensor.h"

namespace oar {

// Core knows autograd metadata only through this interface, so the core
// layer does not depend on the autograd layer (as phi's AbstractAutogradMeta).
class AbstractAutogradMeta {
 public:
  virtual ~AbstractAutogradMeta() = default;
};

class Tensor;
class GradNodeBase;
using TensorHook = std::function<Tensor(const Tensor&)>;

// Returned by Tensor::register_hook; remove() unregisters the hook.
class HookHandle {
 public:
  HookHandle() = default;
  HookHandle(std::weak_ptr<GradNodeBase> node, int64_t id) : node_(std::move(node)), id_(id) {}
  // False if the hook was already removed or its node is gone.
  bool remove();  // defined in the eager layer
  int64_t id() const { return id_; }

 private:
  std::weak_ptr<GradNodeBase> node_;
  int64_t id_ = -1;
};

class Tensor final {
 public:
  // Note [A tensor's name is held out of line]
  using SharedName = std::shared_ptr<const std::string>;

  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorBase> impl) : impl_(std::move(impl)) {}
  Tensor(std::shared_ptr<TensorBase> impl, std::string name) : impl_(std::move(impl)) {
    set_name(std::move(name));
  }
  // A handle with another's name as shared_name() gave it (null: none).
  Tensor(std::shared_ptr<TensorBase> impl, SharedName name)
      : impl_(std::move(impl)), name_(std::move(name)) {}

  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(const Tensor&) = default;
  Tensor& operator=(Tensor&&) noexcept = default;
  // Note [A moved-from handle is destroyed inline]
  // Most handles an op destroys were moved from: the temporaries a backward formula
  // passes from call to call, the API's result once returned. The implicit destructor
  // was not inlined (three shared_ptr releases), so each such handle cost a call of 17
  // instructions to find three null pointers: 12 of the 14 calls in a link of a
  // chain of products. The test is inline (always: left to the compiler, the
  // destructor stayed a call in the generated formulas, and the growth of the API's
  // file pushed its inline input checks out of line) and only a handle that owns
  // something calls out; after Release the members are known empty, so the compiler
  // emits no second release (the unreachable branch tells it so).
  [[gnu::always_inline]] ~Tensor() {
    if (OwnsAny()) Release();
    if (OwnsAny()) __builtin_unreachable();
  }

  // --- data -------------------------------------------------------------
  bool defined() const { return impl_ != nullptr; }
  // Holds memory (false for an undefined tensor or one saved without data).
  bool initialized() const {
    if (const DenseTensor* d = dense_or_null()) [[likely]]
      return d->initialized();
    return impl_ && impl_->initialized();
  }
  // Has a dtype and a shape to read (false for an undefined tensor or a bare
  // DenseTensor()); the dense case inline and without virtual calls.
  bool has_meta() const {
    if (const DenseTensor* d = dense_or_null()) [[likely]]
      return d->valid();
    return impl_ && impl_->valid();
  }
  const std::shared_ptr<TensorBase>& impl() const { return impl_; }
  void set_impl(std::shared_ptr<TensorBase> impl) { impl_ = std::move(impl); }
  void reset() {
    impl_.reset();
    autograd_meta_.reset();
    name_.reset();
  }
  // The impl as its concrete type; each throws on an undefined tensor or
  // another kind (a typed error naming both kinds).
  DenseTensor& dense() const {
    if (impl_ && impl_->kind() == TensorKind::kDense) [[likely]] {
      return static_cast<DenseTensor&>(*impl_);
    }
    ThrowNotDense();
  }
  const SparseCooTensor& sparse_coo() const;
  const SparseCsrTensor& sparse_csr() const;
  // The impl as a DenseTensor handle (shared), with the checks of dense().
  std::shared_ptr<DenseTensor> dense_impl() const;

  bool is_dense() const { return impl_ && impl_->kind() == TensorKind::kDense; }
  bool is_sparse_coo() const { return impl_ && impl_->kind() == TensorKind::kSparseCoo; }
  bool is_sparse_csr() const { return impl_ && impl_->kind() == TensorKind::kSparseCsr; }
  bool is_sparse() const { return is_sparse_coo() || is_sparse_csr(); }
  TensorKind kind() const { return base().kind(); }

  // Shape, dtype and place hold for every kind (a sparse tensor's dense shape
  // and its values' dtype); strides and data are the dense tensor's.
  // The dense case inline and without virtual calls: the per-op path (docs/design.md §7).
  const DDim& dims() const {
    if (const DenseTensor* d = dense_or_null()) [[likely]]
      return d->dims();
    return base().dims();
  }
  std::vector<int64_t> shape() const { return Vectorize(dims()); }
  const DDim& strides() const { return dense().strides(); }
  int64_t numel() const { return Product(dims()); }
  int ndim() const { return static_cast<int>(dims().size()); }
  DType dtype() const {
    if (const DenseTensor* d = dense_or_null()) [[likely]]
      return d->dtype();
    return base().dtype();
  }
  DataLayout layout() const { return base().layout(); }
  Place place() const {
    if (const DenseTensor* d = dense_or_null()) [[likely]]
      return d->place();
    return base().place();
  }
  bool is_cpu() const { return place().is_cpu(); }
  bool is_contiguous() const { return dense().is_contiguous(); }

  template <typename T>
  const T* data() const {
    return static_cast<const DenseTensor&>(dense()).data<T>();
  }
  template <typename T>
  T* data() {
    return dense().data<T>();
  }
  // The single element of a one-element tensor, converted to T.
  template <typename T>
  T item() const;

  // Note [A tensor's name is held out of line]
  const std::string& name() const { return name_ ? *name_ : kNoName; }
  bool has_name() const { return name_ != nullptr; }
  // The name's string as held (null when unnamed), for a saved tensor to keep and give
  // back without copying it.
  const SharedName& shared_name() const { return name_; }
  void set_name(std::string name) {
    if (name.empty()) {
      name_.reset();
    } else {
      name_ = std::make_shared<const std::string>(std::move(name));
    }
  }

  // --- inplace versions -------------------------------------------------
  void bump_inplace_version();
  uint32_t current_inplace_version() const;
  void reset_inplace_version(bool set_to_zero = false);

  // --- autograd metadata --------------------------------------------------
  AbstractAutogradMeta* get_autograd_meta() const { return autograd_meta_.get(); }
  const std::shared_ptr<AbstractAutogradMeta>& mutable_autograd_meta() const {
    return autograd_meta_;
  }
  void set_autograd_meta(std::shared_ptr<AbstractAutogradMeta> meta) {
    autograd_meta_ = std::move(meta);
  }

  // --- autograd (defined in the eager layer, src/oar/eager/tensor_methods.cc)
  // `grad_tensor` undefined means ones; see oar::Backward.
  void backward(const Tensor& grad_tensor = Tensor(), bool retain_graph = false) const;
  Tensor grad() const;  // undefined if no gradient is stored
  bool stop_gradient() const;
  void set_stop_gradient(bool stop_gradient);
  bool is_leaf() const;
  void retain_grads() const;
  // Zeroes .grad in place (set_to_zero) or drops it.
  void clear_grad(bool set_to_zero = true) const;
  // Hook on the gradient flowing into this tensor (see GradNodeBase hooks).
  HookHandle register_hook(TensorHook hook) const;
  Tensor detach() const;
  // The node that computes this tensor's gradient; null for leaves and tensors
  // that do not need one (PyTorch's grad_fn).
  std::shared_ptr<GradNodeBase> grad_fn() const;

 private:
  const TensorBase& base() const;  // throws on an undefined tensor
  const DenseTensor* dense_or_null() const {
    return impl_ && impl_->kind() == TensorKind::kDense ? static_cast<DenseTensor*>(impl_.get())
                                                        : nullptr;
  }
  [[noreturn]] void ThrowNotDense() const;
  // Whether `p` owns an object (has a control block), even an aliased null one.
  template <typename T>
  [[gnu::always_inline]] static bool Owns(const std::shared_ptr<T>& p) noexcept {
    const std::shared_ptr<void> none;
    return none.owner_before(p) || p.owner_before(none);
  }
  [[gnu::always_inline]] bool OwnsAny() const noexcept {
    return Owns(impl_) || Owns(autograd_meta_) || Owns(name_);
  }
  // Releases the three handles (in the implicit destructor's order) and leaves them empty.
  [[gnu::noinline]] void Release() noexcept;

  std::shared_ptr<TensorBase> impl_;
  std::shared_ptr<AbstractAutogradMeta> autograd_meta_;
  // Note [A tensor's name is held out of line]
  // An op moves and destroys its tensors several times (into the API, the eager
  // function, the Python object), and almost none has a name. A std::string member
  // made each move copy its small buffer (a libc memcpy) and each destruction test
  // it; a pointer, null when unnamed, is moved and destroyed as the handles beside
  // it are. The string is shared between copies and replaced, never changed, by
  // set_name, so a copy's name stays its own.
  SharedName name_;
  static const std::string kNoName;
};

}  // namespace oar
