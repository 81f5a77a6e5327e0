// Reductions (sum, mean, max, min, sum_to) against a reference that visits
// every element and accumulates into its output position.
#include <cmath>
#include <functional>
#include <limits>
#include <set>

#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;
using testing::ExpectClose;
using testing::Make;
using testing::Values;

const std::vector<int64_t> kShape = {2, 3, 4, 5};

// Small integers (exact in every float type), not sorted along any axis.
std::vector<double> Data(int64_t n) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * 7) % 11 - 5);
  return v;
}

struct Reduced {
  std::vector<double> values;
  std::vector<int64_t> shape;
};

// Reduces row-major x of `shape` over `axes` (non-negative; empty = all) with f.
Reduced Reference(const std::vector<double>& x, const std::vector<int64_t>& shape,
                  std::set<int64_t> axes, bool keepdim, double init,
                  const std::function<double(double, double)>& f) {
  if (axes.empty()) {
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) axes.insert(d);
  }
  Reduced r;
  std::vector<int64_t> kept;  // the kept dims' sizes
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (!axes.count(d)) {
      kept.push_back(shape[d]);
      r.shape.push_back(shape[d]);
    } else if (keepdim) {
      r.shape.push_back(1);
    }
  }
  int64_t n_out = 1;
  for (int64_t k : kept) n_out *= k;
  r.values.assign(n_out, init);
  for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i) {
    int64_t rem = i, o = 0, scale = 1;
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      const int64_t idx = rem % shape[d];
      rem /= shape[d];
      if (!axes.count(d)) {
        o += idx * scale;
        scale *= shape[d];
      }
    }
    r.values[o] = f(r.values[o], x[i]);
  }
  return r;
}

const auto kPlus = [](double a, double b) { return a + b; };
const auto kMax = [](double a, double b) { return std::max(a, b); };
const auto kMin = [](double a, double b) { return std::min(a, b); };

std::set<int64_t> Normalized(const std::vector<int64_t>& axes, int64_t rank) {
  std::set<int64_t> s;
  for (int64_t a : axes) s.insert(a < 0 ? a + rank : a);
  return s;
}

const std::vector<std::vector<int64_t>> kAxisCases = {
    {0, 2}, {1, 3}, {1, 2}, {0, 3}, {0}, {3}, {2, 0}, {-1}, {-3, -1}, {0, 1, 2, 3}, {}};

TEST(Reduce, SumMeanMaxMinOverAxisCombinations) {
  const auto x = Data(120);
  const Tensor t = Make(x, kShape);
  for (const auto& axes : kAxisCases) {
    for (bool keepdim : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "axes " << StrCat(axes) << " keepdim " << keepdim);
      const auto norm = Normalized(axes, 4);
      const Reduced s = Reference(x, kShape, norm, keepdim, 0.0, kPlus);
      ExpectClose(sum(t, axes, DType::kUndefined, keepdim), s.values, s.shape);

      Reduced m = s;
      const double count = static_cast<double>(x.size() / s.values.size());
      for (double& v : m.values) v /= count;
      ExpectClose(mean(t, axes, keepdim), m.values, m.shape);

      const double inf = std::numeric_limits<double>::infinity();
      const Reduced mx = Reference(x, kShape, norm, keepdim, -inf, kMax);
      ExpectClose(max(t, axes, keepdim), mx.values, mx.shape);
      const Reduced mn = Reference(x, kShape, norm, keepdim, inf, kMin);
      ExpectClose(min(t, axes, keepdim), mn.values, mn.shape);
    }
  }
}

TEST(Reduce, AllAxesGiveAZeroDimTensor) {
  const Tensor t = Make({1, 2, 3, 4, 5, 6}, {2, 3});
  ExpectClose(sum(t), {21}, {});
  ExpectClose(sum(t, {0, 1}), {21}, {});
  ExpectClose(sum(t, {}, DType::kUndefined, true), {21}, {1, 1});
  ExpectClose(mean(t), {3.5}, {});
  ExpectClose(max(t, {-1, -2}), {6}, {});
  ExpectClose(sum(scalar_tensor<double>(4.0)), {4}, {});
  ExpectClose(sum(scalar_tensor<double>(4.0), {0}), {4}, {});
}

TEST(Reduce, NonContiguousAndLargeInputs) {
  const auto x = Data(120);
  // A transposed view [5, 4, 3, 2]: reduce over {1, 3}.
  const Tensor tt = transpose(Make(x, kShape), {3, 2, 1, 0});
  std::vector<double> xt(120);
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c)
        for (int d = 0; d < 5; ++d)
          xt[((d * 4 + c) * 3 + b) * 2 + a] = x[((a * 3 + b) * 4 + c) * 5 + d];
  const Reduced r = Reference(xt, {5, 4, 3, 2}, {1, 3}, false, 0.0, kPlus);
  ExpectClose(sum(tt, {1, 3}), r.values, r.shape);

  // [300, 500] reduced along either axis: both reduction loops, threaded.
  const auto big = Data(150000);
  const Tensor tb = Make(big, {300, 500});
  for (int64_t axis : {0, 1}) {
    const Reduced s = Reference(big, {300, 500}, {axis}, false, 0.0, kPlus);
    ExpectClose(sum(tb, {axis}), s.values, s.shape);
    const Reduced m = Reference(big, {300, 500}, {axis}, false, -1e9, kMax);
    ExpectClose(max(tb, {axis}), m.values, m.shape);
  }
  ExpectClose(sum(tb), {Reference(big, {300, 500}, {}, false, 0.0, kPlus).values[0]}, {});
}

