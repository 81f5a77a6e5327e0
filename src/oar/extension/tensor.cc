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

const void* Tensor::data() const {
  if (!t_.defined()) return nullptr;
  return static_cast<const oar::DenseTensor&>(t_.dense()).data();
}
void* Tensor::data() {
  if (!t_.defined()) return nullptr;
  return t_.dense().data();
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
Tensor Tensor::log() const { return oar::api::log(t_); }
Tensor Tensor::floor() const { return oar::api::floor(t_); }
Tensor Tensor::pow(double y) const { return oar::api::pow(t_, y); }
Tensor Tensor::scale(double scale, double bias, bool bias_after_scale) const {
  return oar::api::scale(t_, scale, bias, bias_after_scale);
}
Tensor Tensor::sum(const std::vector<int64_t>& axis, DataType dtype, bool keepdim) const {
  return oar::api::sum(t_, axis, ToOarDType(dtype), keepdim);
}
Tensor Tensor::prod(const std::vector<int64_t>& axis, bool keepdim) const {
  return oar::api::prod(t_, axis, keepdim);
}

namespace experimental {

Tensor empty(const IntArray& shape, DataType dtype, const Place& place) {
  CheckCpu(place, "paddle::empty");
  return oar::api::empty(shape.GetData(), ToOarDType(dtype));
}
Tensor full(const IntArray& shape, double value, DataType dtype, const Place& place) {
  CheckCpu(place, "paddle::full");
  return oar::api::full(shape.GetData(), value, ToOarDType(dtype));
}
Tensor zeros(const IntArray& shape, DataType dtype, const Place& place) {
  return full(shape, 0.0, dtype, place);
}
Tensor ones(const IntArray& shape, DataType dtype, const Place& place) {
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
Tensor fill(const Tensor& x, double value) { return oar::api::fill(x, value); }

Tensor add(const Tensor& x, const Tensor& y) { return oar::api::add(x, y); }
Tensor subtract(const Tensor& x, const Tensor& y) { return oar::api::subtract(x, y); }
Tensor multiply(const Tensor& x, const Tensor& y) { return oar::api::multiply(x, y); }
Tensor divide(const Tensor& x, const Tensor& y) { return oar::api::divide(x, y); }
Tensor maximum(const Tensor& x, const Tensor& y) { return oar::api::maximum(x, y); }
Tensor minimum(const Tensor& x, const Tensor& y) { return oar::api::minimum(x, y); }
Tensor elementwise_pow(const Tensor& x, const Tensor& y) { return oar::api::elementwise_pow(x, y); }
Tensor scale(const Tensor& x, double scale, double bias, bool bias_after_scale) {
  return oar::api::scale(x, scale, bias, bias_after_scale);
}
Tensor pow(const Tensor& x, double y) { return oar::api::pow(x, y); }
Tensor clip(const Tensor& x, double min, double max) { return oar::api::clip(x, min, max); }
Tensor where(const Tensor& condition, const Tensor& x, const Tensor& y) {
  return oar::api::where(condition, x, y);
}

Tensor abs(const Tensor& x) { return oar::api::abs(x); }
Tensor exp(const Tensor& x) { return oar::api::exp(x); }
Tensor log(const Tensor& x) { return oar::api::log(x); }
Tensor sqrt(const Tensor& x) { return oar::api::sqrt(x); }
Tensor rsqrt(const Tensor& x) { return oar::api::rsqrt(x); }
Tensor square(const Tensor& x) { return oar::api::square(x); }
Tensor reciprocal(const Tensor& x) { return oar::api::reciprocal(x); }
Tensor floor(const Tensor& x) { return oar::api::floor(x); }
Tensor sign(const Tensor& x) { return oar::api::sign(x); }
Tensor sin(const Tensor& x) { return oar::api::sin(x); }
Tensor cos(const Tensor& x) { return oar::api::cos(x); }
Tensor tanh(const Tensor& x) { return oar::api::tanh(x); }
Tensor sigmoid(const Tensor& x) { return oar::api::sigmoid(x); }
Tensor relu(const Tensor& x) { return oar::api::relu(x); }
Tensor conj(const Tensor& x) { return oar::api::conj(x); }
Tensor real(const Tensor& x) { return oar::api::real(x); }
Tensor imag(const Tensor& x) { return oar::api::imag(x); }
Tensor cast(const Tensor& x, DataType dtype) { return oar::api::cast(x, ToOarDType(dtype)); }
Tensor assign(const Tensor& x) { return oar::api::assign(x); }

Tensor equal(const Tensor& x, const Tensor& y) { return oar::api::equal(x, y); }
Tensor not_equal(const Tensor& x, const Tensor& y) { return oar::api::not_equal(x, y); }
Tensor less_than(const Tensor& x, const Tensor& y) { return oar::api::less_than(x, y); }
Tensor less_equal(const Tensor& x, const Tensor& y) { return oar::api::less_equal(x, y); }
Tensor greater_than(const Tensor& x, const Tensor& y) { return oar::api::greater_than(x, y); }
Tensor greater_equal(const Tensor& x, const Tensor& y) { return oar::api::greater_equal(x, y); }
Tensor logical_and(const Tensor& x, const Tensor& y) { return oar::api::logical_and(x, y); }
Tensor logical_or(const Tensor& x, const Tensor& y) { return oar::api::logical_or(x, y); }
Tensor logical_xor(const Tensor& x, const Tensor& y) { return oar::api::logical_xor(x, y); }
Tensor logical_not(const Tensor& x) { return oar::api::logical_not(x); }
Tensor bitwise_and(const Tensor& x, const Tensor& y) { return oar::api::bitwise_and(x, y); }
Tensor bitwise_or(const Tensor& x, const Tensor& y) { return oar::api::bitwise_or(x, y); }
Tensor bitwise_xor(const Tensor& x, const Tensor& y) { return oar::api::bitwise_xor(x, y); }
Tensor bitwise_not(const Tensor& x) { return oar::api::bitwise_not(x); }

Tensor matmul(const Tensor& x, const Tensor& y, bool transpose_x, bool transpose_y) {
  return oar::api::matmul(x, y, transpose_x, transpose_y);
}
Tensor sum(const Tensor& x, const IntArray& axis, DataType dtype, bool keepdim) {
  return oar::api::sum(x, axis.GetData(), ToOarDType(dtype), keepdim);
}
Tensor mean(const Tensor& x, const IntArray& axis, bool keepdim) {
  return oar::api::mean(x, axis.GetData(), keepdim);
}
Tensor max(const Tensor& x, const IntArray& axis, bool keepdim) {
  return oar::api::max(x, axis.GetData(), keepdim);
}
Tensor min(const Tensor& x, const IntArray& axis, bool keepdim) {
  return oar::api::min(x, axis.GetData(), keepdim);
}
// reduce_all (Paddle's flag) reduces every axis, as an empty axis list does.
Tensor prod(const Tensor& x, const IntArray& axis, bool keepdim, bool reduce_all) {
  return oar::api::prod(x, reduce_all ? std::vector<int64_t>{} : axis.GetData(), keepdim);
}
Tensor softmax(const Tensor& x, int axis) { return oar::api::softmax(x, axis); }
Tensor reshape(const Tensor& x, const IntArray& shape) {
  return oar::api::reshape(x, shape.GetData());
}
Tensor transpose(const Tensor& x, const std::vector<int>& perm) {
  return oar::api::transpose(x, std::vector<int64_t>(perm.begin(), perm.end()));
}
Tensor unsqueeze(const Tensor& x, const IntArray& axis) {
  return oar::api::unsqueeze(x, axis.GetData());
}
Tensor squeeze(const Tensor& x, const IntArray& axis) {
  return oar::api::squeeze(x, axis.GetData());
}
Tensor expand(const Tensor& x, const IntArray& shape) {
  return oar::api::expand(x, shape.GetData());
}
Tensor concat(const std::vector<Tensor>& x, int64_t axis) {
  std::vector<oar::Tensor> ts(x.begin(), x.end());
  return oar::api::concat(ts, axis);
}
Tensor slice(const Tensor& x, const std::vector<int64_t>& axes, const IntArray& starts,
             const IntArray& ends) {
  return oar::api::slice(x, axes, starts.GetData(), ends.GetData());
}

}  // namespace experimental
}  // namespace paddle
