// batch_norm with batch statistics: every axis but the channel axis is reduced.
// Each kernel works one channel at a time (channels split over threads): the
// channel's elements are read for its mean, again for the squares about it and
// once more for the output, and the second and third reads come from cache.
// batch_norm_infer (eval, with given statistics) reads x once: x * a + shift.
//
// Note [Mixed-precision batch_norm]
// Under auto_cast a convolution hands batch_norm a bfloat16 (or float16) x while
// the layer's weight, bias and running statistics stay float32. Casting x up would
// cost a pass over the largest tensor of the block and make everything after it
// float32; instead x alone decides the kernel's element type (batch_norm.yaml:
// data_type x, weight/bias untransformed, amp: none), the statistics are taken in
// float32 (float64 for double) whatever the element type, weight and bias are read
// in their own dtype, and the output keeps x's dtype, as PyTorch's CPU batch norm
// does for bfloat16 input. The weight and bias gradients come back in their own
// dtype, summed in float32 (bn_weight_grad, bn_bias_grad).
#include <algorithm>
#include <array>
#include <cmath>
#include <type_traits>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

// x seen as [outer, channels, inner]: a channel's elements are `outer` runs of
// `inner` contiguous values, one every channels * inner.
struct Layout {
  int64_t outer = 1, channels = 1, inner = 1;
  int64_t count() const { return outer * inner; }
  int64_t run(int64_t o, int64_t c) const { return (o * channels + c) * inner; }
};

Layout LayoutOf(const DDim& dims, int64_t axis) {
  Layout s;
  const auto rank = static_cast<int64_t>(dims.size());
  const int64_t a = NormalizeAxis(axis, rank);
  for (int64_t d = 0; d < a; ++d) s.outer *= dims[d];
  s.channels = dims[a];
  for (int64_t d = a + 1; d < rank; ++d) s.inner *= dims[d];
  return s;
}

// Asks for the cache lines of run (o, c) ahead of use. A channel's runs lie
// channels * inner elements apart, so the hardware prefetchers lose the stream at
// each run: the first pass over a channel (from L3) waited on every line, and so
// did the output pass on every line it owned for writing (batch_norm forward and
// gradient at 64x32x28x28, one thread: 0.75 -> 0.51 ms and 1.31 -> 1.2 ms for the reads).
template <typename T>
void PrefetchRun(const Layout& s, int64_t o, int64_t c, const T* data) {
  const char* p = reinterpret_cast<const char*>(data + s.run(o, c));
  const int64_t bytes = s.inner * static_cast<int64_t>(sizeof(T));
  for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(p + b);
}
template <typename T>
void PrefetchRunForWrite(const Layout& s, int64_t o, int64_t c, T* data) {
  const char* p = reinterpret_cast<const char*>(data + s.run(o, c));
  const int64_t bytes = s.inner * static_cast<int64_t>(sizeof(T));
  for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(p + b, 1);
}

