// layer_norm and rms_norm over the trailing dims, and their x gradients: each row is
// normalised in one fused kernel (statistics, then the output), rows split over threads.
#include <algorithm>
#include <cmath>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

// sum_{j < n} f(j) with 32 independent accumulators: a strict left-to-right sum is one
// dependency chain the compiler may not reorder; 32 lanes become several vector
// accumulators (four with AVX2), so the adds' latency overlaps instead of
// bounding the loop.
template <typename C, typename F>
C LaneSum(int64_t n, F f) {
  constexpr int kLanes = 32;
  C acc[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    for (int k = 0; k < kLanes; ++k) acc[k] += f(j + k);
  }
  C s = 0;
  for (; j < n; ++j) s += f(j);
  for (int k = 0; k < kLanes; ++k) s += acc[k];
  return s;
}

// The mean of a row as x0 + mean(x - x0): a constant row's mean is then exactly x0, so
// its xhat is exactly 0 (0 * an infinite weight is NaN, and at epsilon = 0 the 0 / 0 is
// NaN, both as in PyTorch) rather than the roundoff of n x0 / n; the shift also keeps
// the sum small for rows far from 0. An infinite x0 is no shift (inf - inf would make
// the mean of [inf, 1] NaN, not inf).
template <typename C, typename T>
C RowMean(const T* x, int64_t n) {
  const C x0 = std::isfinite(C(x[0])) ? C(x[0]) : C(0);
  return x0 + LaneSum<C>(n, [&](int64_t j) { return C(x[j]) - x0; }) / C(n);
}

// Row statistics in the compute type: the mean (0 for rms_norm) and
// r = 1 / sqrt(var + eps), var being the mean square about that mean. Two passes
// over the row (mean, then squares about it) avoid the cancellation of E[x^2] - E[x]^2;
// the row is in cache for the second.
template <typename C, typename T>
void RowStats(const T* x, int64_t n, double eps, bool rms, C* mean, C* r) {
  const C mu = rms ? C(0) : RowMean<C>(x, n);
  const C var = LaneSum<C>(n,
                           [&](int64_t j) {
                             const C d = C(x[j]) - mu;
                             return d * d;
                           }) /
                C(n);
  *mean = mu;
  *r = C(1) / std::sqrt(var + C(eps));
}

template <typename T>
const T* DataOf(const DenseTensor& t) {
  return static_cast<const T*>(t.data());
}

// out = (x - mean) r w (+ b).
template <typename T>
void NormForward(const DenseTensor& x_in, const DenseTensor& w_in, const DenseTensor* b_in,
                 double eps, int64_t begin, bool rms, DenseTensor* out) {
  using C = compute_t<T>;
  const DenseTensor x = funcs::Contiguous(x_in), w = funcs::Contiguous(w_in);
  const DenseTensor b = b_in ? funcs::Contiguous(*b_in) : DenseTensor();
  const NormRows s = SplitNormRows(x.dims(), begin);
  const T* px = DataOf<T>(x);
  const T* pw = DataOf<T>(w);
  const T* pb = b_in ? DataOf<T>(b) : nullptr;
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  if (x.numel() == 0) return;
  ParallelFor(0, s.rows, s.cols * 4, [&](int64_t rb, int64_t re) {
    for (int64_t i = rb; i < re; ++i) {
      const T* row = px + i * s.cols;
      T* orow = o + i * s.cols;
      C mu, r;
      RowStats<C>(row, s.cols, eps, rms, &mu, &r);
      for (int64_t j = 0; j < s.cols; ++j) {
        C y = (C(row[j]) - mu) * r * C(pw[j]);
        if (pb) y += C(pb[j]);
        orow[j] = static_cast<T>(y);
      }
    }
  });
}

