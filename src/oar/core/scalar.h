// A number attribute that remembers its kind (phi's Scalar): an int64 stays
// exact however large, a double stays a double, a complex keeps both parts.
#pragma once

#include <complex>
#include <concepts>
#include <cstdint>
#include <ostream>

namespace oar {

class Scalar {
 public:
  enum class Kind : uint8_t { kBool, kInt, kFloat, kComplex };

  Scalar() : Scalar(0.0) {}
  template <std::floating_point T>
  Scalar(T v) : kind_(Kind::kFloat), d_(static_cast<double>(v)) {}  // NOLINT: implicit by design
  template <std::integral T>
  Scalar(T v)
      : kind_(std::same_as<T, bool> ? Kind::kBool : Kind::kInt),
        i_(static_cast<int64_t>(v)) {}  // NOLINT

  template <std::floating_point T>
  Scalar(std::complex<T> v)  // NOLINT: implicit by design
      : kind_(Kind::kComplex), d_(static_cast<double>(v.real())), imag_(v.imag()) {}

  Kind kind() const { return kind_; }
  // Floating or complex: the value is held as double(s).
  bool is_floating() const { return kind_ == Kind::kFloat || kind_ == Kind::kComplex; }
  bool is_complex() const { return kind_ == Kind::kComplex; }
  // The real part for a complex.
  double to_double() const { return is_floating() ? d_ : static_cast<double>(i_); }
  double imag() const { return kind_ == Kind::kComplex ? imag_ : 0.0; }
  std::complex<double> to_complex() const { return {to_double(), imag()}; }
  // Exact for integers; floats truncate toward zero.
  int64_t to_int64() const { return is_floating() ? static_cast<int64_t>(d_) : i_; }
  bool to_bool() const { return is_floating() ? (d_ != 0 || imag() != 0) : i_ != 0; }

  friend std::ostream& operator<<(std::ostream& os, const Scalar& s) {
    if (s.kind_ == Kind::kBool) return os << (s.i_ ? "true" : "false");
    if (s.kind_ == Kind::kInt) return os << s.i_;
    if (s.kind_ == Kind::kComplex)
      return os << '(' << s.d_ << (s.imag_ < 0 ? "" : "+") << s.imag_ << "j)";
    return os << s.d_;
  }

 private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
  };
  double imag_ = 0.0;
};

}  // namespace oar
