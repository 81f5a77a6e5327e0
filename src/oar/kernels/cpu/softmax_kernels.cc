// softmax / log_softmax along one axis and their fused gradients.
//
// The tensor is viewed as [outer, n, inner] around the axis. When the axis is
// the last one (inner == 1) each row is contiguous and takes three vectorised
// sweeps: the max, exp(x - max) written to the output while summing (one
// vec_math call), and the scale. Otherwise a block of up to kBlock adjacent
// columns is processed together, so every sweep runs over contiguous memory.
// Rows (or column blocks) are split over threads; a row is never split, so
// the result does not depend on the thread count. float16/bfloat16 are
// converted to float, computed, and rounded once.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/funcs/vec_math.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

// Columns processed together when the axis is not the last one.
constexpr int64_t kBlock = 256;

struct AxisPlan {
  int64_t outer = 1, n = 1, inner = 1;
};
AxisPlan PlanAxis(const DDim& dims, int64_t axis) {
  AxisPlan p;
  if (dims.empty()) return p;
  for (int64_t d = 0; d < axis; ++d) p.outer *= dims[d];
  p.n = dims[axis];
  for (size_t d = axis + 1; d < dims.size(); ++d) p.inner *= dims[d];
  return p;
}

bool Empty(const AxisPlan& p) { return p.n == 0 || p.outer == 0 || p.inner == 0; }

// Runs f(a, b, ..., out) on float copies of float16/bfloat16 tensors and
// rounds the result into out once; float and double go straight through.
template <typename T, typename F>
void InCompute(F f, DenseTensor* out, std::initializer_list<const DenseTensor*> ins) {
  if constexpr (std::is_same_v<T, compute_t<T>>) {
    std::vector<DenseTensor> c;
    for (const DenseTensor* t : ins) c.push_back(funcs::Contiguous(*t));
    out->AllocateFrom(c[0].place());
    f(c, out);
  } else {
    std::vector<DenseTensor> c;
    for (const DenseTensor* t : ins) c.push_back(funcs::CastTo(*t, DType::kFloat32));
    DenseTensor tmp(DType::kFloat32, out->dims());
    tmp.AllocateFrom(c[0].place());
    f(c, &tmp);
    out->AllocateFrom(c[0].place());
    funcs::CopyInto(tmp, out);
  }
}

// out[o, :, j] for the columns [j0, j0 + m) of block (o, j0): calls
// f(o, j0, m) for every block, in parallel.
template <typename F>
void ForEachBlock(const AxisPlan& p, F f) {
  const int64_t blocks_per_outer = (p.inner + kBlock - 1) / kBlock;
  ParallelFor(0, p.outer * blocks_per_outer, p.n * std::min(p.inner, kBlock) * 8,
              [&](int64_t b, int64_t e) {
                for (int64_t i = b; i < e; ++i) {
                  const int64_t o = i / blocks_per_outer;
                  const int64_t j0 = (i % blocks_per_outer) * kBlock;
                  f(o, j0, std::min(kBlock, p.inner - j0));
                }
              });
}

template <typename C, bool kLog>
void SoftmaxForward(const C* in, C* o, const AxisPlan& p) {
  if (p.inner == 1) {
    ParallelFor(0, p.outer, p.n * 8, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const C* x = in + r * p.n;
        C* y = o + r * p.n;
        // NaN is skipped by the max; it still reaches the sum, so a row with a
        // NaN comes out all NaN, and a row with +inf gets NaN from inf - inf.
        const C mx = vec::MaxIgnoringNaN(x, p.n);
        const C sum = vec::ExpSubSum(x, mx, y, p.n);
        if constexpr (kLog) {
          // (x - max) - log(sum), not x - (max + log(sum)): x - max is exact for
          // the large entries, and adding max to log(sum) first would round away
          // log(sum)'s low bits (a few ulp; Paddle's order)
          const C ls = std::log(sum);
          for (int64_t k = 0; k < p.n; ++k) y[k] = (x[k] - mx) - ls;
        } else {
          const C inv = C(1) / sum;
          for (int64_t k = 0; k < p.n; ++k) y[k] *= inv;
        }
      }
    });
    return;
  }
  ForEachBlock(p, [&](int64_t ob, int64_t j0, int64_t m) {
    C mx[kBlock], sum[kBlock], tmp[kBlock];
    const C* x = in + ob * p.n * p.inner + j0;
    C* y = o + ob * p.n * p.inner + j0;
    std::fill(mx, mx + m, -std::numeric_limits<C>::infinity());
    std::fill(sum, sum + m, C(0));
    for (int64_t k = 0; k < p.n; ++k) {
      const C* xr = x + k * p.inner;
      for (int64_t j = 0; j < m; ++j) mx[j] = xr[j] > mx[j] ? xr[j] : mx[j];
    }
    for (int64_t k = 0; k < p.n; ++k) {
      const C* xr = x + k * p.inner;
      C* yr = kLog ? tmp : y + k * p.inner;
      for (int64_t j = 0; j < m; ++j) yr[j] = xr[j] - mx[j];
      vec::Apply(vec::Fn::kExp, yr, yr, m);
      for (int64_t j = 0; j < m; ++j) sum[j] += yr[j];
    }
    if constexpr (kLog) {
      for (int64_t j = 0; j < m; ++j) sum[j] = std::log(sum[j]);
      for (int64_t k = 0; k < p.n; ++k) {
        const C* xr = x + k * p.inner;
        C* yr = y + k * p.inner;
        for (int64_t j = 0; j < m; ++j) yr[j] = (xr[j] - mx[j]) - sum[j];
      }
    } else {
      for (int64_t j = 0; j < m; ++j) sum[j] = C(1) / sum[j];
      for (int64_t k = 0; k < p.n; ++k) {
        C* yr = y + k * p.inner;
        for (int64_t j = 0; j < m; ++j) yr[j] *= sum[j];
      }
    }
  });
}

