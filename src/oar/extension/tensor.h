// paddle::Tensor for custom operators (docs/custom_ops.md): a thin handle over
// oar::Tensor with the methods Paddle's custom-op API gives a kernel (shape,
// dtype, place, data<T>(), mutable_data<T>(), copy_to, reshape, slice,
// arithmetic, comparisons), plus Paddle's DataType, places, creation functions
// and the operator functions of paddle::experimental (also reachable as
// paddle::add, paddle::matmul, ...).
//
// Only core headers are included, so a user's op compiles in about a second;
// what needs ops (creation, arithmetic, copies) is defined in liboar
// (src/oar/extension/tensor.cc) and runs without recording gradients: a
// kernel's own computations are never part of the graph.
#pragma once

#include <complex>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "oar/core/dtype.h"
#include "oar/core/errors.h"
#include "oar/core/place.h"
#include "oar/core/tensor.h"
#include "oar/extension/complex.h"
#include "oar/extension/place.h"

namespace paddle {

// Paddle's element-type enum. Each value is oar's DType of the same type, so
// the conversions are casts.
enum class DataType : uint8_t {
  BOOL = static_cast<uint8_t>(oar::DType::kBool),
  INT32 = static_cast<uint8_t>(oar::DType::kInt32),
  INT64 = static_cast<uint8_t>(oar::DType::kInt64),
  FLOAT16 = static_cast<uint8_t>(oar::DType::kFloat16),
  BFLOAT16 = static_cast<uint8_t>(oar::DType::kBFloat16),
  FLOAT32 = static_cast<uint8_t>(oar::DType::kFloat32),
  FLOAT64 = static_cast<uint8_t>(oar::DType::kFloat64),
  UINT8 = static_cast<uint8_t>(oar::DType::kUInt8),
  INT8 = static_cast<uint8_t>(oar::DType::kInt8),
  INT16 = static_cast<uint8_t>(oar::DType::kInt16),
  COMPLEX64 = static_cast<uint8_t>(oar::DType::kComplex64),
  COMPLEX128 = static_cast<uint8_t>(oar::DType::kComplex128),
  FLOAT8_E4M3FN = static_cast<uint8_t>(oar::DType::kFloat8E4M3FN),
  FLOAT8_E5M2 = static_cast<uint8_t>(oar::DType::kFloat8E5M2),
  UNDEFINED = static_cast<uint8_t>(oar::DType::kUndefined),
};
constexpr oar::DType ToOarDType(DataType t) { return static_cast<oar::DType>(t); }
constexpr DataType FromOarDType(oar::DType t) { return static_cast<DataType>(t); }
inline std::ostream& operator<<(std::ostream& os, DataType t) { return os << ToOarDType(t); }

using float16 = oar::float16;
using bfloat16 = oar::bfloat16;
// Paddle's complex (members real and imag), laid out as oar's std::complex.
template <typename T>
using complex = phi::dtype::complex<T>;
using complex64 = phi::complex64;
using complex128 = phi::complex128;

// Paddle's optional argument type (boost's interface: get(), get_ptr(),
// is_initialized()).
template <typename T>
class optional : public std::optional<T> {
 public:
  using std::optional<T>::optional;
  bool is_initialized() const { return this->has_value(); }
  const T& get() const { return this->value(); }
  T& get() { return this->value(); }
  const T* get_ptr() const { return this->has_value() ? &**this : nullptr; }
  T* get_ptr() { return this->has_value() ? &**this : nullptr; }
};
inline constexpr std::nullopt_t none = std::nullopt;

class Tensor {
 public:
  Tensor() = default;
  Tensor(const oar::Tensor& t) : t_(t) {}        // NOLINT: an oar tensor is a paddle tensor
  Tensor(oar::Tensor&& t) : t_(std::move(t)) {}  // NOLINT
  // Paddle's deferred allocation: the place (and shape) now, the memory at
  // mutable_data<T>().
  explicit Tensor(const Place& place, const std::vector<int64_t>& shape = {});

  const oar::Tensor& tensor() const { return t_; }
  oar::Tensor& tensor() { return t_; }
  operator const oar::Tensor&() const { return t_; }  // NOLINT

