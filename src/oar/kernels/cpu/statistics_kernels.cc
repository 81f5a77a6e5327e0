// Statistics over axes: prod, logsumexp, var, std, p_norm (the vector norms
// behind oar.norm), amax, amin and count_nonzero.
//
// Each reads x as one contiguous row per output element (funcs::ReducedRows)
// and reduces the row in double (int64 for integer products), so float32
// results are as accurate as float64 ones rounded once.
#include <cmath>
#include <limits>

#include "oar/core/parallel.h"
#include "oar/kernels/funcs/axis_rows.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

template <typename T>
using wide_t = std::conditional_t<std::is_integral_v<compute_t<T>>, int64_t,
                                  std::conditional_t<is_complex_v<T>, complex128, double>>;

// Calls f(row pointer, len) -> value for each output element, in parallel over rows.
template <typename T, typename U, typename F>
void ForEachRow(const DenseTensor& x, const std::vector<int64_t>& axis, DenseTensor* out, F f) {
  U* o = static_cast<U*>(out->AllocateFrom(x.place()));
  if (out->numel() == 0) return;
  const funcs::Rows r = funcs::ReducedRows(x, NormalizeReduceAxes(axis, x.ndim()));
  const T* in = static_cast<const T*>(r.data.data());
  const int64_t len = r.len;
  ParallelFor(0, r.rows, len, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) o[i] = static_cast<U>(f(in + i * len, len));
  });
}

template <typename T>
double At(const T* row, int64_t j) {
  return static_cast<double>(static_cast<compute_t<T>>(row[j]));
}

template <typename T>
void ProdImpl(const DenseTensor& x, const std::vector<int64_t>& axis, DenseTensor* out) {
  ForEachRow<T, T>(x, axis, out, [](const T* row, int64_t n) {
    using W = wide_t<T>;
    W acc = 1;
    for (int64_t j = 0; j < n; ++j) acc *= static_cast<W>(static_cast<compute_t<T>>(row[j]));
    return static_cast<compute_t<T>>(acc);
  });
}

// Extremes propagate NaN, as torch.amax/amin do.
template <typename T, bool kMax>
void ExtremeImpl(const DenseTensor& x, const std::vector<int64_t>& axis, DenseTensor* out) {
  ForEachRow<T, T>(x, axis, out, [](const T* row, int64_t n) {
    using C = compute_t<T>;
    C best = static_cast<C>(row[0]);
    for (int64_t j = 1; j < n && best == best; ++j) {
      const C v = static_cast<C>(row[j]);
      if (v != v || (kMax ? v > best : v < best)) best = v;
    }
    return best;
  });
}

}  // namespace

template <typename T>
void ProdKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& axis, bool,
                DType, DenseTensor* out) {
  if (out->dtype() != x.dtype()) {
    const DenseTensor xc = funcs::CastTo(x, out->dtype());
    VisitDType(out->dtype(), [&]<typename U>() {
      if constexpr (std::is_same_v<U, bool>) {
        throw errors::InvalidType("argument 'dtype' must be numeric, got bool");
      } else {
        ProdImpl<U>(xc, axis, out);
      }
    });
    return;
  }
  if constexpr (std::is_same_v<T, bool>) {
    throw errors::InvalidType("argument 'dtype' must be numeric, got bool");
  } else {
    ProdImpl<T>(x, axis, out);
  }
}

template <typename T>
void LogsumexpKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& axis,
                     bool, DenseTensor* out) {
  ForEachRow<T, T>(x, axis, out, [](const T* row, int64_t n) {
    double m = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < n; ++j) m = std::max(m, At(row, j));
    for (int64_t j = 0; j < n; ++j) {
      if (std::isnan(At(row, j))) return static_cast<compute_t<T>>(At(row, j));
    }
    if (std::isinf(m)) return static_cast<compute_t<T>>(m);  // all -inf, or some +inf
    double s = 0;
    for (int64_t j = 0; j < n; ++j) s += std::exp(At(row, j) - m);
    return static_cast<compute_t<T>>(m + std::log(s));
  });
}

namespace {
// Two passes (mean, then squared deviations): no cancellation for large means. The
// mean is taken relative to the first value, so that a line of equal values has its
// mean exactly and a variance of exactly 0 (a plain running sum of 3 copies of x is
// not 3 x), whose gradient is then 0 as in PyTorch, not noise / 1e-16.
template <typename T>
double RowVariance(const T* row, int64_t n, bool unbiased) {
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();  // no mean to deviate from
  const double first = At(row, 0);
  double shift = 0;
  for (int64_t j = 0; j < n; ++j) shift += At(row, j) - first;
  const double mean = first + shift / static_cast<double>(n);
  double ss = 0;
  for (int64_t j = 0; j < n; ++j) ss += (At(row, j) - mean) * (At(row, j) - mean);
  return ss / static_cast<double>(n - (unbiased ? 1 : 0));
}
}  // namespace

