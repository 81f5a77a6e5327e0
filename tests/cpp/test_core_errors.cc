// Typed errors: OAR_ENFORCE* messages, lazy evaluation, Prepend.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "oar/core/errors.h"
#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;
using testing::Contains;

TEST(Errors, EnforceEqNamesBothExpressionsAndValues) {
  const int64_t rank = 3, expected_rank = 4;
  const Error e = Catch([&] {
    OAR_ENFORCE_EQ(rank, expected_rank, errors::InvalidArgument("x has the wrong rank"));
  });
  EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(e.message(),
            "x has the wrong rank [Expected rank == expected_rank, but received rank:3 != "
            "expected_rank:4.]");
}

TEST(Errors, EveryComparisonReportsTheNegatedOperator) {
  const int a = 5, b = 7;
  EXPECT_TRUE(Contains(Catch([&] { OAR_ENFORCE_NE(a, a, errors::Fatal("")); }).message(),
                       "received a:5 == a:5."));
  EXPECT_TRUE(Contains(Catch([&] { OAR_ENFORCE_GT(a, b, errors::Fatal("")); }).message(),
                       "Expected a > b, but received a:5 <= b:7."));
  EXPECT_TRUE(
      Contains(Catch([&] { OAR_ENFORCE_GE(a, b, errors::Fatal("")); }).message(), "a:5 < b:7."));
  EXPECT_TRUE(
      Contains(Catch([&] { OAR_ENFORCE_LT(b, a, errors::Fatal("")); }).message(), "b:7 >= a:5."));
  EXPECT_TRUE(
      Contains(Catch([&] { OAR_ENFORCE_LE(b, a, errors::Fatal("")); }).message(), "b:7 > a:5."));
  // Passing checks throw nothing.
  OAR_ENFORCE_EQ(a, 5, errors::Fatal("unreachable"));
  OAR_ENFORCE_LE(a, b, errors::Fatal("unreachable"));
}

TEST(Errors, ValuesAreFormattedReadably) {
  const bool flag = false;
  const std::vector<int64_t> shape = {2, 3};
  const SmallVector<int64_t, 4> dims = {4, 5, 6};
  EXPECT_TRUE(Contains(Catch([&] { OAR_ENFORCE_EQ(flag, true, errors::Fatal("")); }).message(),
                       "flag:false != true:true"));
  EXPECT_TRUE(Contains(
      Catch([&] { OAR_ENFORCE_EQ(shape, std::vector<int64_t>{}, errors::Fatal("")); }).message(),
      "shape:[2, 3] != "));
  EXPECT_EQ(StrCat("dims ", dims, ", n=", 7, ", ok=", true), "dims [4, 5, 6], n=7, ok=true");
}

TEST(Errors, EnforceKeepsTheCodeAndStatesTheCondition) {
  const int n = -1;
  const Error e = Catch([&] { OAR_ENFORCE(n > 0, errors::OutOfRange("n must be positive")); });
  EXPECT_EQ(e.code(), ErrorCode::kOutOfRange);
  EXPECT_EQ(e.message(), "n must be positive [Expected n > 0, but it is not true.]");
  EXPECT_STREQ(e.what(), e.message().c_str());
}

TEST(Errors, ErrorAndOperandsAreEvaluatedOnlyAsNeeded) {
  int built = 0, evaluated = 0;
  auto make_error = [&] {
    ++built;
    return errors::Fatal("boom");
  };
  OAR_ENFORCE(true, make_error());
  OAR_ENFORCE_EQ(++evaluated, 1, make_error());
  EXPECT_EQ(built, 0);
  EXPECT_EQ(evaluated, 1);  // each operand once
  Catch([&] { OAR_ENFORCE_NOT_NULL(static_cast<int*>(nullptr), make_error()); });
  EXPECT_EQ(built, 1);
}

TEST(Errors, PrependDoesNotDoublePrefix) {
  Error e = errors::InvalidArgument("bad shape");
  e.Prepend("matmul(): ");
  e.Prepend("matmul(): ");
  EXPECT_EQ(e.message(), "matmul(): bad shape");
  e.Prepend("outer(): ");
  EXPECT_EQ(e.message(), "outer(): matmul(): bad shape");
  e.Append(" (hint)");
  EXPECT_EQ(e.message(), "outer(): matmul(): bad shape (hint)");
  EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
}

TEST(Errors, FactoriesSetTheirCodes) {
  EXPECT_EQ(errors::InvalidType("a").code(), ErrorCode::kInvalidType);
  EXPECT_EQ(errors::NotFound("a").code(), ErrorCode::kNotFound);
  EXPECT_EQ(errors::Unimplemented("a").code(), ErrorCode::kUnimplemented);
  EXPECT_EQ(errors::PreconditionNotMet("a").code(), ErrorCode::kPreconditionNotMet);
  EXPECT_EQ(errors::OutOfRange("x=", 3).message(), "x=3");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kOutOfRange), "OutOfRange");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kInvalidType), "InvalidType");
}

}  // namespace
}  // namespace oar
