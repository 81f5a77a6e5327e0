// SLEEF vs Highway contrib/math: speed and accuracy of the vectorised
// transcendental functions oar needs (docs/benchmarks.md, "Vectorised math").
//
// Both libraries are measured on the same ISA (AVX2+FMA, 8 floats / 4 doubles
// a vector), single-threaded, over a buffer that stays in L2, so the numbers
// are compute cost, not memory bandwidth. Accuracy: max error in ulps of the
// result type against a wider reference (float64 libm for float32, x87 long
// double libm for float64) over a dense sweep of each function's domain, and a
// count of special inputs (NaN, +-inf, +-0, huge, tiny) whose result differs
// from libm's. Built and run by benchmarks/vec_math/run.sh; this is a
// measurement tool only: oar's library itself dispatches at run time
// (src/oar/kernels/funcs/vec_math.cc) and is never built for one ISA.
#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>
#include <sleef.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace hn = hwy::HWY_NAMESPACE;

namespace {

template <typename T>
using Kernel = std::function<void(const T*, T*, size_t)>;

// Applies a vector function over a span whose length is a multiple of the width.
template <typename T, typename F>
Kernel<T> Hwy(F f) {
  return [f](const T* x, T* y, size_t n) {
    const hn::ScalableTag<T> d;
    for (size_t i = 0; i < n; i += hn::Lanes(d)) hn::StoreU(f(d, hn::LoadU(d, x + i)), d, y + i);
  };
}

template <typename G>
Kernel<float> SleefF(G f) {
  return [f](const float* x, float* y, size_t n) {
    for (size_t i = 0; i < n; i += 8) _mm256_storeu_ps(y + i, f(_mm256_loadu_ps(x + i)));
  };
}
template <typename G>
Kernel<double> SleefD(G f) {
  return [f](const double* x, double* y, size_t n) {
    for (size_t i = 0; i < n; i += 4) _mm256_storeu_pd(y + i, f(_mm256_loadu_pd(x + i)));
  };
}
__m256 SleefSigmoidF(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.f);
  return _mm256_div_ps(
      one, _mm256_add_ps(one, Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_setzero_ps(), x))));
}
__m256d SleefSigmoidD(__m256d x) {
  const __m256d one = _mm256_set1_pd(1.);
  return _mm256_div_pd(
      one, _mm256_add_pd(one, Sleef_expd4_u10avx2(_mm256_sub_pd(_mm256_setzero_pd(), x))));
}
template <typename D, typename V>
V HwySigmoid(D d, V x) {
  const auto one = hn::Set(d, 1);
  return hn::Div(one, hn::Add(one, hn::Exp(d, hn::Neg(x))));
}

// Reference in a wider type.
template <typename T>
using Wide = std::conditional_t<std::is_same_v<T, float>, double, long double>;

template <typename T>
double UlpError(T got, Wide<T> ref) {
  if (std::isnan(ref)) return std::isnan(got) ? 0 : INFINITY;
  if (std::isinf(ref)) return (got == static_cast<T>(ref)) ? 0 : INFINITY;
  // One ulp of T at ref (at least the smallest subnormal spacing).
  int e = std::ilogb(static_cast<long double>(ref == 0 ? std::numeric_limits<T>::min() : ref));
  e = std::max(e, std::numeric_limits<T>::min_exponent - 1);
  const long double ulp = std::ldexp(1.0L, e - (std::numeric_limits<T>::digits - 1));
  return static_cast<double>(
      std::fabs(static_cast<long double>(got) - static_cast<long double>(ref)) / ulp);
}

struct Fn {
  std::string name;
  std::function<Wide<float>(Wide<float>)> ref_f;
  std::function<Wide<double>(Wide<double>)> ref_d;
  double lo, hi;   // sweep range
  bool geometric;  // sweep positive values geometrically (log)
  Kernel<float> sleef_f, hwy_f;
  Kernel<double> sleef_d, hwy_d;
};

template <typename T>
std::vector<T> Sweep(const Fn& f, size_t n) {
  std::vector<T> x(n);
  for (size_t i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) / static_cast<double>(n - 1);
    x[i] = static_cast<T>(f.geometric
                              ? std::exp(std::log(f.lo) + t * (std::log(f.hi) - std::log(f.lo)))
                              : f.lo + t * (f.hi - f.lo));
  }
  return x;
}

template <typename T>
std::vector<T> Specials() {
  using L = std::numeric_limits<T>;
  std::vector<T> s = {
      L::quiet_NaN(), L::infinity(),   -L::infinity(),   T(0),     T(-0.0), L::max(),
      L::lowest(),    L::denorm_min(), -L::denorm_min(), L::min(), T(1e5),  T(-1e5),
      T(200),         T(-200),         T(800),           T(-800),  T(-1),   T(1)};
  while (s.size() % 8) s.push_back(T(0.5));
  return s;
}

