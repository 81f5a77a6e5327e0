// vec_math (src/oar/kernels/funcs/vec_math.h): the SIMD functions against
// <cmath>, their special values, and the promise that an element's result does
// not depend on the span it is computed in.
#include "oar/core/cpu_isa.h"
#include "oar/kernels/funcs/vec_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace oar {
namespace {

using vec::Fn;

struct Case {
  Fn fn;
  const char* name;
  double (*ref)(double);
  double lo, hi;
};

double RefSigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

const std::vector<Case>& Cases() {
  static const std::vector<Case> c = {
      {Fn::kExp, "exp", [](double x) { return std::exp(x); }, -80, 80},
      {Fn::kExpm1, "expm1", [](double x) { return std::expm1(x); }, -20, 20},
      {Fn::kLog, "log", [](double x) { return std::log(x); }, 1e-6, 1e6},
      {Fn::kLog1p, "log1p", [](double x) { return std::log1p(x); }, -0.9, 100},
      {Fn::kLog2, "log2", [](double x) { return std::log2(x); }, 1e-6, 1e6},
      {Fn::kLog10, "log10", [](double x) { return std::log10(x); }, 1e-6, 1e6},
      {Fn::kSin, "sin", [](double x) { return std::sin(x); }, -100, 100},
      {Fn::kCos, "cos", [](double x) { return std::cos(x); }, -100, 100},
      {Fn::kTan, "tan", [](double x) { return std::tan(x); }, -1.5, 1.5},
      {Fn::kTanh, "tanh", [](double x) { return std::tanh(x); }, -12, 12},
      {Fn::kSigmoid, "sigmoid", RefSigmoid, -30, 30},
      {Fn::kErf, "erf", [](double x) { return std::erf(x); }, -4, 4},
      {Fn::kErfc, "erfc", [](double x) { return std::erfc(x); }, -4, 8},
  };
  return c;
}

template <typename S>
std::vector<S> Random(int64_t n, double lo, double hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<S> v(n);
  for (auto& e : v) e = static_cast<S>(u(gen));
  return v;
}

// Error in units of the last place of S at the reference value.
template <typename S>
double Ulps(S got, double ref) {
  const int e =
      std::max(std::ilogb(ref == 0 ? 1e-300 : ref), std::numeric_limits<S>::min_exponent - 1);
  return std::fabs(static_cast<double>(got) - ref) /
         std::ldexp(1.0, e - (std::numeric_limits<S>::digits - 1));
}

template <typename S>
void CheckAccuracyAndSpans() {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    const std::vector<S> x = Random<S>(1000, c.lo, c.hi, 7);
    std::vector<S> y(x.size());
    vec::Apply(c.fn, x.data(), y.data(), static_cast<int64_t>(x.size()));
    double worst = 0;
    for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, Ulps<S>(y[i], c.ref(x[i])));
    // SLEEF's bound is 1 ulp (1.5 for erfc); sigmoid adds a division and an
    // addition; float64 references from libm are themselves within 1 ulp.
    // float32 tanh is a rational approximation, 5 ulp at most.
    EXPECT_LE(worst, c.fn == Fn::kTanh && sizeof(S) == 4 ? 7.0 : 4.0);
    // Every prefix length (tails shorter than a vector, and one element at a
    // time) gives the same bits as the whole span.
    for (int64_t n = 0; n <= 40; ++n) {
      std::vector<S> part(n + 1, S(-7));
      vec::Apply(c.fn, x.data() + 3, part.data(), n);
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(std::memcmp(&part[i], &y[3 + i], sizeof(S)), 0) << n;
      EXPECT_EQ(part[n], S(-7)) << "wrote past the end, n=" << n;
    }
    // In place.
    std::vector<S> z = x;
    vec::Apply(c.fn, z.data(), z.data(), static_cast<int64_t>(z.size()));
    EXPECT_EQ(std::memcmp(z.data(), y.data(), y.size() * sizeof(S)), 0);
  }
}

TEST(VecMath, FloatAccuracyAndSpans) { CheckAccuracyAndSpans<float>(); }
TEST(VecMath, DoubleAccuracyAndSpans) { CheckAccuracyAndSpans<double>(); }

