// Kernels of src/oar/ops/special.yaml: lgamma, digamma, polygamma, and gamma sampling
// with its implicit reparameterisation gradient. Every function computes in double and
// rounds once to the output dtype, so float32 results are correctly rounded up to that
// last step.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>

#include "oar/core/errors.h"
#include "oar/core/generator.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/funcs/elementwise.h"
#include "oar/kernels/funcs/gamma_math.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

using funcs::BinaryElementwise;
using funcs::UnaryElementwise;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

using funcs::LogGamma;
using funcs::UpperGammaFraction;

// B_2k / (2k) for k = 1..8: the coefficients of digamma's asymptotic series.
constexpr std::array<double, 8> kDigammaTail = {1.0 / 12,   -1.0 / 120,    1.0 / 252,
                                                -1.0 / 240, 1.0 / 132,     -691.0 / 32760,
                                                1.0 / 12,   -3617.0 / 8160};

double Digamma(double x) {
  if (std::isnan(x) || x == -kInf) return kNaN;
  if (x == 0) return std::signbit(x) ? kInf : -kInf;  // the limits from either side
  if (x < 0) {
    if (x == std::floor(x)) return kNaN;  // poles at the negative integers
    // Reflection: psi(1 - x) - psi(x) = pi / tan(pi x); sinpi-style reduction keeps
    // tan's argument small so large |x| loses no precision.
    const double r = x - std::floor(x);
    return Digamma(1 - x) - std::numbers::pi / std::tan(std::numbers::pi * r);
  }
  // Recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, where the asymptotic series
  // ln x - 1/(2x) - sum B_2k / (2k x^2k) has converged to double precision.
  double acc = 0;
  while (x < 10) {
    acc -= 1 / x;
    x += 1;
  }
  const double inv2 = 1 / (x * x);
  double series = 0;
  double p = inv2;
  for (double c : kDigammaTail) {
    series += c * p;
    p *= inv2;
  }
  return acc + std::log(x) - 0.5 / x - series;
}

// B_2j / (2j)! for j = 1..12: the Euler-Maclaurin correction terms of the Hurwitz zeta.
constexpr std::array<double, 12> kZetaTail = {1.0 / 12,
                                              -1.0 / 720,
                                              1.0 / 30240,
                                              -1.0 / 1209600,
                                              1.0 / 47900160,
                                              -691.0 / 1307674368000.0,
                                              1.0 / 74724249600,
                                              -3617.0 / 10670622842880000.0,
                                              43867.0 / 5109094217170944000.0,
                                              -174611.0 / 802857662698291200000.0,
                                              77683.0 / 14101100039391805440000.0,
                                              -236364091.0 / 1693824136731743669452800000.0};

// The Hurwitz zeta function sum_k (q + k)^-s for an integer s >= 2 and q not 0 or a
// negative integer, each term scaled by c^s (c = 1: the plain sum; c = q > 0: terms
// in (0, 1], so a huge s neither overflows nor underflows the first of them). The
// terms are summed directly until q + k >= max(15, s) -- or until they stop
// mattering, which for k > s takes a few dozen terms -- then the Euler-Maclaurin
// remainder of the rest, which converges once q + k > s.
double HurwitzZeta(double s, double q, double c) {
  auto term = [&](double a) { return c == 1 ? std::pow(a, -s) : std::pow(c / a, s); };
  double sum = 0;
  double a = q;
  while (a < 15 || a <= s) {
    const double t = term(a);
    sum += t;
    // inf or NaN (inf - inf across a pole, for a huge s): the caller redoes it scaled
    if (!std::isfinite(sum)) return sum;
    if (a >= 15 && std::fabs(t) <= 1e-17 * std::fabs(sum)) return sum;
    a += 1;
  }
  // integral of the tail, half the first term, then the Bernoulli terms; rp is
  // s (s+1) ... (s+2j-2) c^s a^(-s-2j+1), updated as a ratio so nothing overflows
  const double first = term(a);
  double tail = first * a / (s - 1) + 0.5 * first;
  double rp = s * first / a;
  for (size_t j = 0; j < kZetaTail.size() && rp != 0; ++j) {
    const double t = kZetaTail[j] * rp;
    tail += t;
    if (std::fabs(t) < 1e-17 * std::fabs(tail)) break;
    rp *= (s + 2 * j + 1) / a * ((s + 2 * j + 2) / a);
  }
  return sum + tail;
}

// psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 1.
double Polygamma(int64_t n, double x) {
  if (n == 0) return Digamma(x);
  const double sign = n % 2 == 1 ? 1.0 : -1.0;
  if (std::isnan(x)) return kNaN;
  // SciPy's and Paddle's values (PyTorch's too for n >= 2, and at 0 for n = 1):
  // (-1)^(n+1) inf at the poles 0, -1, -2, ... and at -inf (for odd n the two-sided
  // limit at a pole), the limit (-1)^(n+1) 0 at +inf.
  if (x == kInf) return sign * 0.0;
  if (x <= 0 && x == std::floor(x)) return sign * kInf;
  const double s = static_cast<double>(n) + 1;
  const double log_factorial = LogGamma(s);
  const double factorial = std::exp(log_factorial);
  // Left of 0: zeta(s, x) = (-1)^s (zeta(s, 1 - f) - zeta(s, N + 1 - f)) + zeta(s, f)
  // with x = f - N, 0 < f < 1, each q in it positive. The direct sum would take |x|
  // terms far left of 0, and for an even n it adds terms of both signs: at x = -2.5,
  // (-0.5)^-s and 0.5^-s cancel and took every digit of the rest with them (n = 20:
  // -4.2e8 for -9.2e6; PyTorch and SciPy still give that).
  const double fl = std::floor(x);
  const double f = x - fl;
  const double odd_s = n % 2 == 0 ? -1.0 : 1.0;  // (-1)^s
  struct Part {
    double coef, q;
  };
  // the two near the poles first: at f = 1/2 with s odd they cancel exactly
  const std::array<Part, 3> parts = {Part{odd_s, 1 - f}, Part{1.0, f}, Part{-odd_s, 1 - f - fl}};
  double z = 0;
  if (x > 0) {
    z = HurwitzZeta(s, x, 1.0);
  } else {
    for (const Part& p : parts) z += p.coef * HurwitzZeta(s, p.q, 1.0);
  }
  if (std::isfinite(factorial) && std::isfinite(z) && z != 0) return sign * factorial * z;
  // A huge n (or a huge zeta near a pole): n! or zeta leaves the double range, so
  // the product is formed in logs, zeta's terms scaled by q^s (zeta = Z q^-s).
  if (x > 0) {
    return sign * std::exp(log_factorial - s * std::log(x) + std::log(HurwitzZeta(s, x, x)));
  }
  // zeta as sign * e^log, the parts added in order: the two near the poles first, so
  // that their exact cancellation at f = 1/2 leaves the third part's value and not 0
  // (which underflowed when its scale was the cancelled parts': -0.0 for -inf).
  double zsign = 0, zlog = -kInf;
  for (const Part& p : parts) {
    const double plog = -s * std::log(p.q) + std::log(HurwitzZeta(s, p.q, p.q));
    const double top = std::max(zlog, plog);
    const double v = zsign * std::exp(zlog - top) + p.coef * std::exp(plog - top);
    zsign = v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0;
    zlog = v == 0 ? -kInf : top + std::log(std::fabs(v));
  }
  if (zsign == 0) return sign * 0.0;
  return sign * zsign * std::exp(log_factorial + zlog);
}

template <typename T>
void LgammaKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  UnaryElementwise<T, T>(
      x, out, [](auto a) { return static_cast<decltype(a)>(LogGamma(static_cast<double>(a))); },
      16);
}

template <typename T>
void DigammaKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  UnaryElementwise<T, T>(
      x, out, [](auto a) { return static_cast<decltype(a)>(Digamma(static_cast<double>(a))); }, 24);
}

template <typename T>
void PolygammaKernel(const DeviceContext&, const DenseTensor& x, int64_t n, DenseTensor* out) {
  OAR_ENFORCE(n >= 0, errors::InvalidArgument("polygamma: argument 'n' must be >= 0, got ", n));
  // n + 1 is the order of the gradient's polygamma: it must be representable
  OAR_ENFORCE(n < std::numeric_limits<int64_t>::max(),
              errors::InvalidArgument("polygamma: argument 'n' must be < 2**63 - 1, got ", n));
  UnaryElementwise<T, T>(
      x, out,
      [n](auto a) { return static_cast<decltype(a)>(Polygamma(n, static_cast<double>(a))); }, 64);
}

// ---- gamma sampling ------------------------------------------------------------------

inline double Unit(std::mt19937_64& e) { return static_cast<double>(e() >> 11) * 0x1.0p-53; }

// Marsaglia and Tsang's squeeze-rejection sampler for shape a >= 1; a < 1 samples
// shape a + 1 and scales by u^(1/a), the boost that keeps the sampler exact.
double SampleGamma(double a, std::mt19937_64& engine, std::normal_distribution<double>& normal) {
  double boost = 1;
  if (a < 1) {
    double u = Unit(engine);
    while (u == 0) u = Unit(engine);
    boost = std::pow(u, 1 / a);
    a += 1;
  }
  const double d = a - 1.0 / 3;
  const double c = 1 / std::sqrt(9 * d);
  for (;;) {
    double z = 0;
    double v = 0;
    do {
      z = normal(engine);
      v = 1 + c * z;
    } while (v <= 0);
    v = v * v * v;
    const double u = Unit(engine);
    const double z2 = z * z;
    if (u < 1 - 0.0331 * z2 * z2 || std::log(u) < 0.5 * z2 + d * (1 - v + std::log(v))) {
      return d * v * boost;
    }
  }
}

