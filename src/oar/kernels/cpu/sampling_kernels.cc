// Kernels of src/oar/ops/sampling.yaml: binomial sampling from the seeded default
// generator. One engine per call, seeded from the generator (as random_kernels.cc does),
// and a sequential loop: the samples depend only on oar.seed, not on the thread count.
#include <algorithm>
#include <cmath>
#include <random>

#include "oar/core/errors.h"
#include "oar/core/generator.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/funcs/strided_loop.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

// t's values broadcast to `shape`, contiguous, in double.
DenseTensor AsDoubleBroadcast(const DenseTensor& t, const DDim& shape) {
  DenseTensorMeta m = t.meta();
  m.strides = funcs::BroadcastStrides(t, shape);
  m.dims = shape;
  return funcs::CastTo(funcs::Contiguous(DenseTensor(t.Holder(), m)), DType::kFloat64);
}

// std::binomial_distribution draws counts up to here correctly, in O(1). Far past it its
// rejection test (lgamma of the count, rounded by more than the test's margin) goes wrong:
// the variance is 3% low at 1e16, a draw takes 0.2-0.5 s at 1e18, none ends at 2**62.
// python/oar/distribution/binomial.py splits its counts down to the same bound.
constexpr int64_t kDirectTrials = int64_t{1} << 40;

// A uniform in (0, 1), never 0 (its log is taken).
double OpenUnit(std::mt19937_64& engine) {
  return (static_cast<double>(engine() >> 11) + 0.5) * 0x1.0p-53;
}

// Gamma(a) for a >= 1 (Marsaglia and Tsang 2000). The test's exponent
// x^2 / 2 + d (1 - v + log v) is written as the equal 3 d (log1p(t) - t + t^2/2 - t^3/3):
// for the shapes past 2**39 drawn here 1 - v + log v is about -x^2 / 2d, below the
// rounding of its terms, and d times that rounding (up to 1e3) decided the test at random.
double SampleGamma(double a, std::mt19937_64& engine, std::normal_distribution<double>& normal) {
  const double d = a - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  while (true) {
    const double x = normal(engine), t = c * x;
    if (t <= -1) continue;
    const double v = (1 + t) * (1 + t) * (1 + t);
    const double u = OpenUnit(engine);
    if (u < 1 - 0.0331 * (x * x) * (x * x)) return d * v;
    double rest = 0;  // log1p(t) - t + t^2/2 - t^3/3: its series from t^4 on, when small
    if (std::abs(t) < 0.1) {
      for (int k = 20; k >= 4; --k) rest = (k % 2 ? 1.0 : -1.0) / k + t * rest;
      rest *= (t * t) * (t * t);
    } else {
      rest = std::log1p(t) - t + t * t / 2 - t * t * t / 3;
    }
    if (std::log(u) < 3 * d * rest) return d * v;
  }
}

// Binomial(n, p), any n < 2**63, in O(log n): Bin(n, p) counts the n uniforms <= p. Their
// i-th smallest u ~ Beta(i, n + 1 - i) (i about n / 2) splits them: if u <= p the count is
// i plus Bin(n - i, (p - u) / (1 - u)) of the uniforms above u, else Bin(i - 1, p / u) of
// those below. Each step halves n, down to kDirectTrials. q = 1 - p is carried along with
// its own relative precision (p near 1 leaves few failures, which 1 - p would round away),
// and the last draw counts whichever of successes and failures is the rarer.
int64_t SampleBinomial(int64_t n, double p, std::mt19937_64& engine,
                       std::normal_distribution<double>& normal) {
  double q = 1 - p;
  int64_t x = 0;  // the successes counted so far
  while (n > kDirectTrials && p > 0 && q > 0) {
    const int64_t i = n / 2 + n % 2;
    const double g1 = SampleGamma(static_cast<double>(i), engine, normal);
    const double g2 = SampleGamma(static_cast<double>(n + 1 - i), engine, normal);
    const double u = g1 / (g1 + g2), v = g2 / (g1 + g2);  // v = 1 - u
    if (u <= p) {
      const double w = p <= 0.5 ? p - u : v - q;  // p - u
      x += i;
      n -= i;
      p = std::clamp(w / v, 0.0, 1.0);
      q = std::min(q / v, 1.0);
    } else {
      const double w = q <= 0.5 ? q - v : u - p;  // u - p
      n = i - 1;
      p = std::min(p / u, 1.0);
      q = std::clamp(w / u, 0.0, 1.0);
    }
  }
  if (n == 0 || p <= 0) return x;
  if (q <= 0) return x + n;
  return x + (q < p ? n - std::binomial_distribution<int64_t>(n, q)(engine)
                    : std::binomial_distribution<int64_t>(n, p)(engine));
}

}  // namespace

template <typename T>
void BinomialKernel(const DeviceContext& ctx, const DenseTensor& count, const DenseTensor& prob,
                    DenseTensor* out) {
  const DenseTensor n = AsDoubleBroadcast(count, out->dims());
  const DenseTensor p = AsDoubleBroadcast(prob, out->dims());
  const double* np = static_cast<const double*>(n.data());
  const double* pp = static_cast<const double*>(p.data());
  const int64_t size = out->numel();
  for (int64_t i = 0; i < size; ++i) {
    OAR_ENFORCE(np[i] >= 0 && np[i] == std::floor(np[i]) && np[i] < 9.2e18,
                errors::InvalidArgument(
                    "argument 'count' holds whole numbers >= 0 below 9.2e18, found ", np[i]));
    OAR_ENFORCE(
        pp[i] >= 0 && pp[i] <= 1,
        errors::InvalidArgument("argument 'prob' holds probabilities in [0, 1], found ", pp[i]));
  }
  int64_t* o = static_cast<int64_t*>(out->AllocateFrom(ctx.GetPlace()));
  std::mt19937_64 engine(DefaultCPUGenerator().NextSeed());
  std::normal_distribution<double> normal;
  for (int64_t i = 0; i < size; ++i) {
    const auto trials = static_cast<int64_t>(np[i]);  // < 9.2e18 < 2**63: exact
    o[i] = trials == 0 || pp[i] == 0 ? 0
           : pp[i] == 1              ? trials
           : trials <= kDirectTrials ? std::binomial_distribution<int64_t>(trials, pp[i])(engine)
                                     : SampleBinomial(trials, pp[i], engine, normal);
  }
}

OAR_REGISTER_KERNEL(binomial, CPU, Any, BinomialKernel, OAR_FLOAT_TYPES);

}  // namespace oar