template <typename T, typename Ref>
void Measure(const char* lib, const Fn& f, const Kernel<T>& k, Ref ref) {
  // Accuracy over the sweep.
  const size_t n_sweep = size_t{1} << 22;
  std::vector<T> x = Sweep<T>(f, n_sweep), y(n_sweep);
  k(x.data(), y.data(), n_sweep);
  double max_ulp = 0;
  for (size_t i = 0; i < n_sweep; ++i) max_ulp = std::max(max_ulp, UlpError<T>(y[i], ref(x[i])));
  // Special values, compared with libm in T.
  std::vector<T> s = Specials<T>(), sy(s.size());
  k(s.data(), sy.data(), s.size());
  int bad = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const T want = static_cast<T>(ref(s[i]));
    const bool same = (std::isnan(want) && std::isnan(sy[i])) ||
                      (want == sy[i] && std::signbit(want) == std::signbit(sy[i])) ||
                      (std::isfinite(want) && UlpError<T>(sy[i], ref(s[i])) <= 4);
    if (!same) ++bad;
  }
  // Speed: 16 Ki elements (64/128 KiB) in cache; the fastest of 300 passes,
  // so passes another process interrupted do not count.
  const size_t n = 16384;
  std::vector<T> bx(n), by(n);
  for (size_t i = 0; i < n; ++i) bx[i] = x[(i * 2654435761u) % n_sweep];
  double best = 1e30;
  for (int rep = 0; rep < 300; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    k(bx.data(), by.data(), n);
    const double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, ns / n);
  }
  std::printf("| %s | %s | %s | %.3f | %.2f | %d |\n", f.name.c_str(),
              std::is_same_v<T, float> ? "float32" : "float64", lib, best, max_ulp, bad);
}

}  // namespace

int main() {
  auto hexp = [](auto d, auto v) { return hn::Exp(d, v); };
  auto hlog = [](auto d, auto v) { return hn::Log(d, v); };
  auto htanh = [](auto d, auto v) { return hn::Tanh(d, v); };
  auto hsin = [](auto d, auto v) { return hn::Sin(d, v); };
  auto hcos = [](auto d, auto v) { return hn::Cos(d, v); };
  auto hsig = [](auto d, auto v) { return HwySigmoid(d, v); };
  using F = double;
  using D = long double;
  std::vector<Fn> fns = {
      {"exp", [](F x) { return std::exp(x); }, [](D x) { return std::exp(x); }, -87, 88, false,
       SleefF(Sleef_expf8_u10avx2), Hwy<float>(hexp), SleefD(Sleef_expd4_u10avx2),
       Hwy<double>(hexp)},
      {"log", [](F x) { return std::log(x); }, [](D x) { return std::log(x); }, 1e-30, 1e30, true,
       SleefF(Sleef_logf8_u10avx2), Hwy<float>(hlog), SleefD(Sleef_logd4_u10avx2),
       Hwy<double>(hlog)},
      {"tanh", [](F x) { return std::tanh(x); }, [](D x) { return std::tanh(x); }, -20, 20, false,
       SleefF(Sleef_tanhf8_u10avx2), Hwy<float>(htanh), SleefD(Sleef_tanhd4_u10avx2),
       Hwy<double>(htanh)},
      {"sigmoid", [](F x) { return 1 / (1 + std::exp(-x)); },
       [](D x) { return 1 / (1 + std::exp(-x)); }, -80, 80, false, SleefF(SleefSigmoidF),
       Hwy<float>(hsig), SleefD(SleefSigmoidD), Hwy<double>(hsig)},
      {"sin", [](F x) { return std::sin(x); }, [](D x) { return std::sin(x); }, -1e4, 1e4, false,
       SleefF(Sleef_sinf8_u10avx2), Hwy<float>(hsin), SleefD(Sleef_sind4_u10avx2),
       Hwy<double>(hsin)},
      {"cos", [](F x) { return std::cos(x); }, [](D x) { return std::cos(x); }, -1e4, 1e4, false,
       SleefF(Sleef_cosf8_u10avx2), Hwy<float>(hcos), SleefD(Sleef_cosd4_u10avx2),
       Hwy<double>(hcos)},
  };
  std::printf(
      "| function | dtype | library | ns/element | max ulp (sweep) | special inputs unlike libm "
      "(of %zu) |\n",
      Specials<float>().size());
  std::printf("| --- | --- | --- | ---: | ---: | ---: |\n");
  for (const Fn& f : fns) {
    Measure<float>("SLEEF u10", f, f.sleef_f, f.ref_f);
    Measure<float>("Highway", f, f.hwy_f, f.ref_f);
  }
  for (const Fn& f : fns) {
    Measure<double>("SLEEF u10", f, f.sleef_d, f.ref_d);
    Measure<double>("Highway", f, f.hwy_d, f.ref_d);
  }
  // tanh at 3.5 ulp (SLEEF's u35 variant), the cheaper choice if it is enough.
  Fn t35 = fns[2];
  t35.name = "tanh (SLEEF u35)";
  Measure<float>("SLEEF u35", t35, SleefF(Sleef_tanhf8_u35avx2), t35.ref_f);
  return 0;
}
