// DType names, parsing, sizes and the binary-op promotion table.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "oar/core/dtype.h"
#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;

constexpr DType kAll[] = {DType::kBool,     DType::kInt32,   DType::kInt64,  DType::kFloat16,
                          DType::kBFloat16, DType::kFloat32, DType::kFloat64};

TEST(DType, NamesAndSizes) {
  const char* names[] = {"bool", "int32", "int64", "float16", "bfloat16", "float32", "float64"};
  const size_t sizes[] = {1, 4, 8, 2, 2, 4, 8};
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
  for (const char* bad : {"float8", "", "Float32", "int16", "torch.float32"}) {
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
    const DType seen = VisitDType(t, []<typename T>() { return dtype_of_v<T>; });
    EXPECT_EQ(seen, t);
    const size_t size = VisitDType(t, []<typename T>() { return sizeof(T); });
    EXPECT_EQ(size, SizeOf(t));
  }
  Catch([] { VisitDType(DType::kUndefined, []<typename T>() { return 0; }); },
        ErrorCode::kInvalidType);
}

}  // namespace
}  // namespace oar