template <typename S>
void CheckSpecials() {
  using L = std::numeric_limits<S>;
  const std::vector<S> x = {L::quiet_NaN(), L::infinity(), -L::infinity(), S(0),   S(-0.0),
                            L::max(),       L::lowest(),   S(-1),          S(1e5), S(-1e5)};
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    std::vector<S> y(x.size());
    vec::Apply(c.fn, x.data(), y.data(), static_cast<int64_t>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      const S want = static_cast<S>(c.ref(static_cast<double>(x[i])));
      SCOPED_TRACE(std::to_string(static_cast<double>(x[i])));
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(y[i])) << y[i];
      } else if (std::isinf(want) || want == 0) {
        EXPECT_EQ(y[i], want);
        EXPECT_EQ(std::signbit(y[i]), std::signbit(want));
      } else if (!(c.fn == Fn::kSin || c.fn == Fn::kCos || c.fn == Fn::kTan) ||
                 std::fabs(static_cast<double>(x[i])) < 1e6) {
        // Trigonometric functions of huge arguments: any value in [-1, 1] is
        // as good as libm's (the argument's ulp is many periods).
        EXPECT_LE(Ulps<S>(y[i], c.ref(static_cast<double>(x[i]))), 4.0) << y[i];
        // Where tanh rounds to +-1, exactly +-1.
        if (c.fn == Fn::kTanh && std::fabs(static_cast<double>(x[i])) > 10) {
          EXPECT_EQ(std::fabs(y[i]), S(1));
        }
      }
    }
  }
}

TEST(VecMath, FloatSpecialValues) { CheckSpecials<float>(); }
TEST(VecMath, DoubleSpecialValues) { CheckSpecials<double>(); }

template <typename S>
void CheckExpSubSumAndMax() {
  for (int64_t n : {0, 1, 3, 7, 8, 9, 17, 100, 1001}) {
    SCOPED_TRACE(n);
    std::vector<S> x = Random<S>(n, -20, 20, 11);
    std::vector<S> y(n), shifted(n), want(n);
    const S shift = S(3.25);
    const S sum = vec::ExpSubSum(x.data(), shift, y.data(), n);
    for (int64_t i = 0; i < n; ++i) shifted[i] = x[i] - shift;
    vec::Apply(Fn::kExp, shifted.data(), want.data(), n);
    double ref = 0;
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(y[i], want[i]) << i;
      ref += want[i];
    }
    EXPECT_NEAR(sum, ref, 1e-5 * ref + 1e-30);
    if (n > 0) x[n / 2] = std::numeric_limits<S>::quiet_NaN();
    S mx = -std::numeric_limits<S>::infinity();
    for (int64_t i = 0; i < n; ++i) {
      if (!std::isnan(x[i])) mx = std::max(mx, x[i]);
    }
    EXPECT_EQ(vec::MaxIgnoringNaN(x.data(), n), mx);
  }
  const std::vector<S> nans(5, std::numeric_limits<S>::quiet_NaN());
  EXPECT_EQ(vec::MaxIgnoringNaN(nans.data(), 5), -std::numeric_limits<S>::infinity());
}

TEST(VecMath, FloatExpSubSumAndMax) { CheckExpSubSumAndMax<float>(); }
TEST(VecMath, DoubleExpSubSumAndMax) { CheckExpSubSumAndMax<double>(); }

// n evenly spaced floats over [lo, hi].
std::vector<float> Sweep(double lo, double hi, int64_t n) {
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(lo + (hi - lo) * i / (n - 1));
  return x;
}

// fn over x against ref in float64: the worst ulp error over the lanes whose
// reference fits in a float. Lanes whose reference overflows must be infinite.
// The results go to *out when given.
template <typename Ref>
double WorstUlps(Fn fn, const std::vector<float>& x, Ref ref, std::vector<float>* out = nullptr) {
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<float> local;
  std::vector<float>& y = out ? *out : local;
  y.resize(n);
  vec::Apply(fn, x.data(), y.data(), n);
  double worst = 0;
  int64_t finite_for_inf = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double r = ref(double{x[i]});
    if (std::fabs(r) > std::numeric_limits<float>::max()) {
      if (!std::isinf(y[i]) && finite_for_inf++ == 0) ADD_FAILURE() << "finite at " << x[i];
    } else {
      worst = std::max(worst, Ulps<float>(y[i], r));
    }
  }
  EXPECT_EQ(finite_for_inf, 0);
  return worst;
}

