// Run-time choice of the SIMD width for vec_math (see vec_math.h), and the
// portable scalar table used where no SIMD build exists (non-x86 hosts).
#include "oar/kernels/funcs/vec_math.h"

#include <cmath>
#include <limits>

#include "oar/core/cpu_isa.h"
#include "oar/kernels/funcs/vec_math_isa.h"

namespace oar::vec {
namespace detail {
namespace {

template <typename S>
S Exp(S v) {
  return std::exp(v);
}
template <typename S>
S Expm1(S v) {
  return std::expm1(v);
}
template <typename S>
S Log(S v) {
  return std::log(v);
}
template <typename S>
S Log1p(S v) {
  return std::log1p(v);
}
template <typename S>
S Log2(S v) {
  return std::log2(v);
}
template <typename S>
S Log10(S v) {
  return std::log10(v);
}
template <typename S>
S Sin(S v) {
  return std::sin(v);
}
template <typename S>
S Cos(S v) {
  return std::cos(v);
}
template <typename S>
S Tan(S v) {
  return std::tan(v);
}
template <typename S>
S Tanh(S v) {
  return std::tanh(v);
}
template <typename S>
S Erf(S v) {
  return std::erf(v);
}
template <typename S>
S Erfc(S v) {
  return std::erfc(v);
}
template <typename S>
S Sigmoid(S x) {
  return S(1) / (S(1) + std::exp(-x));
}

template <typename S, auto F>
void MapScalar(const S* x, S* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = F(x[i]);
}

template <typename S>
S ExpSubSumScalar(const S* x, S shift, S* y, int64_t n) {
  S sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += (y[i] = std::exp(x[i] - shift));
  return sum;
}

template <typename S>
S MaxScalar(const S* x, int64_t n) {
  S m = -std::numeric_limits<S>::infinity();
  for (int64_t i = 0; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

template <typename S>
S SumScalar(const S* x, int64_t n) {
  S s = 0;
  for (int64_t i = 0; i < n; ++i) s += x[i];
  return s;
}

template <typename S>
void SumRunsScalar(const S* const* x, int k, int64_t n, S* out) {
  for (int r = 0; r < k; ++r) out[r] = SumScalar<S>(x[r], n);
}

template <typename S, bool kMax>
S ExtremeScalar(const S* x, int64_t n);

template <typename S, bool kMax>
void ExtremeRunsScalar(const S* const* x, int k, int64_t n, S* out) {
  for (int r = 0; r < k; ++r) out[r] = ExtremeScalar<S, kMax>(x[r], n);
}

template <typename S, bool kMax>
S ExtremeScalar(const S* x, int64_t n) {
  S m = kMax ? -std::numeric_limits<S>::infinity() : std::numeric_limits<S>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    if (x[i] != x[i]) return x[i];
    m = (kMax ? x[i] > m : x[i] < m) ? x[i] : m;
  }
  return m;
}

template <typename S>
TypedTable<S> ScalarTyped() {
  TypedTable<S> t{};
  auto& a = t.apply;
  a[int(Fn::kExp)] = MapScalar<S, Exp<S>>;
  a[int(Fn::kExpm1)] = MapScalar<S, Expm1<S>>;
  a[int(Fn::kLog)] = MapScalar<S, Log<S>>;
  a[int(Fn::kLog1p)] = MapScalar<S, Log1p<S>>;
  a[int(Fn::kLog2)] = MapScalar<S, Log2<S>>;
  a[int(Fn::kLog10)] = MapScalar<S, Log10<S>>;
  a[int(Fn::kSin)] = MapScalar<S, Sin<S>>;
  a[int(Fn::kCos)] = MapScalar<S, Cos<S>>;
  a[int(Fn::kTan)] = MapScalar<S, Tan<S>>;
  a[int(Fn::kTanh)] = MapScalar<S, Tanh<S>>;
  a[int(Fn::kSigmoid)] = MapScalar<S, Sigmoid<S>>;
  a[int(Fn::kErf)] = MapScalar<S, Erf<S>>;
  a[int(Fn::kErfc)] = MapScalar<S, Erfc<S>>;
  t.exp_sub_sum = ExpSubSumScalar<S>;
  t.max_ignoring_nan = MaxScalar<S>;
  t.sum = SumScalar<S>;
  t.sum_runs = SumRunsScalar<S>;
  t.max_runs = ExtremeRunsScalar<S, true>;
  t.min_runs = ExtremeRunsScalar<S, false>;
  t.max = ExtremeScalar<S, true>;
  t.min = ExtremeScalar<S, false>;
  return t;
}

// The exact gelu x Phi(x) and g times its derivative, Phi from erfc in double.
void GeluScalar(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    y[i] = static_cast<float>(v * 0.5 * std::erfc(-v * 0.70710678118654752));
  }
}
void GeluGradScalar(const float* x, const float* g, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    const double phi = 0.5 * std::erfc(-v * 0.70710678118654752);
    y[i] = static_cast<float>(g[i] * (phi + v * 0.39894228040143268 * std::exp(-0.5 * v * v)));
  }
}

[[maybe_unused]] const Table& TableScalar() {
  static const Table t{"scalar", ScalarTyped<float>(), ScalarTyped<double>(), GeluScalar,
                       GeluGradScalar};
  return t;
}

// The widest table dispatch may use (Note [One cap on the dispatched ISA] in
// core/cpu_isa.h).
const Table& Pick() {
#if defined(__x86_64__) || defined(_M_X64)
  switch (MaxCpuIsa()) {
    case CpuIsa::kAvx512:
    case CpuIsa::kAvx512Bf16:
      return TableAvx512();
    case CpuIsa::kAvx2:
      return TableAvx2();
    default:
      return TableSse2();
  }
#else
  return TableScalar();
#endif
}

const Table& Active() {
  static const Table& t = Pick();
  return t;
}

}  // namespace
}  // namespace detail