// One engine per call, seeded from the default generator (as random_kernels.cc does),
// and a sequential loop: the samples depend only on oar.seed, not on the thread count.
template <typename T>
void StandardGammaKernel(const DeviceContext& ctx, const DenseTensor& x, DenseTensor* out) {
  using C = compute_t<T>;
  const DenseTensor c = funcs::CastTo(funcs::Contiguous(x), DType::kFloat64);
  const double* alpha = static_cast<const double*>(c.data());
  const int64_t n = c.numel();
  for (int64_t i = 0; i < n; ++i) {
    OAR_ENFORCE(alpha[i] > 0 && std::isfinite(alpha[i]),
                errors::InvalidArgument("standard_gamma: argument 'x' holds concentrations > 0 "
                                        "and finite, found ",
                                        alpha[i]));
  }
  T* o = static_cast<T*>(out->AllocateFrom(ctx.GetPlace()));
  std::mt19937_64 engine(DefaultCPUGenerator().NextSeed());
  std::normal_distribution<double> normal;
  // A sample below the dtype's smallest normal number (tiny concentrations) is kept at
  // that number: log_prob and the gradient need it positive.
  const double smallest = static_cast<double>(std::numeric_limits<C>::min());
  for (int64_t i = 0; i < n; ++i) {
    o[i] =
        static_cast<T>(static_cast<C>(std::max(SampleGamma(alpha[i], engine, normal), smallest)));
  }
}

// d x / d a for x a sample of Gamma(a, 1): x is the a-quantile at a fixed uniform u,
// F(x; a) = u, so dx/da = -(dF/da) / f(x; a) (the implicit reparameterisation gradient).
double GammaSampleGrad(double a, double x) {
  if (!(a > 0) || std::isnan(x)) return kNaN;
  if (x <= 0) return 0;  // the limit of the lower series' -s x / a as x -> 0
  if (x < a + 1) {
    // Lower series: P(a, x) = t_0 sum_n r_n with r_n = x^n / ((a+1)...(a+n)); each term
    // differentiates to t_0 r_n (ln x - psi(a+n+1)), and f(x; a) = t_0 a / x.
    const double lx = std::log(x);
    double r = 1;
    double psi = Digamma(a + 1);
    double s = lx - psi;
    double total = 1;
    for (int n = 1; n < 100000; ++n) {
      r *= x / (a + n);
      psi += 1 / (a + n);
      s += r * (lx - psi);
      total += r;
      if (r < 1e-17 * total) break;
    }
    return -s * x / a;
  }
  // Upper fraction: Q(a, x) = e^-x x^a CF / Gamma(a), so
  // dQ/da / f = x CF (ln x - psi(a) + d ln CF / da). The last term by central differences
  // with one Richardson step (error O(h^4); CF is smooth in a).
  const double cf = UpperGammaFraction(a, x);
  const double h = 1e-3 * std::max(1.0, a);
  auto diff = [&](double step) {
    return (std::log(UpperGammaFraction(a + step, x)) - std::log(UpperGammaFraction(a - step, x))) /
           (2 * step);
  };
  const double dlog_cf = (4 * diff(h / 2) - diff(h)) / 3;
  return x * cf * (std::log(x) - Digamma(a) + dlog_cf);
}

template <typename T>
void StandardGammaGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& out,
                             DenseTensor* x_grad) {
  OAR_ENFORCE(x.dims() == out.dims(),
              errors::InvalidArgument("standard_gamma_grad: argument 'out' must have the shape "
                                      "of 'x' (the samples drawn with those concentrations)"));
  BinaryElementwise<T, T, T>(
      x, out, x_grad,
      [](auto a, auto s) {
        return static_cast<decltype(a)>(
            GammaSampleGrad(static_cast<double>(a), static_cast<double>(s)));
      },
      64);
}

}  // namespace

OAR_REGISTER_KERNEL(lgamma, CPU, Any, LgammaKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(digamma, CPU, Any, DigammaKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(polygamma, CPU, Any, PolygammaKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(standard_gamma, CPU, Any, StandardGammaKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(standard_gamma_grad, CPU, Any, StandardGammaGradKernel, OAR_FLOAT_TYPES);

}  // namespace oar