// fn over xs in one call and lane by lane alone give the same bits: a lane's
// result never depends on its neighbours. Returns the one-call results.
std::vector<float> ExpectLanesIndependent(Fn fn, const std::vector<float>& xs) {
  const int64_t n = static_cast<int64_t>(xs.size());
  std::vector<float> got(n);
  vec::Apply(fn, xs.data(), got.data(), n);
  for (int64_t k = 0; k < n; ++k) {
    float one;
    vec::Apply(fn, &xs[k], &one, 1);
    EXPECT_EQ(std::memcmp(&one, &got[k], sizeof one), 0) << k << " " << xs[k];
  }
  return got;
}

// The whole float32 tanh range, densely: the rational function's error bound.
TEST(VecMath, FloatTanhDenseSweep) {
  EXPECT_LE(WorstUlps(Fn::kTanh, Sweep(-10, 10, 2000001), [](double v) { return std::tanh(v); }),
            7.0);
  for (float v : {1e-30f, -1e-30f, 1e-10f, 1e-5f, -1e-3f}) {
    float r;
    vec::Apply(Fn::kTanh, &v, &r, 1);
    EXPECT_LE(Ulps<float>(r, std::tanh(double{v})), 1.0) << v;
  }
}

// float32 log (LogFloat, vec_math_isa.inc) over every binade of the positive
// normal floats, densely near 1 where f = m - 1 is small, and with special
// lanes mixed into the same vectors: a lane's bits never depend on the others.
TEST(VecMath, FloatLogAllBinades) {
  std::mt19937 gen(3);
  std::uniform_int_distribution<uint32_t> bits(0x00800000u, 0x7f7fffffu);
  std::vector<float> x(1 << 20);
  for (auto& v : x) {
    const uint32_t b = bits(gen);
    std::memcpy(&v, &b, sizeof v);
  }
  for (int i = -20000; i <= 20000; ++i) x.push_back(1.0f + static_cast<float>(i) * 1e-5f);
  for (float v :
       {1.0f, std::nextafter(1.0f, 0.0f), std::nextafter(1.0f, 2.0f), 1.41421356f, 0.70710678f,
        std::numeric_limits<float>::min(), std::numeric_limits<float>::max()})
    x.push_back(v);
  std::vector<float> y;
  EXPECT_LE(WorstUlps(Fn::kLog, x, [](double v) { return std::log(v); }, &y), 1.0);
  EXPECT_EQ(y[y.size() - 7], 0.0f);  // log(1) is +0
  EXPECT_FALSE(std::signbit(y[y.size() - 7]));
  using L = std::numeric_limits<float>;
  const float specials[] = {0.0f,           -0.0f,          -1.0f,           L::infinity(),
                            -L::infinity(), L::quiet_NaN(), L::denorm_min(), 1e-40f};
  std::vector<float> mixed(x.begin(), x.begin() + 64);
  for (int k = 0; k < 64; k += 3) mixed[k] = specials[(k / 3) % 8];
  const std::vector<float> got = ExpectLanesIndependent(Fn::kLog, mixed);
  for (int k = 0; k < 64; ++k) {
    const double ref = std::log(double{mixed[k]});
    if (std::isnan(ref)) {
      EXPECT_TRUE(std::isnan(got[k])) << k;
    } else if (std::isinf(ref)) {
      EXPECT_EQ(got[k], static_cast<float>(ref)) << k;
    } else {
      EXPECT_LE(Ulps<float>(got[k], ref), 1.0) << k << " " << mixed[k];
    }
  }
}

