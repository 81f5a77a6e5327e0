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
      {"bool", DType::kBool},     {"int32", DType::kInt32},     {"int", DType::kInt64},
      {"int64", DType::kInt64},   {"long", DType::kInt64},      {"float16", DType::kFloat16},
      {"half", DType::kFloat16},  {"fp16", DType::kFloat16},    {"bfloat16", DType::kBFloat16},
      {"bf16", DType::kBFloat16}, {"float32", DType::kFloat32}, {"float", DType::kFloat32},
      {"fp32", DType::kFloat32},  {"float64", DType::kFloat64}, {"double", DType::kFloat64},
      {"fp64", DType::kFloat64},
  };
  for (const auto& a : kAliases) {
    if (a.name == name) return a.dtype;
  }
  throw errors::InvalidType("unknown dtype '", std::string(name),
                            "': expected one of bool, int32, int64, float16, bfloat16, float32, "
                            "float64");
}

std::ostream& operator<<(std::ostream& os, DType t) { return os << DTypeName(t); }

namespace {
// Rank inside a kind; the kinds are ordered bool < integer < floating.
int Kind(DType t) { return t == DType::kBool ? 0 : IsIntegral(t) ? 1 : 2; }
}  // namespace

DType PromoteTypes(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::kUndefined) return b;
  if (b == DType::kUndefined) return a;
  const int ka = Kind(a), kb = Kind(b);
  if (ka != kb) return ka > kb ? a : b;
  if ((a == DType::kFloat16 && b == DType::kBFloat16) ||
      (a == DType::kBFloat16 && b == DType::kFloat16)) {
    return DType::kFloat32;
  }
  return SizeOf(a) >= SizeOf(b) ? a : b;
}

}  // namespace oar
