// Random sampling from the seeded default generator (src/oar/core/generator.h):
// randperm, randint_like, bernoulli, multinomial, poisson; and the (not random)
// index grids tril_indices / triu_indices, creation ops of this section.
//
// Each call draws one seed from the default generator and runs its own engine,
// as uniform/normal do, so oar.seed(n) makes every later call reproducible.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "oar/core/generator.h"
#include "oar/core/wide_int.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

std::mt19937_64 OpEngine() { return std::mt19937_64(DefaultCPUGenerator().NextSeed()); }
inline double Unit(std::mt19937_64& e) { return static_cast<double>(e() >> 11) * 0x1.0p-53; }

std::vector<double> AsDouble(const DenseTensor& t) {
  const DenseTensor c = funcs::CastTo(funcs::Contiguous(t), DType::kFloat64);
  const double* p = static_cast<const double*>(c.data());
  return std::vector<double>(p, p + c.numel());
}

template <typename T>
void Store(T* o, int64_t i, double v) {
  o[i] = static_cast<T>(static_cast<compute_t<T>>(v));
}

}  // namespace

template <typename T>
void RandpermKernel(const DeviceContext& ctx, int64_t n, DType, DenseTensor* out) {
  T* o = static_cast<T*>(out->AllocateFrom(ctx.GetPlace()));
  if constexpr (!std::is_integral_v<compute_t<T>>) {
    // float16/bfloat16 hold integers exactly only up to 2048/256.
    const double limit = static_cast<double>(std::numeric_limits<compute_t<T>>::digits);
    OAR_ENFORCE(n <= (int64_t{1} << static_cast<int64_t>(limit)),
                errors::InvalidArgument("argument 'n' (", n, ") exceeds the integers ",
                                        DTypeName(out->dtype()), " holds exactly"));
  }
  std::vector<int64_t> p(n);
  std::iota(p.begin(), p.end(), 0);
  auto engine = OpEngine();
  for (int64_t i = n - 1; i > 0; --i) {  // Fisher-Yates
    std::swap(p[i], p[std::uniform_int_distribution<int64_t>(0, i)(engine)]);
  }
  for (int64_t i = 0; i < n; ++i) Store(o, i, static_cast<double>(p[i]));
}

template <typename T>
void RandintLikeKernel(const DeviceContext& ctx, const DenseTensor&, int64_t low, int64_t high,
                       DType, DenseTensor* out) {
  T* o = static_cast<T*>(out->AllocateFrom(ctx.GetPlace()));
  auto engine = OpEngine();
  std::uniform_int_distribution<int64_t> dist(low, high - 1);
  for (int64_t i = 0; i < out->numel(); ++i) {
    if constexpr (std::is_integral_v<compute_t<T>>) {
      o[i] = static_cast<T>(dist(engine));
    } else {
      Store(o, i, static_cast<double>(dist(engine)));
    }
  }
}

template <typename T>
void BernoulliKernel(const DeviceContext& ctx, const DenseTensor& x, DenseTensor* out) {
  const std::vector<double> p = AsDouble(x);
  for (double v : p) {
    OAR_ENFORCE(v >= 0 && v <= 1,
                errors::InvalidArgument("argument 'x' holds probabilities in [0, 1], found ", v));
  }
  T* o = static_cast<T*>(out->AllocateFrom(ctx.GetPlace()));
  auto engine = OpEngine();
  for (size_t i = 0; i < p.size(); ++i) Store(o, i, Unit(engine) < p[i] ? 1.0 : 0.0);
}

constexpr double kNormalApproximation = 1e10;

template <typename T>
void PoissonKernel(const DeviceContext& ctx, const DenseTensor& x, DenseTensor* out) {
  const std::vector<double> lam = AsDouble(x);
  for (double v : lam) {
    OAR_ENFORCE(v >= 0 && std::isfinite(v),
                errors::InvalidArgument("argument 'x' holds rates >= 0, found ", v));
  }
  T* o = static_cast<T*>(out->AllocateFrom(ctx.GetPlace()));
  auto engine = OpEngine();
  for (size_t i = 0; i < lam.size(); ++i) {
    double k = 0;
    if (lam[i] > kNormalApproximation) {
      // The normal approximation: its error (skewness 1/sqrt(rate) < 1e-5) is far below
      // what a sample can show, and the exact sampler's int64 would overflow for huge rates.
      const double z = std::normal_distribution<double>()(engine);
      k = std::max(0.0, std::round(lam[i] + std::sqrt(lam[i]) * z));
    } else if (lam[i] > 0) {
      k = static_cast<double>(std::poisson_distribution<int64_t>(lam[i])(engine));
    }
    Store(o, i, k);
  }
}

