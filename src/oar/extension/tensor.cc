// The operations of paddle::Tensor (src/oar/extension/tensor.h). They call the
// C++ API (oar::api), which records no gradient: a kernel's own computations
// are not part of the graph, its grad op is.
#include "oar/extension/tensor.h"

#include "oar/api/api.h"

namespace paddle {
namespace {

// oar has no GPU backend: a place other than the CPU is refused by name.
void CheckCpu(const Place& place, const char* what) {
  if (!place.is_cpu()) {
    throw oar::errors::Unimplemented(what, ": oar has no GPU backend, so custom operators run on ",
                                     "the CPU only (asked for ", place, ")");
  }
}

oar::DType Resolve(const Tensor& x, DataType dtype) {
  return dtype == DataType::UNDEFINED ? ToOarDType(x.dtype()) : ToOarDType(dtype);
}

}  // namespace

Tensor::Tensor(const Place& place, const std::vector<int64_t>& shape)
    : pending_shape_(shape), pending_place_(place) {
  CheckCpu(place, "paddle::Tensor(place, shape)");
}

void Tensor::CheckData(oar::DType want) const {
  if (!t_.defined()) {
    throw oar::errors::PreconditionNotMet(
        "paddle::Tensor::data<T>(): the tensor holds no memory yet; allocate it with "
        "mutable_data<T>() or paddle::empty");
  }
  if (t_.dtype() != want) {
    throw oar::errors::InvalidType("paddle::Tensor::data<T>(): the tensor's dtype is ", t_.dtype(),
                                   " but T is ", want);
  }
  if (t_.is_dense() && !t_.is_contiguous()) {
    throw oar::errors::InvalidArgument(
        "paddle::Tensor::data<T>(): the tensor is not contiguous; call contiguous() first");
  }
}

void Tensor::Allocate(oar::DType dtype, const Place& place) {
  CheckCpu(place, "paddle::Tensor::mutable_data");
  if (t_.defined() && t_.initialized() && t_.dtype() == dtype) return;
  const std::vector<int64_t> shape = t_.defined() ? t_.shape() : pending_shape_;
  t_ = oar::api::empty(shape, dtype);
}

Tensor Tensor::copy_to(const Place& place, bool) const {
  CheckCpu(place, "paddle::Tensor::copy_to");
  return oar::api::assign(t_);
}
Tensor Tensor::reshape(const std::vector<int64_t>& shape) const {
  if (!t_.defined()) {
    pending_shape_ = shape;
    return *this;
  }
  return oar::api::reshape(t_, shape);
}
Tensor Tensor::slice(int64_t begin, int64_t end) const {
  return oar::api::slice(t_, {0}, {begin}, {end});
}
Tensor Tensor::cast(DataType dtype) const { return oar::api::cast(t_, ToOarDType(dtype)); }
Tensor Tensor::contiguous() const { return t_.is_contiguous() ? t_ : oar::api::assign(t_); }
Tensor Tensor::abs() const { return oar::api::abs(t_); }
Tensor Tensor::exp() const { return oar::api::exp(t_); }

Tensor empty(const std::vector<int64_t>& shape, DataType dtype, const Place& place) {
  CheckCpu(place, "paddle::empty");
  return oar::api::empty(shape, ToOarDType(dtype));
}
Tensor full(const std::vector<int64_t>& shape, double value, DataType dtype, const Place& place) {
  CheckCpu(place, "paddle::full");
  return oar::api::full(shape, value, ToOarDType(dtype));
}
Tensor zeros(const std::vector<int64_t>& shape, DataType dtype, const Place& place) {
  return full(shape, 0.0, dtype, place);
}
Tensor ones(const std::vector<int64_t>& shape, DataType dtype, const Place& place) {
  return full(shape, 1.0, dtype, place);
}
Tensor empty_like(const Tensor& x, DataType dtype, const Place& place) {
  CheckCpu(place, "paddle::empty_like");
  return oar::api::empty(x.shape(), Resolve(x, dtype));
}
Tensor full_like(const Tensor& x, double value, DataType dtype, const Place& place) {
  CheckCpu(place, "paddle::full_like");
  return oar::api::full(x.shape(), value, Resolve(x, dtype));
}
Tensor zeros_like(const Tensor& x, DataType dtype, const Place& place) {
  return full_like(x, 0.0, dtype, place);
}
Tensor ones_like(const Tensor& x, DataType dtype, const Place& place) {
  return full_like(x, 1.0, dtype, place);
}

Tensor add(const Tensor& x, const Tensor& y) { return oar::api::add(x, y); }
Tensor subtract(const Tensor& x, const Tensor& y) { return oar::api::subtract(x, y); }
Tensor multiply(const Tensor& x, const Tensor& y) { return oar::api::multiply(x, y); }
Tensor divide(const Tensor& x, const Tensor& y) { return oar::api::divide(x, y); }
Tensor scale(const Tensor& x, double scale, double bias) {
  return oar::api::scale(x, scale, bias, true);
}
Tensor exp(const Tensor& x) { return x.exp(); }
Tensor abs(const Tensor& x) { return x.abs(); }

}  // namespace paddle