template <typename T, bool kLog>
void SoftmaxImpl(const DenseTensor& x, int64_t axis, DenseTensor* out) {
  using C = compute_t<T>;
  const AxisPlan p = PlanAxis(x.dims(), NormalizeAxisAllowing0d(axis, x.ndim()));
  InCompute<T>(
      [&](const std::vector<DenseTensor>& in, DenseTensor* o) {
        if (Empty(p)) return;
        SoftmaxForward<C, kLog>(static_cast<const C*>(in[0].data()), static_cast<C*>(o->data()), p);
      },
      out, {&x});
}

// softmax: dx = y * (g - sum(g * y)); log_softmax: dx = g - exp(y) * sum(g).
template <typename C, bool kLog>
void SoftmaxBackward(const C* y, const C* g, C* dx, const AxisPlan& p) {
  if (p.inner == 1) {
    ParallelFor(0, p.outer, p.n * 8, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const C* yr = y + r * p.n;
        const C* gr = g + r * p.n;
        C* dr = dx + r * p.n;
        C acc = 0;
        if constexpr (kLog) {
#pragma omp simd reduction(+ : acc)
          for (int64_t k = 0; k < p.n; ++k) acc += gr[k];
          vec::Apply(vec::Fn::kExp, yr, dr, p.n);
          for (int64_t k = 0; k < p.n; ++k) dr[k] = gr[k] - dr[k] * acc;
        } else {
#pragma omp simd reduction(+ : acc)
          for (int64_t k = 0; k < p.n; ++k) acc += gr[k] * yr[k];
          for (int64_t k = 0; k < p.n; ++k) dr[k] = yr[k] * (gr[k] - acc);
        }
      }
    });
    return;
  }
  ForEachBlock(p, [&](int64_t ob, int64_t j0, int64_t m) {
    C acc[kBlock];
    const int64_t base = ob * p.n * p.inner + j0;
    std::fill(acc, acc + m, C(0));
    for (int64_t k = 0; k < p.n; ++k) {
      const C* yr = y + base + k * p.inner;
      const C* gr = g + base + k * p.inner;
      if constexpr (kLog) {
        for (int64_t j = 0; j < m; ++j) acc[j] += gr[j];
      } else {
        for (int64_t j = 0; j < m; ++j) acc[j] += gr[j] * yr[j];
      }
    }
    for (int64_t k = 0; k < p.n; ++k) {
      const C* yr = y + base + k * p.inner;
      const C* gr = g + base + k * p.inner;
      C* dr = dx + base + k * p.inner;
      if constexpr (kLog) {
        vec::Apply(vec::Fn::kExp, yr, dr, m);
        for (int64_t j = 0; j < m; ++j) dr[j] = gr[j] - dr[j] * acc[j];
      } else {
        for (int64_t j = 0; j < m; ++j) dr[j] = yr[j] * (gr[j] - acc[j]);
      }
    }
  });
}

template <typename T, bool kLog>
void SoftmaxGradImpl(const DenseTensor& out, const DenseTensor& grad_out, int64_t axis,
                     DenseTensor* x_grad) {
  using C = compute_t<T>;
  const AxisPlan p = PlanAxis(out.dims(), NormalizeAxisAllowing0d(axis, out.ndim()));
  InCompute<T>(
      [&](const std::vector<DenseTensor>& in, DenseTensor* dx) {
        if (Empty(p)) return;
        SoftmaxBackward<C, kLog>(static_cast<const C*>(in[0].data()),
                                 static_cast<const C*>(in[1].data()), static_cast<C*>(dx->data()),
                                 p);
      },
      x_grad, {&out, &grad_out});
}

}  // namespace

template <typename T>
void SoftmaxKernel(const DeviceContext&, const DenseTensor& x, int64_t axis, DenseTensor* out) {
  SoftmaxImpl<T, false>(x, axis, out);
}
template <typename T>
void LogSoftmaxKernel(const DeviceContext&, const DenseTensor& x, int64_t axis, DenseTensor* out) {
  SoftmaxImpl<T, true>(x, axis, out);
}
template <typename T>
void SoftmaxGradKernel(const DeviceContext&, const DenseTensor& out, const DenseTensor& grad_out,
                       int64_t axis, DenseTensor* x_grad) {
  SoftmaxGradImpl<T, false>(out, grad_out, axis, x_grad);
}
template <typename T>
void LogSoftmaxGradKernel(const DeviceContext&, const DenseTensor& out, const DenseTensor& grad_out,
                          int64_t axis, DenseTensor* x_grad) {
  SoftmaxGradImpl<T, true>(out, grad_out, axis, x_grad);
}

OAR_REGISTER_KERNEL(softmax, CPU, Any, SoftmaxKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(log_softmax, CPU, Any, LogSoftmaxKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(softmax_grad, CPU, Any, SoftmaxGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(log_softmax_grad, CPU, Any, LogSoftmaxGradKernel, OAR_FLOAT_TYPES);

}  // namespace oar