template <typename T>
void VarKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& axis,
               bool unbiased, bool, DenseTensor* out) {
  ForEachRow<T, T>(x, axis, out, [=](const T* row, int64_t n) {
    return static_cast<compute_t<T>>(RowVariance(row, n, unbiased));
  });
}

template <typename T>
void StdKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& axis,
               bool unbiased, bool, DenseTensor* out) {
  ForEachRow<T, T>(x, axis, out, [=](const T* row, int64_t n) {
    return static_cast<compute_t<T>>(std::sqrt(RowVariance(row, n, unbiased)));
  });
}

template <typename T>
void PNormKernel(const DeviceContext&, const DenseTensor& x, double p,
                 const std::vector<int64_t>& axis, bool, DenseTensor* out) {
  const bool inf = std::isinf(p);
  OAR_ENFORCE(!inf || x.numel() > 0 || out->numel() == 0,
              errors::InvalidArgument("the ", p > 0 ? "inf" : "-inf",
                                      "-norm of an empty tensor is undefined"));
  ForEachRow<T, T>(x, axis, out, [=](const T* row, int64_t n) {
    using C = compute_t<T>;
    if (inf) {
      double best = std::abs(At(row, 0));
      for (int64_t j = 1; j < n; ++j) {
        const double v = std::abs(At(row, j));
        if (std::isnan(v)) return static_cast<C>(v);
        best = p > 0 ? std::max(best, v) : std::min(best, v);
      }
      return static_cast<C>(best);
    }
    double s = 0;
    if (p == 0) {
      for (int64_t j = 0; j < n; ++j) s += At(row, j) != 0 ? 1.0 : 0.0;
      return static_cast<C>(s);
    }
    // One element's norm is its |x| for every p, as in PyTorch; the formula would
    // overflow |x|^p for huge p (1e308) or round (|x|^p)^(1/p) to 1 for tiny ones.
    if (n == 1) return static_cast<C>(std::abs(At(row, 0)));
    if (p == 1) {
      for (int64_t j = 0; j < n; ++j) s += std::abs(At(row, j));
      return static_cast<C>(s);
    }
    if (p == 2) {
      // Scaled by the largest magnitude, so huge and tiny values neither overflow nor underflow.
      double scale = 0;
      for (int64_t j = 0; j < n; ++j) scale = std::max(scale, std::abs(At(row, j)));
      if (scale == 0 || std::isinf(scale)) {
        for (int64_t j = 0; j < n; ++j) s += At(row, j) * At(row, j);
        return static_cast<C>(std::sqrt(s));
      }
      for (int64_t j = 0; j < n; ++j) s += (At(row, j) / scale) * (At(row, j) / scale);
      return static_cast<C>(scale * std::sqrt(s));
    }
    for (int64_t j = 0; j < n; ++j) s += std::pow(std::abs(At(row, j)), p);
    return static_cast<C>(std::pow(s, 1.0 / p));
  });
}

template <typename T>
void AmaxKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& axis, bool,
                DenseTensor* out) {
  OAR_ENFORCE(x.numel() > 0 || out->numel() == 0,
              errors::InvalidArgument("cannot take the amax of an empty tensor"));
  ExtremeImpl<T, true>(x, axis, out);
}

template <typename T>
void AminKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& axis, bool,
                DenseTensor* out) {
  OAR_ENFORCE(x.numel() > 0 || out->numel() == 0,
              errors::InvalidArgument("cannot take the amin of an empty tensor"));
  ExtremeImpl<T, false>(x, axis, out);
}

template <typename T>
void CountNonzeroKernel(const DeviceContext&, const DenseTensor& x,
                        const std::vector<int64_t>& axis, bool, DenseTensor* out) {
  ForEachRow<T, int64_t>(x, axis, out, [](const T* row, int64_t n) {
    int64_t c = 0;
    for (int64_t j = 0; j < n; ++j) c += static_cast<compute_t<T>>(row[j]) != compute_t<T>(0);
    return c;
  });
}

OAR_REGISTER_KERNEL(prod, CPU, Any, ProdKernel, OAR_ALL_TYPES, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(logsumexp, CPU, Any, LogsumexpKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(var, CPU, Any, VarKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(std, CPU, Any, StdKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(p_norm, CPU, Any, PNormKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(amax, CPU, Any, AmaxKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(amin, CPU, Any, AminKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(count_nonzero, CPU, Any, CountNonzeroKernel, OAR_ALL_TYPES, OAR_COMPLEX_TYPES);

}  // namespace oar
