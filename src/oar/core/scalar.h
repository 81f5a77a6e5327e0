// A number attribute that remembers its kind (phi's Scalar): an int64 stays
// exact however large, a double stays a double.
#pragma once

#include <concepts>
#include <cstdint>
#include <ostream>

namespace oar {

class Scalar {
 public:
  enum class Kind : uint8_t { kBool, kInt, kFloat };

  Scalar() : Scalar(0.0) {}
  template <std::floating_point T>
  Scalar(T v) : kind_(Kind::kFloat), d_(static_cast<double>(v)) {}  // NOLINT: implicit by design
  template <std::integral T>
  Scalar(T v)
      : kind_(std::same_as<T, bool> ? Kind::kBool : Kind::kInt),
        i_(static_cast<int64_t>(v)) {}  // NOLINT

  Kind kind() const { return kind_; }
  bool is_floating() const { return kind_ == Kind::kFloat; }
  double to_double() const { return kind_ == Kind::kFloat ? d_ : static_cast<double>(i_); }
  // Exact for integers; floats truncate toward zero.
  int64_t to_int64() const { return kind_ == Kind::kFloat ? static_cast<int64_t>(d_) : i_; }
  bool to_bool() const { return kind_ == Kind::kFloat ? d_ != 0 : i_ != 0; }

  friend std::ostream& operator<<(std::ostream& os, const Scalar& s) {
    if (s.kind_ == Kind::kBool) return os << (s.i_ ? "true" : "false");
    if (s.kind_ == Kind::kInt) return os << s.i_;
    return os << s.d_;
  }

 private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
  };
};

}  // namespace oar
