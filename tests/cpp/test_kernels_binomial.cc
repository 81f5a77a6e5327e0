// The binomial op's kernel (kernels/cpu/sampling_kernels.cc) at counts past 2**40, where
// std::binomial_distribution is replaced by splitting at Beta order statistics: every
// accepted count is drawn at once, within [0, count], with the binomial's moments.
// (tests/python/test_fuzz_regressions_ops.py runs the same counts under a time limit.)
#include <cmath>
#include <limits>

#include "oar/kernels/funcs/copy.h"
#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;
using testing::Make;

// The int64 samples exactly (Values() rounds those past 2**53).
std::vector<int64_t> Draw(double count, double prob, int64_t size) {
  const Tensor out =
      binomial(full({size}, count, DType::kFloat64), full({size}, prob, DType::kFloat64));
  EXPECT_EQ(out.dtype(), DType::kInt64);
  const DenseTensor c = funcs::Contiguous(out.dense());
  const int64_t* p = static_cast<const int64_t*>(c.data());
  return std::vector<int64_t>(p, p + c.numel());
}

// Mean and variance of s around `center`, in long double (the counts pass 2**53).
void ExpectMoments(const std::vector<int64_t>& s, long double mean, long double var) {
  const long double center = std::floor(mean);
  long double m = 0, v = 0;
  for (int64_t x : s) m += (static_cast<long double>(x) - center) / s.size();
  for (int64_t x : s) {
    const long double d = static_cast<long double>(x) - center - m;
    v += d * d / s.size();
  }
  const double n = static_cast<double>(s.size());
  EXPECT_LT(std::abs(static_cast<double>((m - (mean - center)) / std::sqrt(var / n))), 6.0);
  EXPECT_LT(std::abs(static_cast<double>(v / var) - 1), 6 * std::sqrt(2 / n));
}

const double kTop = std::nextafter(9.2e18, 0.0);  // the largest count accepted

TEST(BinomialKernel, HugeCountsLieInTheirRangeWithTheBinomialMoments) {
  seed(11);
  for (const auto& [count, prob] : std::vector<std::pair<double, double>>{
           {1e18, 0.3}, {0x1p62, 0.5}, {kTop, 0.8}, {0x1p40 + 1, 0.4}}) {
    const std::vector<int64_t> s = Draw(count, prob, 20000);
    for (int64_t x : s) {
      ASSERT_GE(x, 0);
      ASSERT_LE(x, static_cast<int64_t>(count));
    }
    const long double mean = static_cast<long double>(count) * prob;
    ExpectMoments(s, mean, mean * (1 - static_cast<long double>(prob)));
  }
  // few successes, and few failures (1 - p keeps its own precision along the splits)
  const double tiny = 0x1p-50;
  ExpectMoments(Draw(0x1p62, tiny, 20000), 4096, 4096 * (1 - tiny));
  std::vector<int64_t> failures = Draw(0x1p62, 1 - tiny, 20000);
  for (int64_t& x : failures) x = (int64_t{1} << 62) - x;
  ExpectMoments(failures, 4096, 4096 * (1 - tiny));
}

TEST(BinomialKernel, HugeCountsWithProbabilityZeroOrOneAndTheSeed) {
  EXPECT_EQ(Draw(kTop, 0.0, 3), std::vector<int64_t>(3, 0));
  EXPECT_EQ(Draw(kTop, 1.0, 3), std::vector<int64_t>(3, static_cast<int64_t>(kTop)));
  EXPECT_EQ(Draw(0x1p62, 1.0, 2), std::vector<int64_t>(2, int64_t{1} << 62));
  seed(4);
  const std::vector<int64_t> first = Draw(0x1p62, 0.3, 50);
  seed(4);
  EXPECT_EQ(Draw(0x1p62, 0.3, 50), first);
  // past the largest count, and inf / NaN: argument errors as before
  const double inf = std::numeric_limits<double>::infinity();
  for (double bad : {9.2e18, 0x1p63, inf, -inf, std::nan("")}) {
    Catch([&] { binomial(Make({bad}, {1}), Make({0.5}, {1})); }, ErrorCode::kInvalidArgument,
          {"binomial(): argument 'count' holds whole numbers >= 0 below 9.2e18"});
  }
}

}  // namespace
}  // namespace oar