TEST(Reduce, MaxAndMinPropagateNaN) {
  const double nan = std::nan("");
  const Tensor t = Make({1, 5, 2, 7, nan, 3}, {2, 3});
  for (const Tensor& r : {max(t, {0}), min(t, {0})}) {
    const auto v = Values(r);
    ASSERT_EQ(v.size(), 3u);
    EXPECT_FALSE(std::isnan(v[0]));
    EXPECT_TRUE(std::isnan(v[1]));
    EXPECT_FALSE(std::isnan(v[2]));
  }
  EXPECT_EQ(Values(max(t, {0}))[2], 3);
  EXPECT_EQ(Values(min(t, {1}))[0], 1);
  EXPECT_TRUE(std::isnan(Values(max(t, {1}))[1]));
  EXPECT_TRUE(std::isnan(max(t).item<double>()));
  EXPECT_TRUE(std::isnan(min(t).item<double>()));
  // NaN first in the reduced run as well.
  EXPECT_TRUE(std::isnan(max(Make({nan, 1, 2}, {3})).item<double>()));
  EXPECT_TRUE(std::isnan(max(Make({nan, 1, 2}, {3}, DType::kFloat32)).item<double>()));
}

TEST(Reduce, IntegerAndBoolSumsProduceInt64) {
  const Tensor i = Make({2000000000, 2000000000, 2000000000, -5}, {2, 2}, DType::kInt32);
  const Tensor all = sum(i);
  EXPECT_EQ(all.dtype(), DType::kInt64);
  EXPECT_EQ(all.item<int64_t>(), 5999999995);  // overflows int32
  const Tensor cols = sum(i, {0});
  EXPECT_EQ(cols.dtype(), DType::kInt64);
  EXPECT_EQ(Values(cols), (std::vector<double>{4000000000, 1999999995}));

  const Tensor b = sum(Make({1, 0, 1, 1}, {4}, DType::kBool));
  EXPECT_EQ(b.dtype(), DType::kInt64);
  EXPECT_EQ(b.item<int64_t>(), 3);

  const Tensor as_double = sum(Make({0.5, 0.25}, {2}, DType::kFloat32), {}, DType::kFloat64);
  EXPECT_EQ(as_double.dtype(), DType::kFloat64);
  EXPECT_EQ(as_double.item<double>(), 0.75);
  EXPECT_EQ(max(i).dtype(), DType::kInt32);
  EXPECT_EQ(min(i).item<int64_t>(), -5);
}

TEST(Reduce, Float16SumAccumulatesInFloat) {
  // 3000 ones: a float16 accumulator would stall at 2048.
  const Tensor h = Make(std::vector<double>(3000, 1.0), {3000}, DType::kFloat16);
  const Tensor s = sum(h);
  EXPECT_EQ(s.dtype(), DType::kFloat16);
  EXPECT_EQ(s.item<double>(), 3000);
  EXPECT_EQ(mean(h).item<double>(), 1);
}

TEST(Reduce, EmptyInputs) {
  const Tensor e = Make({}, {0, 3});
  ExpectClose(sum(e, {0}), {0, 0, 0}, {3});
  ExpectClose(sum(e, {1}), {}, {0});
  EXPECT_TRUE(std::isnan(mean(e).item<double>()));
  const Error err = Catch([&] { max(e); }, ErrorCode::kInvalidArgument);  // max of nothing
  EXPECT_EQ(err.message().rfind("max(): ", 0), 0u) << err.what();
}

TEST(Reduce, SumTo) {
  const auto x = Data(24);
  const Tensor t = Make(x, {2, 3, 4});
  const Reduced a = Reference(x, {2, 3, 4}, {0, 2}, false, 0.0, kPlus);
  ExpectClose(sum_to(t, {3, 1}), a.values, {3, 1});
  const Reduced b = Reference(x, {2, 3, 4}, {0, 1}, true, 0.0, kPlus);
  ExpectClose(sum_to(t, {1, 1, 4}), b.values, {1, 1, 4});
  const Reduced c = Reference(x, {2, 3, 4}, {0}, false, 0.0, kPlus);
  ExpectClose(sum_to(t, {3, 4}), c.values, {3, 4});
  ExpectClose(sum_to(t, {2, 3, 4}), x, {2, 3, 4});
  ExpectClose(sum_to(t, {}), {Reference(x, {2, 3, 4}, {}, false, 0.0, kPlus).values[0]}, {});
  ExpectClose(sum_to(Make({1, 2, 3}, {1, 3}), {3}), {1, 2, 3}, {3});
  ExpectClose(sum_to(transpose(Make(x, {4, 6}), {1, 0}), {6, 1}),
              Reference(x, {4, 6}, {0}, false, 0.0, kPlus).values, {6, 1});
  // sum_to a shape that does not broadcast
  const Error e = Catch([&] { sum_to(t, {2, 4}); }, ErrorCode::kInvalidArgument);
  EXPECT_EQ(e.message().rfind("sum_to(): ", 0), 0u) << e.what();
}

}  // namespace
}  // namespace oar