// x_grad = r (gy - mean(gy) - xhat mean(gy xhat)), gy = g w, xhat = (x - mean) r;
// rms_norm has no mean term (and mean = 0).
template <typename T>
void NormBackward(const DenseTensor& x_in, const DenseTensor& w_in, const DenseTensor& g_in,
                  double eps, int64_t begin, bool rms, DenseTensor* x_grad) {
  using C = compute_t<T>;
  const DenseTensor x = funcs::Contiguous(x_in), w = funcs::Contiguous(w_in),
                    g = funcs::Contiguous(g_in);
  const NormRows s = SplitNormRows(x.dims(), begin);
  const T* px = DataOf<T>(x);
  const T* pw = DataOf<T>(w);
  const T* pg = DataOf<T>(g);
  T* dx = static_cast<T*>(x_grad->AllocateFrom(x.place()));
  if (x.numel() == 0) return;
  const C inv_n = C(1) / C(s.cols);
  ParallelFor(0, s.rows, s.cols * 8, [&](int64_t rb, int64_t re) {
    for (int64_t i = rb; i < re; ++i) {
      const T* row = px + i * s.cols;
      const T* grow = pg + i * s.cols;
      // The mean, then one sweep for the squares about it, sum(gy) and
      // sum(gy (x - mean)); r is applied once after.
      const C mu = rms ? C(0) : RowMean<C>(row, s.cols);
      C sq = 0, sum_gy = 0, sum_gy_xc = 0;
      {
        constexpr int kLanes = 16;
        C q[kLanes] = {}, a[kLanes] = {}, b[kLanes] = {};
        int64_t j = 0;
        for (; j + kLanes <= s.cols; j += kLanes) {
          for (int k = 0; k < kLanes; ++k) {
            const C d = C(row[j + k]) - mu, gy = C(grow[j + k]) * C(pw[j + k]);
            q[k] += d * d;
            a[k] += gy;
            b[k] += gy * d;
          }
        }
        for (; j < s.cols; ++j) {
          const C d = C(row[j]) - mu, gy = C(grow[j]) * C(pw[j]);
          sq += d * d;
          sum_gy += gy;
          sum_gy_xc += gy * d;
        }
        for (int k = 0; k < kLanes; ++k) {
          sq += q[k];
          sum_gy += a[k];
          sum_gy_xc += b[k];
        }
      }
      const C r = C(1) / std::sqrt(sq * inv_n + C(eps));
      const C sum_gy_xhat = sum_gy_xc * r;
      const C m1 = rms ? C(0) : sum_gy * inv_n, m2 = sum_gy_xhat * inv_n;
      T* drow = dx + i * s.cols;
      for (int64_t j = 0; j < s.cols; ++j) {
        const C xhat = (C(row[j]) - mu) * r;
        drow[j] = static_cast<T>(r * (C(grow[j]) * C(pw[j]) - m1 - xhat * m2));
      }
    }
  });
}

}  // namespace

template <typename T>
void LayerNormKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& weight,
                     const DenseTensor& bias, double epsilon, int64_t begin_norm_axis,
                     DenseTensor* out) {
  NormForward<T>(x, weight, &bias, epsilon, begin_norm_axis, false, out);
}

template <typename T>
void LayerNormGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& weight,
                         const DenseTensor& grad_out, double epsilon, int64_t begin_norm_axis,
                         DenseTensor* x_grad) {
  NormBackward<T>(x, weight, grad_out, epsilon, begin_norm_axis, false, x_grad);
}

template <typename T>
void RmsNormKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& weight,
                   double epsilon, int64_t begin_norm_axis, DenseTensor* out) {
  NormForward<T>(x, weight, nullptr, epsilon, begin_norm_axis, true, out);
}

template <typename T>
void RmsNormGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& weight,
                       const DenseTensor& grad_out, double epsilon, int64_t begin_norm_axis,
                       DenseTensor* x_grad) {
  NormBackward<T>(x, weight, grad_out, epsilon, begin_norm_axis, true, x_grad);
}

// out[j] = sum_i g[i, j] xhat[i, j]: rows are cut into fixed blocks of kScaleRows,
// each block's column sums are taken in parallel, and the blocks are added in
// order, so the result has the same bits for any thread count.
template <typename T>
void NormScaleGradKernel(const DeviceContext&, const DenseTensor& x_in, const DenseTensor& g_in,
                         double epsilon, int64_t begin_norm_axis, bool rms, DenseTensor* out) {
  using C = compute_t<T>;
  constexpr int64_t kScaleRows = 32;
  const DenseTensor x = funcs::Contiguous(x_in), g = funcs::Contiguous(g_in);
  const NormRows s = SplitNormRows(x.dims(), begin_norm_axis);
  const T* px = DataOf<T>(x);
  const T* pg = DataOf<T>(g);
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  if (s.rows == 0 || s.cols == 0) {  // an empty sum; rows of no columns would still be walked
    std::fill(o, o + s.cols, T(0));
    return;
  }
  const int64_t blocks = (s.rows + kScaleRows - 1) / kScaleRows;
  std::vector<C> partial(static_cast<size_t>(std::max<int64_t>(blocks, 1) * s.cols), C(0));
  ParallelFor(0, blocks, kScaleRows * s.cols * 4, [&](int64_t bb, int64_t be) {
    for (int64_t b = bb; b < be; ++b) {
      C* acc = partial.data() + b * s.cols;
      for (int64_t i = b * kScaleRows; i < std::min(s.rows, (b + 1) * kScaleRows); ++i) {
        const T* row = px + i * s.cols;
        const T* grow = pg + i * s.cols;
        C mu, r;
        RowStats<C>(row, s.cols, epsilon, rms, &mu, &r);
        for (int64_t j = 0; j < s.cols; ++j) acc[j] += C(grow[j]) * ((C(row[j]) - mu) * r);
      }
    }
  });
  for (int64_t b = 1; b < blocks; ++b) {
    const C* src = partial.data() + b * s.cols;
    for (int64_t j = 0; j < s.cols; ++j) partial[j] += src[j];
  }
  for (int64_t j = 0; j < s.cols; ++j) o[j] = static_cast<T>(partial[j]);
}

OAR_REGISTER_KERNEL(layer_norm, CPU, Any, LayerNormKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(layer_norm_grad, CPU, Any, LayerNormGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(rms_norm, CPU, Any, RmsNormKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(rms_norm_grad, CPU, Any, RmsNormGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(norm_scale_grad, CPU, Any, NormScaleGradKernel, OAR_FLOAT_TYPES);

}  // namespace oar