void Apply(Fn fn, const float* x, float* y, int64_t n) {
  if (n > 0) detail::Active().f.apply[static_cast<int>(fn)](x, y, n);
}
void Apply(Fn fn, const double* x, double* y, int64_t n) {
  if (n > 0) detail::Active().d.apply[static_cast<int>(fn)](x, y, n);
}
float ExpSubSum(const float* x, float shift, float* y, int64_t n) {
  return detail::Active().f.exp_sub_sum(x, shift, y, n);
}
double ExpSubSum(const double* x, double shift, double* y, int64_t n) {
  return detail::Active().d.exp_sub_sum(x, shift, y, n);
}
float MaxIgnoringNaN(const float* x, int64_t n) {
  return detail::Active().f.max_ignoring_nan(x, n);
}
double MaxIgnoringNaN(const double* x, int64_t n) {
  return detail::Active().d.max_ignoring_nan(x, n);
}
float Sum(const float* x, int64_t n) { return detail::Active().f.sum(x, n); }
double Sum(const double* x, int64_t n) { return detail::Active().d.sum(x, n); }
void SumRuns(const float* const* x, int k, int64_t n, float* out) {
  detail::Active().f.sum_runs(x, k, n, out);
}
void SumRuns(const double* const* x, int k, int64_t n, double* out) {
  detail::Active().d.sum_runs(x, k, n, out);
}
void MaxRuns(const float* const* x, int k, int64_t n, float* out) {
  detail::Active().f.max_runs(x, k, n, out);
}
void MaxRuns(const double* const* x, int k, int64_t n, double* out) {
  detail::Active().d.max_runs(x, k, n, out);
}
void MinRuns(const float* const* x, int k, int64_t n, float* out) {
  detail::Active().f.min_runs(x, k, n, out);
}
void MinRuns(const double* const* x, int k, int64_t n, double* out) {
  detail::Active().d.min_runs(x, k, n, out);
}
float Max(const float* x, int64_t n) { return detail::Active().f.max(x, n); }
double Max(const double* x, int64_t n) { return detail::Active().d.max(x, n); }
float Min(const float* x, int64_t n) { return detail::Active().f.min(x, n); }
double Min(const double* x, int64_t n) { return detail::Active().d.min(x, n); }
void Gelu(const float* x, float* y, int64_t n) {
  if (n > 0) detail::Active().gelu(x, y, n);
}
void GeluGrad(const float* x, const float* g, float* y, int64_t n) {
  if (n > 0) detail::Active().gelu_grad(x, g, y, n);
}
const char* ActiveIsa() { return detail::Active().isa; }

}  // namespace oar::vec