// float32 exp (ExpFloat, vec_math_isa.inc) densely over [-110, 90]: the
// subnormal results (two-step scaling, one rounding), exact overflow to inf and
// underflow to 0, and NaN lanes (SLEEF's value) that leave their neighbours'
// bits alone.
TEST(VecMath, FloatExpDenseSweep) {
  const std::vector<float> x = Sweep(-110, 90, 4000001);
  EXPECT_LE(WorstUlps(Fn::kExp, x, [](double v) { return std::exp(v); }), 2.0);
  std::vector<float> mixed(x.begin() + 1000, x.begin() + 1064);
  for (int k = 0; k < 64; k += 5) mixed[k] = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> got = ExpectLanesIndependent(Fn::kExp, mixed);
  for (int k = 0; k < 64; k += 5) EXPECT_TRUE(std::isnan(got[k])) << k;
  // Note [exp never underflows in the common case]: one vector mixing lanes with
  // normal, subnormal, zero and infinite results and NaN, in every order.
  const float lanes[] = {-std::numeric_limits<float>::infinity(),
                         -105.0f,
                         -104.0f,
                         -100.0f,
                         -87.2f,
                         -87.0f,
                         -86.9f,
                         0.0f,
                         88.7f,
                         89.5f,
                         std::numeric_limits<float>::infinity(),
                         std::numeric_limits<float>::quiet_NaN()};
  constexpr int kLanes = sizeof lanes / sizeof lanes[0];
  std::vector<float> specials(64);
  for (int k = 0; k < 64; ++k) specials[k] = lanes[(k * 7 + k / kLanes) % kLanes];
  const std::vector<float> exps = ExpectLanesIndependent(Fn::kExp, specials);
  for (int k = 0; k < 64; ++k) {
    const double ref = std::exp(double{specials[k]});
    if (std::isnan(ref)) {
      EXPECT_TRUE(std::isnan(exps[k])) << k;
    } else if (static_cast<float>(ref) == 0 || std::isinf(static_cast<float>(ref))) {
      EXPECT_EQ(exps[k], static_cast<float>(ref)) << k << " " << specials[k];
    } else {
      EXPECT_LE(Ulps<float>(exps[k], ref), 2.0) << k << " " << specials[k];
    }
  }
}

template <typename S>
void CheckReductions() {
  const S inf = std::numeric_limits<S>::infinity(), nan = std::numeric_limits<S>::quiet_NaN();
  for (int64_t n : {0, 1, 3, 7, 8, 9, 31, 32, 33, 100, 1000}) {
    SCOPED_TRACE(n);
    std::vector<S> x = Random<S>(n, -50, 50, 5);
    double sum = 0;
    S mx = -inf, mn = inf;
    for (S v : x) {
      sum += v;
      mx = std::max(mx, v);
      mn = std::min(mn, v);
    }
    EXPECT_NEAR(vec::Sum(x.data(), n), sum, 1e-4 * (1 + std::fabs(sum)));
    EXPECT_EQ(vec::Max(x.data(), n), mx);
    EXPECT_EQ(vec::Min(x.data(), n), mn);
    // Equal spans, equal bits (the order depends only on n).
    std::vector<S> copy = x;
    const S s1 = vec::Sum(x.data(), n), s2 = vec::Sum(copy.data(), n);
    EXPECT_EQ(std::memcmp(&s1, &s2, sizeof(S)), 0);
    for (int64_t pos = 0; pos < n; pos += std::max<int64_t>(1, n / 7)) {
      std::vector<S> y = x;
      y[pos] = inf;  // infinities are values, not NaN
      EXPECT_EQ(vec::Max(y.data(), n), inf);
      S ymin = inf;
      for (S v : y) ymin = std::min(ymin, v);
      EXPECT_EQ(vec::Min(y.data(), n), ymin);
      y[pos] = nan;
      EXPECT_TRUE(std::isnan(vec::Max(y.data(), n))) << pos;
      EXPECT_TRUE(std::isnan(vec::Min(y.data(), n))) << pos;
      EXPECT_TRUE(std::isnan(vec::Sum(y.data(), n))) << pos;
    }
  }
}

TEST(VecMath, FloatReductions) { CheckReductions<float>(); }
TEST(VecMath, DoubleReductions) { CheckReductions<double>(); }