// The K sums of f over a channel: f(x, g, acc) adds the terms of one element, given
// its values of x and g (g may be absent: f then ignores it), into acc. The channel
// keeps 32 independent accumulators per sum so the adds vectorise and their latency
// overlaps, and folds them once at its end: folding them after every run (a chain of
// 16 scalar adds per run of 196 at 64x64x14x14) took most of the time. A low-precision run is
// converted to C a chunk at a time before the sums: converting in the lane loop left GCC with
// scalar code (a load, shift and move per element; bfloat16 batch norm was 1.8-3x float32's time).
template <int K, typename C, typename F, typename T>
std::array<C, K> ChannelSums(const Layout& s, int64_t c, F f, const T* x, const T* g = nullptr) {
  constexpr int kLanes = 32;
  constexpr int64_t kChunk = 4 * kLanes;  // a multiple of kLanes: lanes as without chunks
  [[maybe_unused]] C xbuf[kChunk], gbuf[kChunk];
  const auto as_c = [](const T* p, int64_t n, C* buf) -> const C* {
    if constexpr (std::is_same_v<T, C>) {
      return p;
    } else {
      for (int64_t j = 0; j < n; ++j) buf[j] = C(p[j]);
      return buf;
    }
  };
  C acc[K][kLanes] = {};
  for (int64_t o = 0; o < s.outer; ++o) {
    const int64_t base = s.run(o, c);
    if (o + 1 < s.outer) {
      PrefetchRun(s, o + 1, c, x);
      if (g) PrefetchRun(s, o + 1, c, g);
    }
    for (int64_t j0 = 0; j0 < s.inner; j0 += kChunk) {
      const int64_t n = std::min(kChunk, s.inner - j0);
      const C* xv = as_c(x + base + j0, n, xbuf);
      const C* gv = g ? as_c(g + base + j0, n, gbuf) : xv;
      int64_t j = 0;
      for (; j + kLanes <= n; j += kLanes) {
        for (int l = 0; l < kLanes; ++l) {
          C v[K];
          f(xv[j + l], gv[j + l], v);
          for (int k = 0; k < K; ++k) acc[k][l] += v[k];
        }
      }
      for (; j < n; ++j) {
        C v[K];
        f(xv[j], gv[j], v);
        for (int k = 0; k < K; ++k) acc[k][0] += v[k];
      }
    }
  }
  std::array<C, K> total{};
  for (int k = 0; k < K; ++k) {
    for (int l = 0; l < kLanes; ++l) total[k] += acc[k][l];
  }
  return total;
}

// A weight or bias in the compute type, whatever its float dtype.
template <typename C>
std::vector<C> ChannelValues(const DenseTensor& t_in) {
  const DenseTensor t = funcs::Contiguous(t_in);
  std::vector<C> v(static_cast<size_t>(t.numel()));
  auto fill = [&](const auto* p) {
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<C>(p[i]);
  };
  switch (t.dtype()) {
    case DType::kFloat32:
      fill(static_cast<const float*>(t.data()));
      break;
    case DType::kFloat64:
      fill(static_cast<const double*>(t.data()));
      break;
    case DType::kFloat16:
      fill(static_cast<const float16*>(t.data()));
      break;
    case DType::kBFloat16:
      fill(static_cast<const bfloat16*>(t.data()));
      break;
    default:
      OAR_ENFORCE(false, errors::InvalidType("a batch_norm weight or bias must be a floating "
                                             "tensor, got ",
                                             t.dtype()));
  }
  return v;
}

// A channel's mean is taken as x0 + mean(x - x0), x0 its first element (0 for an
// empty channel or an infinite first element): exact for a constant channel, whose
// xhat is then exactly 0, as layer_norm's (RowMean in norm_kernels.cc). Returns x0 and
// the sum of x - x0.
template <typename C, typename T>
std::array<C, 2> ShiftedSum(const Layout& s, const T* x, int64_t c) {
  const C first = s.count() ? C(x[s.run(0, c)]) : C(0);
  const C x0 = std::isfinite(first) ? first : C(0);
  return {x0, ChannelSums<1, C>(
                  s, c, [&](C xi, C, C* v) { v[0] = xi - x0; }, x)[0]};
}

// The channel's mean and 1 / sqrt(var + eps) (var biased, about the mean: two
// passes avoid the cancellation of E[x^2] - E[x]^2).
template <typename C, typename T>
std::array<C, 2> MeanAndRstd(const Layout& s, const T* x, int64_t c, double eps, C* var_out) {
  const C n = C(s.count());
  const auto [x0, sum] = ShiftedSum<C>(s, x, c);
  const C mu = x0 + sum / n;
  const C var = ChannelSums<1, C>(
                    s, c,
                    [&](C xi, C, C* v) {
                      const C d = xi - mu;
                      v[0] = d * d;
                    },
                    x)[0] /
                n;
  if (var_out) *var_out = var;
  return {mu, C(1) / std::sqrt(var + C(eps))};
}

// Work per channel for ParallelFor: a few operations per element.
int64_t ChannelCost(const Layout& s) { return s.count() * 6; }

}  // namespace