  // --- meta ------------------------------------------------------------
  std::vector<int64_t> shape() const { return t_.defined() ? t_.shape() : pending_shape_; }
  const oar::DDim& dims() const { return t_.dims(); }
  int64_t numel() const { return t_.defined() ? t_.numel() : Product(pending_shape_); }
  int64_t size() const { return numel(); }
  DataType dtype() const { return t_.defined() ? FromOarDType(t_.dtype()) : DataType::UNDEFINED; }
  DataType type() const { return dtype(); }  // Paddle's older spelling
  Place place() const { return t_.defined() ? Place(t_.place()) : pending_place_; }
  bool is_cpu() const { return place().is_cpu(); }
  bool is_gpu() const { return place().is_gpu(); }
  bool defined() const { return t_.defined(); }
  bool initialized() const { return t_.initialized(); }
  bool is_initialized() const { return t_.initialized(); }
  bool is_dense_tensor() const { return t_.is_dense(); }
  bool is_sparse_coo_tensor() const {
    return t_.defined() && t_.layout() == oar::DataLayout::kSparseCoo;
  }
  bool is_sparse_csr_tensor() const {
    return t_.defined() && t_.layout() == oar::DataLayout::kSparseCsr;
  }
  // Kinds of tensor oar does not have.
  bool is_selected_rows() const { return false; }
  bool is_string_tensor() const { return false; }
  bool is_dist_tensor() const { return false; }
  bool is_xpu() const { return false; }
  bool is_gpu_pinned() const { return false; }
  bool is_custom_device() const { return false; }
  bool is_contiguous() const { return !t_.defined() || !t_.is_dense() || t_.is_contiguous(); }
  const std::string& name() const { return t_.name(); }
  void set_name(const std::string& name) { t_.set_name(name); }
  void reset() { *this = Tensor(); }

  // --- data --------------------------------------------------------------
  // The element pointer; the tensor must be contiguous (kernels index it flat).
  template <typename T>
  const T* data() const {
    CheckData(oar::DTypeOf<T>::value);
    return t_.data<T>();
  }
  template <typename T>
  T* data() {
    CheckData(oar::DTypeOf<T>::value);
    return t_.data<T>();
  }
  // The first element, untyped (Paddle's Tensor::data()).
  const void* data() const;
  void* data();
  // Allocates (in T, with the shape given so far) unless already allocated as T.
  template <typename T>
  T* mutable_data(const Place& place = CPUPlace()) {
    Allocate(oar::DTypeOf<T>::value, place);
    return t_.data<T>();
  }

  // --- operations (no gradient is recorded) ------------------------------
  Tensor copy_to(const Place& place, bool blocking = true) const;
  // On a tensor with no memory yet it also sets the shape mutable_data<T>() will
  // allocate, as Paddle 2.1's in-place reshape did.
  Tensor reshape(const std::vector<int64_t>& shape) const;
  // Rows [begin, end) along the first axis, sharing memory (Paddle's slice).
  Tensor slice(int64_t begin, int64_t end) const;
  Tensor cast(DataType dtype) const;
  Tensor contiguous() const;
  Tensor abs() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor floor() const;
  Tensor pow(double y) const;
  Tensor scale(double scale = 1.0, double bias = 0.0, bool bias_after_scale = true) const;
  Tensor sum(const std::vector<int64_t>& axis = {}, DataType dtype = DataType::UNDEFINED,
             bool keepdim = false) const;
  Tensor prod(const std::vector<int64_t>& axis = {}, bool keepdim = false) const;

 private:
  void CheckData(oar::DType want) const;
  void Allocate(oar::DType dtype, const Place& place);
  static int64_t Product(const std::vector<int64_t>& v) {
    int64_t n = 1;
    for (int64_t d : v) n *= d;
    return n;
  }

