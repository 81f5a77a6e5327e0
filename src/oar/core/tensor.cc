#include "oar/core/tensor.h"

namespace oar {

DenseTensor& Tensor::dense() const {
  OAR_ENFORCE(impl_ != nullptr,
              errors::PreconditionNotMet("the tensor is undefined (it holds no data and no meta)"));
  return *impl_;
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
uint32_t Tensor::current_inplace_version() const {
  return impl_ ? impl_->current_inplace_version() : 0;
}
void Tensor::reset_inplace_version(bool set_to_zero) {
  if (set_to_zero && impl_ && impl_->Holder()) {
    impl_->Holder()->inplace_version().SetInplaceVersionToZero();
  }
}

}  // namespace oar
