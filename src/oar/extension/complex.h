// Paddle's complex element type for custom operators: phi::dtype::complex<T>
// (paddle::complex64, paddle::complex128), with public members `real` and
// `imag` as kernels written for Paddle use them (`data_t(v.real, -v.imag)`).
//
// It has std::complex<T>'s layout (two T, real first), which is how oar stores
// complex tensors, so a kernel's `x.data<paddle::complex64>()` points at the
// tensor's own elements; the arithmetic converts to std::complex and back.
#pragma once

#include <complex>
#include <ostream>
#include <type_traits>

#include "oar/core/dtype.h"

namespace phi::dtype {

template <typename T>
struct complex {
  T real{};
  T imag{};

  constexpr complex() = default;
  constexpr complex(T re, T im) : real(re), imag(im) {}
  // From a real number of any arithmetic type (`static_cast<data_t>(0)` in
  // generic kernels), imaginary part zero.
  template <typename U, typename = std::enable_if_t<std::is_arithmetic_v<U>>>
  constexpr complex(U re) : real(static_cast<T>(re)) {}  // NOLINT
  template <typename U>
  constexpr explicit complex(const complex<U>& c)
      : real(static_cast<T>(c.real)), imag(static_cast<T>(c.imag)) {}
  constexpr complex(const std::complex<T>& c) : real(c.real()), imag(c.imag()) {}  // NOLINT
  constexpr operator std::complex<T>() const { return {real, imag}; }              // NOLINT

  constexpr complex& operator+=(const complex& o) { return *this = *this + o; }
  constexpr complex& operator-=(const complex& o) { return *this = *this - o; }
  constexpr complex& operator*=(const complex& o) { return *this = *this * o; }
  constexpr complex& operator/=(const complex& o) { return *this = *this / o; }

  friend constexpr complex operator+(const complex& a, const complex& b) {
    return {a.real + b.real, a.imag + b.imag};
  }
  friend constexpr complex operator-(const complex& a, const complex& b) {
    return {a.real - b.real, a.imag - b.imag};
  }
  friend constexpr complex operator*(const complex& a, const complex& b) {
    return {a.real * b.real - a.imag * b.imag, a.real * b.imag + a.imag * b.real};
  }
  friend complex operator/(const complex& a, const complex& b) {
    return complex(std::complex<T>(a) / std::complex<T>(b));
  }
  friend constexpr complex operator-(const complex& a) { return {-a.real, -a.imag}; }
  friend constexpr complex operator+(const complex& a) { return a; }
  friend constexpr bool operator==(const complex& a, const complex& b) {
    return a.real == b.real && a.imag == b.imag;
  }
  friend std::ostream& operator<<(std::ostream& os, const complex& c) {
    return os << std::complex<T>(c);
  }
};

static_assert(sizeof(complex<float>) == sizeof(std::complex<float>) &&
                  alignof(complex<float>) == alignof(std::complex<float>),
              "paddle::complex64 must have std::complex<float>'s layout: oar's complex64 memory");
static_assert(sizeof(complex<double>) == sizeof(std::complex<double>) &&
                  alignof(complex<double>) == alignof(std::complex<double>),
              "paddle::complex128 must have std::complex<double>'s layout");

// The functions Paddle's complex has, found by argument-dependent lookup.
template <typename T>
T abs(const complex<T>& c) {
  return std::abs(std::complex<T>(c));
}
template <typename T>
T arg(const complex<T>& c) {
  return std::arg(std::complex<T>(c));
}
template <typename T>
constexpr complex<T> conj(const complex<T>& c) {
  return {c.real, -c.imag};
}
template <typename T>
complex<T> exp(const complex<T>& c) {
  return std::exp(std::complex<T>(c));
}
template <typename T>
complex<T> log(const complex<T>& c) {
  return std::log(std::complex<T>(c));
}
template <typename T>
complex<T> sqrt(const complex<T>& c) {
  return std::sqrt(std::complex<T>(c));
}
template <typename T>
complex<T> pow(const complex<T>& a, const complex<T>& b) {
  return std::pow(std::complex<T>(a), std::complex<T>(b));
}

}  // namespace phi::dtype

namespace phi {
using complex64 = dtype::complex<float>;
using complex128 = dtype::complex<double>;
}  // namespace phi

// Tensor::data<paddle::complex64>() reads oar's complex64 memory.
template <>
struct oar::DTypeOf<phi::dtype::complex<float>> {
  static constexpr DType value = DType::kComplex64;
};
template <>
struct oar::DTypeOf<phi::dtype::complex<double>> {
  static constexpr DType value = DType::kComplex128;
};