// Note [Reductions read several streams at once]: four runs read in step give each
// run the bits Sum, Max and Min give it alone, signed zeros and max's and min's NaN
// payloads included.
template <typename S>
void CheckRuns() {
  const S nan = std::numeric_limits<S>::quiet_NaN();
  auto same = [](S a, S b) { return std::memcmp(&a, &b, sizeof(S)) == 0; };
  // A sum's NaN may carry either operand's sign (the compiler may swap an add's
  // operands); max and min return the first NaN element itself.
  auto same_sum = [&](S a, S b) { return std::isnan(a) ? std::isnan(b) : same(a, b); };
  for (int64_t n : {0, 1, 7, 64, 65, 127, 1000, 1031}) {
    SCOPED_TRACE(n);
    std::vector<std::vector<S>> runs;
    for (int r = 0; r < vec::kSumRuns; ++r) runs.push_back(Random<S>(n, -50, 50, 11 + r));
    if (n > 0) {
      std::fill(runs[1].begin(), runs[1].end(), S(0));
      runs[1][n / 2] = S(-0.0);  // max and min of +0 and -0 follow the chains' order
      runs[2][n - 1] = nan;      // in the tail
      runs[3][0] = -nan;         // in the first block: the first NaN is returned
      runs[3][n / 2] = nan;
    }
    for (int k = 1; k <= vec::kSumRuns; ++k) {
      const S* x[vec::kSumRuns];
      for (int r = 0; r < k; ++r) x[r] = runs[r].data();
      S sum[vec::kSumRuns], mx[vec::kSumRuns], mn[vec::kSumRuns];
      vec::SumRuns(x, k, n, sum);
      vec::MaxRuns(x, k, n, mx);
      vec::MinRuns(x, k, n, mn);
      for (int r = 0; r < k; ++r) {
        SCOPED_TRACE(r);
        EXPECT_TRUE(same_sum(sum[r], vec::Sum(x[r], n)));
        EXPECT_TRUE(same(mx[r], vec::Max(x[r], n)));
        EXPECT_TRUE(same(mn[r], vec::Min(x[r], n)));
      }
    }
  }
}

TEST(VecMath, FloatRunsInStep) { CheckRuns<float>(); }
TEST(VecMath, DoubleRunsInStep) { CheckRuns<double>(); }

// The table follows the dispatch cap (OAR_MAX_CPU_ISA; ctest runs this suite
// under each level below the CPU's).
TEST(VecMath, ReportsItsIsa) {
  const std::string isa = vec::ActiveIsa();
  const CpuIsa level = MaxCpuIsa();
  const std::string want = level == CpuIsa::kAvx512Bf16 ? "avx512" : std::string(CpuIsaName(level));
  EXPECT_EQ(isa, want);
}

}  // namespace
}  // namespace oar

