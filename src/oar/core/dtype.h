// Element types. The enum order is also the index of per-dtype kernel tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string_view>

#include "oar/core/errors.h"
#include "oar/core/float16.h"

namespace oar {

enum class DType : uint8_t {
  kBool = 0,
  kInt32,
  kInt64,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
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
    case DType::kUndefined:
      return 0;
  }
  return 0;
}

constexpr bool IsFloating(DType t) {
  return t == DType::kFloat16 || t == DType::kBFloat16 || t == DType::kFloat32 ||
         t == DType::kFloat64;
}
constexpr bool IsIntegral(DType t) { return t == DType::kInt32 || t == DType::kInt64; }

// Paddle's names: "float32", "int64", "bool", ...
std::string_view DTypeName(DType t);
// Parses Paddle/numpy spellings ("float32", "float", "fp16", "bfloat16", "int64", ...).
DType DTypeFromName(std::string_view name);
std::ostream& operator<<(std::ostream& os, DType t);

// Type promotion for binary ops (Paddle's rules for tensor-tensor operands):
// bool < integers < floats; within a kind, the wider type wins; float16 with
// bfloat16 gives float32.
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
template <typename T>
inline constexpr DType dtype_of_v = DTypeOf<T>::value;

// Calls fn.template operator()<T>() with T the C++ type of `t`.
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
    case DType::kUndefined:
      break;
  }
  throw errors::InvalidType("unsupported dtype ", static_cast<int>(t));
}

}  // namespace oar
