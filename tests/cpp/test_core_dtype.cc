// DType names, parsing, sizes and the binary-op promotion table.
#include <gtest/gtest.h>

#include <cmath>
#include <iterator>
#include <sstream>
#include <string>

#include "oar/core/dtype.h"
#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;

// In enum order (the kernel tables' index).
constexpr DType kAll[] = {DType::kBool,         DType::kInt32,     DType::kInt64,
                          DType::kFloat16,      DType::kBFloat16,  DType::kFloat32,
                          DType::kFloat64,      DType::kUInt8,     DType::kInt8,
                          DType::kInt16,        DType::kComplex64, DType::kComplex128,
                          DType::kFloat8E4M3FN, DType::kFloat8E5M2};
static_assert(std::size(kAll) == kNumDTypes);

TEST(DType, NamesAndSizes) {
  const char* names[] = {"bool",      "int32",      "int64",         "float16",    "bfloat16",
                         "float32",   "float64",    "uint8",         "int8",       "int16",
                         "complex64", "complex128", "float8_e4m3fn", "float8_e5m2"};
  const size_t sizes[] = {1, 4, 8, 2, 2, 4, 8, 1, 1, 2, 8, 16, 1, 1};
  for (int i = 0; i < kNumDTypes; ++i) {
    EXPECT_EQ(DTypeName(kAll[i]), names[i]);
    EXPECT_EQ(SizeOf(kAll[i]), sizes[i]) << names[i];
    EXPECT_EQ(DTypeFromName(names[i]), kAll[i]);
    std::ostringstream os;
    os << kAll[i];
    EXPECT_EQ(os.str(), names[i]);
  }
  EXPECT_EQ(DTypeName(DType::kUndefined), "undefined");
  EXPECT_EQ(SizeOf(DType::kUndefined), 0u);
  EXPECT_TRUE(IsFloating(DType::kBFloat16));
  EXPECT_FALSE(IsFloating(DType::kInt64));
  EXPECT_TRUE(IsIntegral(DType::kInt32));
  EXPECT_FALSE(IsIntegral(DType::kBool));
  for (DType t : {DType::kUInt8, DType::kInt8, DType::kInt16}) {
    EXPECT_TRUE(IsIntegral(t)) << t;
    EXPECT_FALSE(IsFloating(t) || IsComplex(t)) << t;
  }
  EXPECT_TRUE(IsComplex(DType::kComplex64));
  EXPECT_FALSE(IsFloating(DType::kComplex128) || IsIntegral(DType::kComplex128));
  EXPECT_EQ(ToReal(DType::kComplex64), DType::kFloat32);
  EXPECT_EQ(ToReal(DType::kComplex128), DType::kFloat64);
  EXPECT_EQ(ToComplex(DType::kFloat64), DType::kComplex128);
  EXPECT_EQ(ToComplex(DType::kFloat16), DType::kComplex64);
  // std::complex is (real, imag) interleaved, the layout FFT and BLAS libraries write.
  static_assert(sizeof(complex64) == 2 * sizeof(float));
  static_assert(sizeof(complex128) == 2 * sizeof(double));
}

// Every one of the 256 codes decodes to a float that encodes back to it (NaNs to the
// canonical NaN, S.1111.111 for e4m3fn; S.11111.11 for e5m2); rounding to nearest
// even between neighbours, saturation at e4m3fn's 448 and infinity past e5m2's 57344.
TEST(DType, Float8RoundTripsAndRounds) {
  for (int c = 0; c < 256; ++c) {
    float8_e4m3fn a;
    a.x = static_cast<uint8_t>(c);
    const float fa = a;
    if ((c & 0x7f) == 0x7f) {
      EXPECT_TRUE(std::isnan(fa)) << c;
      EXPECT_EQ(float8_e4m3fn(fa).x & 0x7f, 0x7f) << c;
    } else {
      EXPECT_EQ(float8_e4m3fn(fa).x, c) << c << " decodes to " << fa;
    }
    float8_e5m2 b;
    b.x = static_cast<uint8_t>(c);
    const float fb = b;
    if ((c & 0x7f) > 0x7c) {
      EXPECT_TRUE(std::isnan(fb)) << c;
    } else {
      EXPECT_EQ(float8_e5m2(fb).x, c) << c << " decodes to " << fb;
    }
  }
  EXPECT_EQ(static_cast<float>(float8_e4m3fn(1.0625f)), 1.0f);   // tie to even
  EXPECT_EQ(static_cast<float>(float8_e4m3fn(1.1875f)), 1.25f);  // tie to even (up)
  EXPECT_EQ(static_cast<float>(float8_e4m3fn(465.0f)), 448.0f);  // saturates
  EXPECT_EQ(static_cast<float>(float8_e4m3fn(-INFINITY)), -448.0f);
  EXPECT_EQ(static_cast<float>(float8_e4m3fn(0x1p-10f)), 0.0f);  // half the smallest: to even
  EXPECT_EQ(static_cast<float>(float8_e5m2(57344.0f)), 57344.0f);
  EXPECT_EQ(static_cast<float>(float8_e5m2(61440.0f)), INFINITY);
  EXPECT_EQ(static_cast<float>(float8_e5m2(0x1p-16f)), 0x1p-16f);  // the smallest subnormal
  Catch([] { PromoteTypes(DType::kFloat8E4M3FN, DType::kFloat32); }, ErrorCode::kInvalidType,
        {"float8_e4m3fn", "storage only"});
}

