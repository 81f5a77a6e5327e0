// paddle::Tensor for custom operators (docs/custom_ops.md): a thin handle over
// oar::Tensor with the methods Paddle's custom-op API gives a kernel (shape,
// dtype, place, data<T>(), mutable_data<T>(), copy_to, reshape, slice,
// arithmetic), plus Paddle's DataType, places and creation functions.
//
// Only core headers are included, so a user's op compiles in about a second;
// what needs ops (creation, arithmetic, copies) is defined in liboar
// (src/oar/extension/tensor.cc) and runs without recording gradients: a
// kernel's own computations are never part of the graph.
#pragma once

#include <complex>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "oar/core/dtype.h"
#include "oar/core/errors.h"
#include "oar/core/place.h"
#include "oar/core/tensor.h"

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
  UNDEFINED = static_cast<uint8_t>(oar::DType::kUndefined),
};
constexpr oar::DType ToOarDType(DataType t) { return static_cast<oar::DType>(t); }
constexpr DataType FromOarDType(oar::DType t) { return static_cast<DataType>(t); }
inline std::ostream& operator<<(std::ostream& os, DataType t) { return os << ToOarDType(t); }

using float16 = oar::float16;
using bfloat16 = oar::bfloat16;
using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

// Places: oar's Place; `x.place() == paddle::PlaceType::kCPU` compares through
// Place's converting constructor.
using Place = oar::Place;
using PlaceType = oar::AllocationType;
using oar::CPUPlace;
using oar::GPUPlace;

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
  Place place() const { return t_.defined() ? t_.place() : pending_place_; }
  bool is_cpu() const { return place().is_cpu(); }
  bool is_gpu() const { return place().is_gpu(); }
  bool defined() const { return t_.defined(); }
  bool initialized() const { return t_.initialized(); }
  bool is_initialized() const { return t_.initialized(); }
  bool is_dense_tensor() const { return t_.is_dense(); }
  const std::string& name() const { return t_.name(); }

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

// Creation (Paddle's paddle::empty, full, zeros, ones and their _like forms).
Tensor empty(const std::vector<int64_t>& shape, DataType dtype = DataType::FLOAT32,
             const Place& place = CPUPlace());
Tensor full(const std::vector<int64_t>& shape, double value, DataType dtype = DataType::FLOAT32,
            const Place& place = CPUPlace());
Tensor zeros(const std::vector<int64_t>& shape, DataType dtype = DataType::FLOAT32,
             const Place& place = CPUPlace());
Tensor ones(const std::vector<int64_t>& shape, DataType dtype = DataType::FLOAT32,
            const Place& place = CPUPlace());
Tensor empty_like(const Tensor& x, DataType dtype = DataType::UNDEFINED,
                  const Place& place = CPUPlace());
Tensor full_like(const Tensor& x, double value, DataType dtype = DataType::UNDEFINED,
                 const Place& place = CPUPlace());
Tensor zeros_like(const Tensor& x, DataType dtype = DataType::UNDEFINED,
                  const Place& place = CPUPlace());
Tensor ones_like(const Tensor& x, DataType dtype = DataType::UNDEFINED,
                 const Place& place = CPUPlace());

// Element-wise arithmetic with broadcasting.
Tensor add(const Tensor& x, const Tensor& y);
Tensor subtract(const Tensor& x, const Tensor& y);
Tensor multiply(const Tensor& x, const Tensor& y);
Tensor divide(const Tensor& x, const Tensor& y);
Tensor scale(const Tensor& x, double scale, double bias = 0.0);
Tensor exp(const Tensor& x);
Tensor abs(const Tensor& x);

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

}  // namespace paddle
