// Element types. The enum order is also the index of per-dtype kernel tables
// (and of the Python dtype objects, python/oar/_dtype.py ALL): new dtypes are
// appended before kUndefined so existing indices keep their meaning.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string_view>
#include <utility>

#include "oar/core/errors.h"
#include "oar/core/float16.h"
#include "oar/core/float8.h"

namespace oar {

enum class DType : uint8_t {
  kBool = 0,
  kInt32,
  kInt64,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
  kUInt8,
  kInt8,
  kInt16,
  kComplex64,
  kComplex128,
  // Storage only: created by casts, cast back, printed; no arithmetic kernel
  // takes them (core/float8.h).
  kFloat8E4M3FN,
  kFloat8E5M2,
  kUndefined,
};
inline constexpr int kNumDTypes = static_cast<int>(DType::kUndefined);

constexpr size_t SizeOf(DType t) {
  switch (t) {
    case DType::kBool:
      return 1;
    case DType::kInt32:
      return 4;
    case DType::kInt64:
      return 8;
    case DType::kFloat16:
      return 2;
    case DType::kBFloat16:
      return 2;
    case DType::kFloat32:
      return 4;
    case DType::kFloat64:
      return 8;
    case DType::kUInt8:
    case DType::kInt8:
      return 1;
    case DType::kInt16:
      return 2;
    case DType::kComplex64:
      return 8;
    case DType::kComplex128:
      return 16;
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E5M2:
      return 1;
    case DType::kUndefined:
      return 0;
  }
  return 0;
}

constexpr bool IsFloating(DType t) {
  return t == DType::kFloat16 || t == DType::kBFloat16 || t == DType::kFloat32 ||
         t == DType::kFloat64;
}
constexpr bool IsIntegral(DType t) {
  return t == DType::kInt32 || t == DType::kInt64 || t == DType::kUInt8 || t == DType::kInt8 ||
         t == DType::kInt16;
}
constexpr bool IsComplex(DType t) { return t == DType::kComplex64 || t == DType::kComplex128; }
constexpr bool IsFloat8(DType t) { return t == DType::kFloat8E4M3FN || t == DType::kFloat8E5M2; }
// The real dtype of a complex one (complex64 -> float32); other dtypes map to themselves.
constexpr DType ToReal(DType t) {
  return t == DType::kComplex64 ? DType::kFloat32 : t == DType::kComplex128 ? DType::kFloat64 : t;
}
// The complex dtype holding a real one (float64 -> complex128, everything else
// -> complex64; complex dtypes map to themselves).
constexpr DType ToComplex(DType t) {
  return IsComplex(t) ? t : t == DType::kFloat64 ? DType::kComplex128 : DType::kComplex64;
}

// Complex elements are std::complex (real, imag interleaved, as FFTW's and
// OpenBLAS's complex types), so libraries can write into a tensor's memory.
using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

// Paddle's names: "float32", "int64", "bool", ...
std::string_view DTypeName(DType t);
// Parses Paddle/numpy spellings ("float32", "float", "fp16", "bfloat16", "int64", ...).
DType DTypeFromName(std::string_view name);
std::ostream& operator<<(std::ostream& os, DType t);

// Type promotion for binary ops (Paddle's rules for tensor-tensor operands):
// bool < integers < floats < complex; within a kind, the wider type wins
// (uint8 with int8 gives int16); float16 with bfloat16 gives float32; a complex
// with float64 gives complex128.
DType PromoteTypes(DType a, DType b);

template <typename T>
struct DTypeOf;
template <>
struct DTypeOf<bool> {
  static constexpr DType value = DType::kBool;
};
template <>
struct DTypeOf<int32_t> {
  static constexpr DType value = DType::kInt32;
};
template <>
struct DTypeOf<int64_t> {
  static constexpr DType value = DType::kInt64;
};
template <>
struct DTypeOf<float16> {
  static constexpr DType value = DType::kFloat16;
};
template <>
struct DTypeOf<bfloat16> {
  static constexpr DType value = DType::kBFloat16;
};
template <>
struct DTypeOf<float> {
  static constexpr DType value = DType::kFloat32;
};
template <>
struct DTypeOf<double> {
  static constexpr DType value = DType::kFloat64;
};
template <>
struct DTypeOf<uint8_t> {
  static constexpr DType value = DType::kUInt8;
};
template <>
struct DTypeOf<int8_t> {
  static constexpr DType value = DType::kInt8;
};
template <>
struct DTypeOf<int16_t> {
  static constexpr DType value = DType::kInt16;
};
template <>
struct DTypeOf<complex64> {
  static constexpr DType value = DType::kComplex64;
};
template <>
struct DTypeOf<complex128> {
  static constexpr DType value = DType::kComplex128;
};
template <>
struct DTypeOf<float8_e4m3fn> {
  static constexpr DType value = DType::kFloat8E4M3FN;
};
template <>
struct DTypeOf<float8_e5m2> {
  static constexpr DType value = DType::kFloat8E5M2;
};
template <typename T>
inline constexpr DType dtype_of_v = DTypeOf<T>::value;

template <typename T>
inline constexpr bool is_complex_v = false;
template <typename T>
inline constexpr bool is_complex_v<std::complex<T>> = true;

[[noreturn]] void ThrowNoComplex(DType t);
// A float8 dtype reached code that computes (core/float8.h: they are storage only).
[[noreturn]] void ThrowStorageOnly(DType t);

// Calls fn.template operator()<T>() with T the C++ type of `t`, for the real
// dtypes; a complex `t` throws InvalidType (most generic code has no complex
// meaning: comparisons, casts to integers). VisitDTypeWithComplex covers both.
template <typename Fn>
decltype(auto) VisitDType(DType t, Fn&& fn) {
  switch (t) {
    case DType::kBool:
      return fn.template operator()<bool>();
    case DType::kInt32:
      return fn.template operator()<int32_t>();
    case DType::kInt64:
      return fn.template operator()<int64_t>();
    case DType::kFloat16:
      return fn.template operator()<float16>();
    case DType::kBFloat16:
      return fn.template operator()<bfloat16>();
    case DType::kFloat32:
      return fn.template operator()<float>();
    case DType::kFloat64:
      return fn.template operator()<double>();
    case DType::kUInt8:
      return fn.template operator()<uint8_t>();
    case DType::kInt8:
      return fn.template operator()<int8_t>();
    case DType::kInt16:
      return fn.template operator()<int16_t>();
    case DType::kComplex64:
    case DType::kComplex128:
      ThrowNoComplex(t);
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E5M2:
      ThrowStorageOnly(t);
    case DType::kUndefined:
      break;
  }
  throw errors::InvalidType("unsupported dtype ", static_cast<int>(t));
}

template <typename Fn>
decltype(auto) VisitDTypeWithComplex(DType t, Fn&& fn) {
  if (t == DType::kComplex64) return fn.template operator()<complex64>();
  if (t == DType::kComplex128) return fn.template operator()<complex128>();
  return VisitDType(t, std::forward<Fn>(fn));
}

}  // namespace oar
