#include "oar/core/tensor.h"

namespace oar {

// Constant-initialized, so it exists before any static initializer reads a name.
constinit const std::string Tensor::kNoName;

void Tensor::Release() noexcept {
  name_.reset();
  autograd_meta_.reset();
  impl_.reset();
}

const TensorBase& Tensor::base() const {
  OAR_ENFORCE(impl_ != nullptr,
              errors::PreconditionNotMet("the tensor is undefined (it holds no data and no meta)"));
  return *impl_;
}

namespace {
[[noreturn]] void ThrowWrongKind(TensorKind want, TensorKind got) {
  if (want == TensorKind::kDense) {
    throw errors::InvalidType("expected a dense tensor, but got a ", TensorKindName(got),
                              " tensor; convert it with to_dense() or use the function of "
                              "oar.sparse");
  }
  throw errors::InvalidType("expected a ", TensorKindName(want), " tensor, but got a ",
                            TensorKindName(got), " tensor");
}
}  // namespace

void Tensor::ThrowNotDense() const { ThrowWrongKind(TensorKind::kDense, base().kind()); }

std::shared_ptr<DenseTensor> Tensor::dense_impl() const {
  dense();
  return std::static_pointer_cast<DenseTensor>(impl_);
}

const SparseCooTensor& Tensor::sparse_coo() const {
  const TensorBase& b = base();
  if (b.kind() != TensorKind::kSparseCoo) ThrowWrongKind(TensorKind::kSparseCoo, b.kind());
  return static_cast<const SparseCooTensor&>(b);
}

const SparseCsrTensor& Tensor::sparse_csr() const {
  const TensorBase& b = base();
  if (b.kind() != TensorKind::kSparseCsr) ThrowWrongKind(TensorKind::kSparseCsr, b.kind());
  return static_cast<const SparseCsrTensor&>(b);
}

template <typename T>
T Tensor::item() const {
  const DenseTensor& d = dense();
  OAR_ENFORCE(d.numel() == 1,
              errors::InvalidArgument("item(): only a tensor with one element can be converted "
                                      "to a scalar, but the tensor has shape ",
                                      DimsToString(d.dims())));
  return VisitDTypeWithComplex(d.dtype(), [&]<typename S>() -> T {
    const S v = *static_cast<const S*>(d.data());
    if constexpr (is_complex_v<T>) {
      if constexpr (is_complex_v<S>) {
        return T(v);
      } else if constexpr (std::is_same_v<S, float16> || std::is_same_v<S, bfloat16>) {
        return T(static_cast<float>(v));
      } else {
        return T(static_cast<typename T::value_type>(v));
      }
    } else if constexpr (is_complex_v<S>) {
      return static_cast<T>(v.real());  // as a cast: the real part
    } else if constexpr (std::is_same_v<S, float16> || std::is_same_v<S, bfloat16>) {
      return static_cast<T>(static_cast<float>(v));
    } else {
      return static_cast<T>(v);
    }
  });
}
template bool Tensor::item<bool>() const;
template int32_t Tensor::item<int32_t>() const;
template int64_t Tensor::item<int64_t>() const;
template float Tensor::item<float>() const;
template double Tensor::item<double>() const;
template complex128 Tensor::item<complex128>() const;

void Tensor::bump_inplace_version() { dense().bump_inplace_version(); }
// A sparse tensor is never written in place (its ops return new ones), so its
// version stays 0.
uint32_t Tensor::current_inplace_version() const {
  return is_dense() ? dense().current_inplace_version() : 0;
}
void Tensor::reset_inplace_version(bool set_to_zero) {
  if (set_to_zero && is_dense() && dense().Holder()) {
    dense().Holder()->inplace_version().SetInplaceVersionToZero();
  }
}

}  // namespace oar
