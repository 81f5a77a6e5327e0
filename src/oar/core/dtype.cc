#include "oar/core/dtype.h"

#include <string>

namespace oar {

std::string_view DTypeName(DType t) {
  switch (t) {
    case DType::kBool:
      return "bool";
    case DType::kInt32:
      return "int32";
    case DType::kInt64:
      return "int64";
    case DType::kFloat16:
      return "float16";
    case DType::kBFloat16:
      return "bfloat16";
    case DType::kFloat32:
      return "float32";
    case DType::kFloat64:
      return "float64";
    case DType::kUInt8:
      return "uint8";
    case DType::kInt8:
      return "int8";
    case DType::kInt16:
      return "int16";
    case DType::kComplex64:
      return "complex64";
    case DType::kComplex128:
      return "complex128";
    case DType::kFloat8E4M3FN:
      return "float8_e4m3fn";
    case DType::kFloat8E5M2:
      return "float8_e5m2";
    case DType::kUndefined:
      return "undefined";
  }
  return "undefined";
}

DType DTypeFromName(std::string_view name) {
  if (name.starts_with("paddle.")) name.remove_prefix(7);
  if (name.starts_with("oar.")) name.remove_prefix(4);
  struct Alias {
    std::string_view name;
    DType dtype;
  };
  static constexpr Alias kAliases[] = {
      {"bool", DType::kBool},
      {"int32", DType::kInt32},
      {"int", DType::kInt64},
      {"int64", DType::kInt64},
      {"long", DType::kInt64},
      {"float16", DType::kFloat16},
      {"half", DType::kFloat16},
      {"fp16", DType::kFloat16},
      {"bfloat16", DType::kBFloat16},
      {"bf16", DType::kBFloat16},
      {"float32", DType::kFloat32},
      {"float", DType::kFloat32},
      {"fp32", DType::kFloat32},
      {"float64", DType::kFloat64},
      {"double", DType::kFloat64},
      {"fp64", DType::kFloat64},
      {"uint8", DType::kUInt8},
      {"int8", DType::kInt8},
      {"int16", DType::kInt16},
      {"complex64", DType::kComplex64},
      {"complex128", DType::kComplex128},
      {"float8_e4m3fn", DType::kFloat8E4M3FN},
      {"float8_e5m2", DType::kFloat8E5M2},
  };
  for (const auto& a : kAliases) {
    if (a.name == name) return a.dtype;
  }
  throw errors::InvalidType("unknown dtype '", std::string(name),
                            "': expected one of bool, uint8, int8, int16, int32, int64, float16, "
                            "bfloat16, float32, float64, complex64, complex128, float8_e4m3fn, "
                            "float8_e5m2");
}

std::ostream& operator<<(std::ostream& os, DType t) { return os << DTypeName(t); }

void ThrowNoComplex(DType t) {
  throw errors::InvalidType("this operation has no meaning for the complex dtype ", DTypeName(t));
}

void ThrowStorageOnly(DType t) {
  throw errors::InvalidType("the dtype ", DTypeName(t),
                            " is for storage only: cast the tensor to float32 (or another dtype) "
                            "first");
}

namespace {
// Rank inside a kind; the kinds are ordered bool < integer < floating.
int Kind(DType t) { return t == DType::kBool ? 0 : IsIntegral(t) ? 1 : IsFloating(t) ? 2 : 3; }
}  // namespace

DType PromoteTypes(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::kUndefined) return b;
  if (b == DType::kUndefined) return a;
  if (IsFloat8(a) || IsFloat8(b)) {  // as PyTorch: no promotion rule for them
    throw errors::InvalidType("no promotion of ", DTypeName(a), " with ", DTypeName(b),
                              ": float8 dtypes are for storage only; cast to float32 first");
  }
  const int ka = Kind(a), kb = Kind(b);
  if (ka == 3 || kb == 3) {
    // complex wins; it is complex128 if either side holds a double.
    const bool wide = a == DType::kFloat64 || b == DType::kFloat64 || a == DType::kComplex128 ||
                      b == DType::kComplex128;
    return wide ? DType::kComplex128 : DType::kComplex64;
  }
  if (ka != kb) return ka > kb ? a : b;
  // uint8 with a signed 8-bit type: neither holds the other (numpy's rule).
  if ((a == DType::kUInt8 && b == DType::kInt8) || (a == DType::kInt8 && b == DType::kUInt8)) {
    return DType::kInt16;
  }
  if ((a == DType::kFloat16 && b == DType::kBFloat16) ||
      (a == DType::kBFloat16 && b == DType::kFloat16)) {
    return DType::kFloat32;
  }
  return SizeOf(a) >= SizeOf(b) ? a : b;
}

}  // namespace oar