template <typename T>
void BatchNormKernel(const DeviceContext&, const DenseTensor& x_in, const DenseTensor& weight,
                     const DenseTensor& bias, double epsilon, int64_t axis, DenseTensor* out) {
  using C = compute_t<T>;
  const DenseTensor x = funcs::Contiguous(x_in);
  const Layout s = LayoutOf(x.dims(), axis);
  const std::vector<C> w = ChannelValues<C>(weight), b = ChannelValues<C>(bias);
  const T* px = static_cast<const T*>(x.data());
  T* po = static_cast<T*>(out->AllocateFrom(x.place()));
  if (x.numel() == 0) return;
  ParallelFor(0, s.channels, ChannelCost(s), [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) {
      const auto [mu, r] = MeanAndRstd<C>(s, px, c, epsilon, nullptr);
      // y = x * a + shift, one multiply-add per element.
      const C a = r * w[c], shift = b[c] - mu * a;
      for (int64_t o = 0; o < s.outer; ++o) {
        const int64_t base = s.run(o, c);
        if (o + 1 < s.outer) PrefetchRunForWrite(s, o + 1, c, po);
        for (int64_t j = 0; j < s.inner; ++j) {
          po[base + j] = static_cast<T>(C(px[base + j]) * a + shift);
        }
      }
    }
  });
}

// x_grad = r w (g - mean(g) - xhat mean(g xhat)) per channel.
template <typename T>
void BatchNormGradKernel(const DeviceContext&, const DenseTensor& x_in, const DenseTensor& weight,
                         const DenseTensor& g_in, double epsilon, int64_t axis,
                         DenseTensor* x_grad) {
  using C = compute_t<T>;
  const DenseTensor x = funcs::Contiguous(x_in), g = funcs::Contiguous(g_in);
  const Layout s = LayoutOf(x.dims(), axis);
  const std::vector<C> w = ChannelValues<C>(weight);
  const T* px = static_cast<const T*>(x.data());
  const T* pg = static_cast<const T*>(g.data());
  T* dx = static_cast<T*>(x_grad->AllocateFrom(x.place()));
  if (x.numel() == 0) return;
  const C inv_n = C(1) / C(s.count());
  ParallelFor(0, s.channels, ChannelCost(s) * 2, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) {
      const auto [x0, sum] = ShiftedSum<C>(s, px, c);
      const C mu = x0 + sum * inv_n;
      const auto [sq, sg, sgx] = ChannelSums<3, C>(
          s, c,
          [&](C xi, C gi, C* v) {
            const C d = xi - mu;
            v[0] = d * d;
            v[1] = gi;
            v[2] = gi * d;
          },
          px, pg);
      const C r = C(1) / std::sqrt(sq * inv_n + C(epsilon));
      // dx = k (g - mean_g) - k2 (x - mu), k = r w, k2 = k r^2 mean(g (x - mu)).
      const C k = r * w[c], mg = sg * inv_n, k2 = k * r * r * sgx * inv_n;
      for (int64_t o = 0; o < s.outer; ++o) {
        const int64_t base = s.run(o, c);
        if (o + 1 < s.outer) PrefetchRunForWrite(s, o + 1, c, dx);
        for (int64_t j = 0; j < s.inner; ++j) {
          const int64_t i = base + j;
          dx[i] = static_cast<T>(k * (C(pg[i]) - mg) - k2 * (C(px[i]) - mu));
        }
      }
    }
  });
}

// out[c] = sum over the channel of g xhat (the weight gradient), in the compute type.
template <typename T>
void BatchNormScaleGradKernel(const DeviceContext&, const DenseTensor& x_in,
                              const DenseTensor& g_in, double epsilon, int64_t axis,
                              DenseTensor* out) {
  using C = compute_t<T>;
  const DenseTensor x = funcs::Contiguous(x_in), g = funcs::Contiguous(g_in);
  const Layout s = LayoutOf(x.dims(), axis);
  const T* px = static_cast<const T*>(x.data());
  const T* pg = static_cast<const T*>(g.data());
  C* po = static_cast<C*>(out->AllocateFrom(x.place()));
  if (s.count() == 0) {  // no element: 0 (sum g xhat), without walking [2**40, C, 0]'s runs
    std::fill(po, po + s.channels, C(0));
    return;
  }
  const C inv_n = C(1) / C(s.count());
  ParallelFor(0, s.channels, ChannelCost(s), [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) {
      const auto [x0, sum] = ShiftedSum<C>(s, px, c);
      const C mu = x0 + sum * inv_n;
      const auto [sq, sgx] = ChannelSums<2, C>(
          s, c,
          [&](C xi, C gi, C* v) {
            const C d = xi - mu;
            v[0] = d * d;
            v[1] = gi * d;
          },
          px, pg);
      po[c] = sgx / std::sqrt(sq * inv_n + C(epsilon));
    }
  });
}