TEST(DType, PromoteTypesWithTheNewDTypes) {
  EXPECT_EQ(PromoteTypes(DType::kUInt8, DType::kInt8), DType::kInt16);
  EXPECT_EQ(PromoteTypes(DType::kInt8, DType::kInt16), DType::kInt16);
  EXPECT_EQ(PromoteTypes(DType::kUInt8, DType::kInt32), DType::kInt32);
  EXPECT_EQ(PromoteTypes(DType::kInt16, DType::kFloat16), DType::kFloat16);
  EXPECT_EQ(PromoteTypes(DType::kFloat32, DType::kComplex64), DType::kComplex64);
  EXPECT_EQ(PromoteTypes(DType::kFloat64, DType::kComplex64), DType::kComplex128);
  EXPECT_EQ(PromoteTypes(DType::kInt64, DType::kComplex64), DType::kComplex64);
  EXPECT_EQ(PromoteTypes(DType::kBool, DType::kComplex128), DType::kComplex128);
  EXPECT_EQ(PromoteTypes(DType::kComplex64, DType::kComplex128), DType::kComplex128);
}

TEST(DType, FromNameAcceptsAliasesAndPrefixes) {
  const std::pair<const char*, DType> aliases[] = {
      {"float", DType::kFloat32},
      {"fp32", DType::kFloat32},
      {"double", DType::kFloat64},
      {"fp64", DType::kFloat64},
      {"half", DType::kFloat16},
      {"fp16", DType::kFloat16},
      {"bf16", DType::kBFloat16},
      {"int", DType::kInt64},
      {"long", DType::kInt64},
      {"oar.bool", DType::kBool},
      {"paddle.float32", DType::kFloat32},
      {"paddle.bf16", DType::kBFloat16},
  };
  for (const auto& [name, dtype] : aliases) EXPECT_EQ(DTypeFromName(name), dtype) << name;
}

TEST(DType, FromNameRejectsUnknownNamesWithATypedError) {
  for (const char* bad : {"float8", "", "Float32", "int12", "torch.float32", "complex32"}) {
    const std::string quoted = StrCat("'", bad, "'");
    Catch([&] { DTypeFromName(bad); }, ErrorCode::kInvalidType, {quoted, "float32"});
  }
}

TEST(DType, PromoteTypesTable) {
  constexpr DType b = DType::kBool, i32 = DType::kInt32, i64 = DType::kInt64, f16 = DType::kFloat16,
                  bf = DType::kBFloat16, f32 = DType::kFloat32, f64 = DType::kFloat64;
  // Rows and columns in the order of kAll.
  const DType expected[7][7] = {
      /* bool  */ {b, i32, i64, f16, bf, f32, f64},
      /* int32 */ {i32, i32, i64, f16, bf, f32, f64},
      /* int64 */ {i64, i64, i64, f16, bf, f32, f64},
      /* f16   */ {f16, f16, f16, f16, f32, f32, f64},
      /* bf16  */ {bf, bf, bf, f32, bf, f32, f64},
      /* f32   */ {f32, f32, f32, f32, f32, f32, f64},
      /* f64   */ {f64, f64, f64, f64, f64, f64, f64},
  };
  for (int r = 0; r < 7; ++r) {
    for (int c = 0; c < 7; ++c) {
      EXPECT_EQ(PromoteTypes(kAll[r], kAll[c]), expected[r][c]) << kAll[r] << " + " << kAll[c];
      EXPECT_EQ(PromoteTypes(kAll[r], kAll[c]), PromoteTypes(kAll[c], kAll[r]));
    }
    EXPECT_EQ(PromoteTypes(kAll[r], DType::kUndefined), kAll[r]);
    EXPECT_EQ(PromoteTypes(DType::kUndefined, kAll[r]), kAll[r]);
  }
}

TEST(DType, VisitDTypeAndDTypeOfAgree) {
  for (DType t : kAll) {
    if (IsFloat8(t)) {
      // Storage only: code that computes refuses them with a typed error naming them.
      static_assert(sizeof(float8_e4m3fn) == 1 && sizeof(float8_e5m2) == 1);
      for (int with_complex = 0; with_complex < 2; ++with_complex) {
        Catch(
            [t, with_complex] {
              if (with_complex) {
                VisitDTypeWithComplex(t, []<typename T>() { return 0; });
              } else {
                VisitDType(t, []<typename T>() { return 0; });
              }
            },
            ErrorCode::kInvalidType, {std::string(DTypeName(t)), "storage only"});
      }
      continue;
    }
    const DType seen = VisitDTypeWithComplex(t, []<typename T>() { return dtype_of_v<T>; });
    EXPECT_EQ(seen, t);
    const size_t size = VisitDTypeWithComplex(t, []<typename T>() { return sizeof(T); });
    EXPECT_EQ(size, SizeOf(t));
    if (IsComplex(t)) {
      // Generic real-only code refuses complex with a typed error naming the dtype.
      Catch([t] { VisitDType(t, []<typename T>() { return 0; }); }, ErrorCode::kInvalidType,
            {std::string(DTypeName(t))});
    } else {
      EXPECT_EQ(VisitDType(t, []<typename T>() { return dtype_of_v<T>; }), t);
    }
  }
  Catch([] { VisitDType(DType::kUndefined, []<typename T>() { return 0; }); },
        ErrorCode::kInvalidType);
}

}  // namespace
}  // namespace oar