  oar::Tensor t_;
  mutable std::vector<int64_t> pending_shape_;  // see reshape
  Place pending_place_ = CPUPlace();
};

namespace experimental {

// Paddle 2.3's name of the tensor class.
using Tensor = ::paddle::Tensor;

// A list of integers given as a vector of int64_t or int, or braces
// (`paddle::experimental::sum(x, {0})`): Paddle's IntArray for shapes and axes.
class IntArray {
 public:
  IntArray() = default;
  IntArray(const std::vector<int64_t>& v) : data_(v) {}  // NOLINT: Paddle converts implicitly
  IntArray(const std::vector<int32_t>& v) : data_(v.begin(), v.end()) {}  // NOLINT
  IntArray(std::initializer_list<int64_t> v) : data_(v) {}                // NOLINT
  const std::vector<int64_t>& GetData() const { return data_; }
  size_t size() const { return data_.size(); }
  operator const std::vector<int64_t>&() const { return data_; }  // NOLINT

 private:
  std::vector<int64_t> data_;
};

// Creation (Paddle's paddle::empty, full, zeros, ones and their _like forms).
// A place other than the CPU is an Unimplemented error: oar has no GPU backend.
Tensor empty(const IntArray& shape, DataType dtype = DataType::FLOAT32,
             const Place& place = CPUPlace());
Tensor full(const IntArray& shape, double value, DataType dtype = DataType::FLOAT32,
            const Place& place = CPUPlace());
Tensor zeros(const IntArray& shape, DataType dtype = DataType::FLOAT32,
             const Place& place = CPUPlace());
Tensor ones(const IntArray& shape, DataType dtype = DataType::FLOAT32,
            const Place& place = CPUPlace());
Tensor empty_like(const Tensor& x, DataType dtype = DataType::UNDEFINED,
                  const Place& place = CPUPlace());
Tensor full_like(const Tensor& x, double value, DataType dtype = DataType::UNDEFINED,
                 const Place& place = CPUPlace());
Tensor zeros_like(const Tensor& x, DataType dtype = DataType::UNDEFINED,
                  const Place& place = CPUPlace());
Tensor ones_like(const Tensor& x, DataType dtype = DataType::UNDEFINED,
                 const Place& place = CPUPlace());
// A tensor of x's shape and dtype filled with value (Paddle's fill; x is unchanged).
Tensor fill(const Tensor& x, double value);

// Element-wise arithmetic with broadcasting.
Tensor add(const Tensor& x, const Tensor& y);
Tensor subtract(const Tensor& x, const Tensor& y);
Tensor multiply(const Tensor& x, const Tensor& y);
Tensor divide(const Tensor& x, const Tensor& y);
Tensor maximum(const Tensor& x, const Tensor& y);
Tensor minimum(const Tensor& x, const Tensor& y);
Tensor elementwise_pow(const Tensor& x, const Tensor& y);
Tensor scale(const Tensor& x, double scale = 1.0, double bias = 0.0, bool bias_after_scale = true);
Tensor pow(const Tensor& x, double y);
Tensor clip(const Tensor& x, double min, double max);
Tensor where(const Tensor& condition, const Tensor& x, const Tensor& y);

// Element-wise functions.
Tensor abs(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor square(const Tensor& x);
Tensor reciprocal(const Tensor& x);
Tensor floor(const Tensor& x);
Tensor sign(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor conj(const Tensor& x);
Tensor real(const Tensor& x);
Tensor imag(const Tensor& x);
Tensor cast(const Tensor& x, DataType dtype);
Tensor assign(const Tensor& x);

// Comparisons (bool results) and logical / bitwise operations.
Tensor equal(const Tensor& x, const Tensor& y);
Tensor not_equal(const Tensor& x, const Tensor& y);
Tensor less_than(const Tensor& x, const Tensor& y);
Tensor less_equal(const Tensor& x, const Tensor& y);
Tensor greater_than(const Tensor& x, const Tensor& y);
Tensor greater_equal(const Tensor& x, const Tensor& y);
Tensor logical_and(const Tensor& x, const Tensor& y);
Tensor logical_or(const Tensor& x, const Tensor& y);
Tensor logical_xor(const Tensor& x, const Tensor& y);
Tensor logical_not(const Tensor& x);
Tensor bitwise_and(const Tensor& x, const Tensor& y);
Tensor bitwise_or(const Tensor& x, const Tensor& y);
Tensor bitwise_xor(const Tensor& x, const Tensor& y);
Tensor bitwise_not(const Tensor& x);

// Linear algebra, reductions and shape functions.
Tensor matmul(const Tensor& x, const Tensor& y, bool transpose_x = false, bool transpose_y = false);
Tensor sum(const Tensor& x, const IntArray& axis = {}, DataType dtype = DataType::UNDEFINED,
           bool keepdim = false);
Tensor mean(const Tensor& x, const IntArray& axis = {}, bool keepdim = false);
Tensor max(const Tensor& x, const IntArray& axis = {}, bool keepdim = false);
Tensor min(const Tensor& x, const IntArray& axis = {}, bool keepdim = false);
Tensor prod(const Tensor& x, const IntArray& axis = {}, bool keepdim = false,
            bool reduce_all = false);
Tensor softmax(const Tensor& x, int axis = -1);
Tensor reshape(const Tensor& x, const IntArray& shape);
Tensor transpose(const Tensor& x, const std::vector<int>& perm);
Tensor unsqueeze(const Tensor& x, const IntArray& axis);
Tensor squeeze(const Tensor& x, const IntArray& axis = {});
Tensor expand(const Tensor& x, const IntArray& shape);
Tensor concat(const std::vector<Tensor>& x, int64_t axis = 0);
Tensor slice(const Tensor& x, const std::vector<int64_t>& axes, const IntArray& starts,
             const IntArray& ends);

}  // namespace experimental

// Paddle's custom-op API reaches the operator functions both as
// paddle::experimental::f and as paddle::f.
using experimental::IntArray;
using namespace experimental;  // NOLINT: the same functions under Paddle's both names

inline Tensor operator+(const Tensor& x, const Tensor& y) { return add(x, y); }
inline Tensor operator-(const Tensor& x, const Tensor& y) { return subtract(x, y); }
inline Tensor operator*(const Tensor& x, const Tensor& y) { return multiply(x, y); }
inline Tensor operator/(const Tensor& x, const Tensor& y) { return divide(x, y); }
inline Tensor operator-(const Tensor& x) { return scale(x, -1.0); }
inline Tensor operator+(const Tensor& x, double y) { return scale(x, 1.0, y); }
inline Tensor operator-(const Tensor& x, double y) { return scale(x, 1.0, -y); }
inline Tensor operator*(const Tensor& x, double y) { return scale(x, y); }
inline Tensor operator/(const Tensor& x, double y) { return scale(x, 1.0 / y); }
inline Tensor operator+(double x, const Tensor& y) { return scale(y, 1.0, x); }
inline Tensor operator-(double x, const Tensor& y) { return scale(y, -1.0, x); }
inline Tensor operator*(double x, const Tensor& y) { return scale(y, x); }
inline Tensor operator/(double x, const Tensor& y) { return scale(reciprocal(y), x); }
// Comparisons give bool tensors, as Paddle's Tensor operators do.
inline Tensor operator==(const Tensor& x, const Tensor& y) { return equal(x, y); }
inline Tensor operator!=(const Tensor& x, const Tensor& y) { return not_equal(x, y); }
inline Tensor operator<(const Tensor& x, const Tensor& y) { return less_than(x, y); }
inline Tensor operator<=(const Tensor& x, const Tensor& y) { return less_equal(x, y); }
inline Tensor operator>(const Tensor& x, const Tensor& y) { return greater_than(x, y); }
inline Tensor operator>=(const Tensor& x, const Tensor& y) { return greater_equal(x, y); }
// Bitwise on integers, logical on bool (Paddle's Tensor &, |, ^, ~).
inline Tensor operator&(const Tensor& x, const Tensor& y) { return bitwise_and(x, y); }
inline Tensor operator|(const Tensor& x, const Tensor& y) { return bitwise_or(x, y); }
inline Tensor operator^(const Tensor& x, const Tensor& y) { return bitwise_xor(x, y); }
inline Tensor operator~(const Tensor& x) { return bitwise_not(x); }

}  // namespace paddle

namespace phi {
using DataType = paddle::DataType;
}  // namespace phi