namespace oar {
namespace {

// vec_math's float erf (vec_erf.inc): oar's float erf, against libm's double erf over a
// dense sweep of [-5, 5] (both polynomial pieces, their joint at |x| = 1 and the
// cap at 4), special values, and independence from the span it is computed in.
TEST(VecMath, ErfSpanFloat) {
  std::vector<float> x;
  for (int i = -500000; i <= 500000; ++i) x.push_back(static_cast<float>(i) * 1e-5f);
  for (float v : {1.0f, std::nextafter(1.0f, 2.0f), std::nextafter(1.0f, 0.0f), 4.0f, 1e-30f,
                  -1e-30f, 0.0f, -0.0f})
    x.push_back(v);
  std::vector<float> y(x.size());
  vec::Apply(vec::Fn::kErf, x.data(), y.data(), static_cast<int64_t>(x.size()));
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    worst = std::max(worst, Ulps<float>(y[i], std::erf(static_cast<double>(x[i]))));
  }
  EXPECT_LE(worst, 3.0);
  EXPECT_EQ(std::signbit(y[y.size() - 1]), true);  // erf(-0) = -0
  using L = std::numeric_limits<float>;
  const std::vector<float> s = {L::quiet_NaN(), L::infinity(), -L::infinity(), 1e30f, -1e30f};
  std::vector<float> t(s.size());
  vec::Apply(vec::Fn::kErf, s.data(), t.data(), static_cast<int64_t>(s.size()));
  EXPECT_TRUE(std::isnan(t[0]));
  EXPECT_EQ(t[1], 1.0f);
  EXPECT_EQ(t[2], -1.0f);
  EXPECT_EQ(t[3], 1.0f);
  EXPECT_EQ(t[4], -1.0f);
  // A span cut anywhere gives the same bits.
  std::vector<float> part(37);
  vec::Apply(vec::Fn::kErf, x.data() + 1000, part.data(), 37);
  EXPECT_EQ(std::memcmp(part.data(), y.data() + 1000, part.size() * sizeof(float)), 0);
}

// vec::Gelu / GeluGrad (Note [Exact gelu from the normal tail]): the
// relative error of gelu stays small through the negative tail, where
// x (1 + erf(x / sqrt 2)) / 2 would cancel, down to where the result leaves
// float's normal range; the derivative against its closed form.
TEST(VecMath, GeluSpanFloat) {
  std::vector<float> x;
  for (int i = -1300000; i <= 1300000; ++i) x.push_back(static_cast<float>(i) * 1e-5f);
  std::vector<float> y(x.size()), g(x.size(), 1.0f), d(x.size());
  vec::Gelu(x.data(), y.data(), static_cast<int64_t>(x.size()));
  vec::GeluGrad(x.data(), g.data(), d.data(), static_cast<int64_t>(x.size()));
  double worst_body = 0, worst_tail = 0, worst_grad = 0, worst_table = 0, worst_wide = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = x[i];
    const double ref = v * 0.5 * std::erfc(-v / std::sqrt(2.0));
    if (std::fabs(ref) < 1e-30) continue;
    // The sweep's vectors inside (-3, 3) take the tables (AVX-512: 32 intervals of
    // [0, 6.5]; AVX2: 8 intervals of [0, 4], whose far end [-4, -3] is checked apart:
    // 4.9 ulp there, where LowerTail gave 8.8).
    if (std::fabs(v) < 2.99) worst_table = std::max(worst_table, Ulps<float>(y[i], ref));
    if (v < -3 && v > -3.99) worst_wide = std::max(worst_wide, Ulps<float>(y[i], ref));
    (v > -3 ? worst_body : worst_tail) =
        std::max(v > -3 ? worst_body : worst_tail, Ulps<float>(y[i], ref));
    const double dref = 0.5 * std::erfc(-v / std::sqrt(2.0)) +
                        v * std::exp(-v * v / 2) / std::sqrt(2 * 3.14159265358979323846);
    worst_grad = std::max(worst_grad, std::fabs(d[i] - dref));
  }
  EXPECT_LE(worst_body, 8.0);  // x > -3
  // The tables exist at the dispatched widths of AVX2 and up; SSE2 computes the
  // tail formula everywhere (held to the bounds above).
  const std::string isa = vec::ActiveIsa();
  if (isa == "avx512" || isa == "avx2") {
    EXPECT_LE(worst_table, 4.0);
    EXPECT_LE(worst_wide, 6.0);
  }
  EXPECT_LE(worst_tail, 96.0);  // x in [-13, -3]: 1 + erf alone loses every digit here
  EXPECT_LE(worst_grad, 1e-6);
  using L = std::numeric_limits<float>;
  const std::vector<float> s = {L::quiet_NaN(), L::infinity(), -20.0f, 20.0f, 0.0f, -0.0f};
  std::vector<float> t(s.size());
  vec::Gelu(s.data(), t.data(), static_cast<int64_t>(s.size()));
  EXPECT_TRUE(std::isnan(t[0]));
  EXPECT_EQ(t[1], L::infinity());
  EXPECT_EQ(t[2], 0.0f);
  EXPECT_EQ(t[3], 20.0f);
  EXPECT_EQ(t[4], 0.0f);
  EXPECT_FALSE(std::signbit(t[4]));
  EXPECT_TRUE(std::signbit(t[5]));  // x Phi(x) at -0
}

}  // namespace
}  // namespace oar