// [2, channels]: the batch mean and biased variance of each channel, for the
// running statistics.
template <typename T>
void BatchNormStatsKernel(const DeviceContext&, const DenseTensor& x_in, int64_t axis,
                          DenseTensor* out) {
  using C = compute_t<T>;
  const DenseTensor x = funcs::Contiguous(x_in);
  const Layout s = LayoutOf(x.dims(), axis);
  const T* px = static_cast<const T*>(x.data());
  C* po = static_cast<C*>(out->AllocateFrom(x.place()));
  ParallelFor(0, s.channels, ChannelCost(s), [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) {
      C var = 0;
      po[c] = MeanAndRstd<C>(s, px, c, 0.0, &var)[0];
      po[s.channels + c] = var;
    }
  });
}

// batch_norm_infer (eval): y = x * a + shift per channel, a = weight / sqrt(variance +
// epsilon) and shift = bias - mean * a computed once per channel in the compute type,
// then one pass over x.
template <typename T>
void BatchNormInferKernel(const DeviceContext&, const DenseTensor& x_in, const DenseTensor& mean,
                          const DenseTensor& variance, const DenseTensor& weight,
                          const DenseTensor& bias, double epsilon, int64_t axis, DenseTensor* out) {
  using C = compute_t<T>;
  const DenseTensor x = funcs::Contiguous(x_in);
  const Layout s = LayoutOf(x.dims(), axis);
  const std::vector<C> m = ChannelValues<C>(mean), v = ChannelValues<C>(variance);
  const std::vector<C> w = ChannelValues<C>(weight), b = ChannelValues<C>(bias);
  std::vector<C> a(static_cast<size_t>(s.channels)), shift(static_cast<size_t>(s.channels));
  for (size_t c = 0; c < a.size(); ++c) {
    a[c] = C(1) / std::sqrt(v[c] + C(epsilon)) * w[c];
    shift[c] = b[c] - m[c] * a[c];
  }
  const T* px = static_cast<const T*>(x.data());
  T* po = static_cast<T*>(out->AllocateFrom(x.place()));
  if (x.numel() == 0) return;
  const C* pa = a.data();
  const C* ps = shift.data();
  if (s.inner == 1) {  // channels last: a row of all channels at a time
    const int64_t ch = s.channels;
    ParallelFor(0, s.outer, ch * 2, [&](int64_t ob, int64_t oe) {
      for (int64_t o = ob; o < oe; ++o) {
        const T* xr = px + o * ch;
        T* yr = po + o * ch;
        for (int64_t c = 0; c < ch; ++c) yr[c] = static_cast<T>(C(xr[c]) * pa[c] + ps[c]);
      }
    });
    return;
  }
  // channels first: each (outer, channel) run of `inner` contiguous values
  ParallelFor(0, s.outer * s.channels, s.inner * 2, [&](int64_t rb, int64_t re) {
    for (int64_t r = rb; r < re; ++r) {
      const int64_t c = r % s.channels;
      const C ac = pa[c], sc = ps[c];
      const T* xr = px + r * s.inner;
      T* yr = po + r * s.inner;
      for (int64_t j = 0; j < s.inner; ++j) yr[j] = static_cast<T>(C(xr[j]) * ac + sc);
    }
  });
}

OAR_REGISTER_KERNEL(batch_norm, CPU, Any, BatchNormKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(batch_norm_infer, CPU, Any, BatchNormInferKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(batch_norm_grad, CPU, Any, BatchNormGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(batch_norm_scale_grad, CPU, Any, BatchNormScaleGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(batch_norm_stats, CPU, Any, BatchNormStatsKernel, OAR_FLOAT_TYPES);

}  // namespace oar