// With replacement: inverse CDF by binary search. Without: the k largest keys
// log(u) / w (Efraimidis-Spirakis), which samples sequentially without replacement.
template <typename T>
void MultinomialKernel(const DeviceContext& ctx, const DenseTensor& x, int64_t num_samples,
                       bool replacement, DenseTensor* out) {
  const std::vector<double> w = AsDouble(x);
  const int64_t n = x.dims()[x.ndim() - 1];
  const int64_t rows = x.ndim() == 1 ? 1 : x.dims()[0];
  int64_t* o = static_cast<int64_t*>(out->AllocateFrom(ctx.GetPlace()));
  auto engine = OpEngine();
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = w.data() + r * n;
    int64_t positive = 0;
    std::vector<double> cdf(n);
    double total = 0, top = 0;
    for (int64_t j = 0; j < n; ++j) {
      OAR_ENFORCE(row[j] >= 0 && std::isfinite(row[j]),
                  errors::InvalidArgument("argument 'x' holds weights >= 0, found ", row[j]));
      top = std::max(top, row[j]);
    }
    // Relative to the largest weight: [1e308, 1e308] summed to inf, and every draw then
    // took the last category.
    const double scale = top > 0 ? 1.0 / top : 1.0;
    for (int64_t j = 0; j < n; ++j) {
      positive += row[j] > 0;
      total += row[j] * scale;
      cdf[j] = total;
    }
    OAR_ENFORCE(total > 0, errors::InvalidArgument("argument 'x' has a row of zero weights"));
    int64_t* orow = o + r * num_samples;
    if (replacement) {
      for (int64_t s = 0; s < num_samples; ++s) {
        const double u = Unit(engine) * total;
        // The first category whose cumulative weight exceeds u (never a zero-weight one).
        orow[s] = std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
        orow[s] = std::min(orow[s], n - 1);
        while (row[orow[s]] == 0) --orow[s];
      }
      continue;
    }
    OAR_ENFORCE(num_samples <= positive,
                errors::InvalidArgument("argument 'num_samples' (", num_samples,
                                        ") exceeds the categories with non-zero weight (", positive,
                                        ") and replacement is False"));
    std::vector<std::pair<double, int64_t>> keys(n);
    for (int64_t j = 0; j < n; ++j) {
      const double u = 1.0 - Unit(engine);  // (0, 1]
      keys[j] = {row[j] > 0 ? std::log(u) / row[j] : -std::numeric_limits<double>::infinity(), j};
    }
    std::partial_sort(keys.begin(), keys.begin() + num_samples, keys.end(),
                      [](const auto& a, const auto& b) { return a.first > b.first; });
    for (int64_t s = 0; s < num_samples; ++s) orow[s] = keys[s].second;
  }
}

namespace {
template <typename T>
void TriIndices(const DeviceContext& ctx, int64_t row, int64_t col, int64_t offset, bool lower,
                DenseTensor* out) {
  T* o = static_cast<T*>(out->AllocateFrom(ctx.GetPlace()));
  const int64_t count = out->dims()[1];
  int64_t k = 0;
  if (count == 0) return;
  // Only the rows that hold entries: lower from row -offset on, upper up to col - offset.
  // In 128 bits: -offset, col - offset and i + offset + 1 overflow int64 for offsets
  // near +-2**63 (i + offset + 1 wrapped negative, and no entry was written).
  using I = Int128;
  const auto clamped = [](I v, int64_t hi) {
    return static_cast<int64_t>(std::clamp<I>(v, 0, hi));
  };
  const int64_t first = lower ? clamped(-I(offset), row) : 0;
  const int64_t last = lower ? row : clamped(I(col) - offset, row);
  for (int64_t i = first; i < last; ++i) {
    const int64_t b = lower ? 0 : clamped(I(i) + offset, col);
    const int64_t e = lower ? clamped(I(i) + offset + 1, col) : col;
    for (int64_t j = b; j < e; ++j, ++k) {
      o[k] = static_cast<T>(i);
      o[count + k] = static_cast<T>(j);
    }
  }
}
}  // namespace

template <typename T>
void TrilIndicesKernel(const DeviceContext& ctx, int64_t row, int64_t col, int64_t offset, DType,
                       DenseTensor* out) {
  TriIndices<T>(ctx, row, col, offset, true, out);
}

template <typename T>
void TriuIndicesKernel(const DeviceContext& ctx, int64_t row, int64_t col, int64_t offset, DType,
                       DenseTensor* out) {
  TriIndices<T>(ctx, row, col, offset, false, out);
}

OAR_REGISTER_KERNEL(randperm, CPU, Any, RandpermKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(randint_like, CPU, Any, RandintLikeKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(bernoulli, CPU, Any, BernoulliKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(poisson, CPU, Any, PoissonKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(multinomial, CPU, Any, MultinomialKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(tril_indices, CPU, Any, TrilIndicesKernel, int32_t, int64_t);
OAR_REGISTER_KERNEL(triu_indices, CPU, Any, TriuIndicesKernel, int32_t, int64_t);

}  // namespace oar
