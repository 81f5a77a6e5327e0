// softmax / log_softmax along one axis and their fused gradients.
#include <cmath>

#include "oar/core/parallel.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

// Views a contiguous tensor as [outer, n, inner] around `axis`.
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

// Calls f(o, i, stride) for every line along the axis, in parallel.
template <typename F>
void ForEachLine(const AxisPlan& p, F f) {
  // Without elements there is nothing to do, however many empty lines there are.
  if (p.n == 0 || p.outer == 0 || p.inner == 0) return;
  ParallelFor(0, p.outer * p.inner, p.n * 4, [&](int64_t b, int64_t e) {
    for (int64_t li = b; li < e; ++li) f((li / p.inner) * p.n * p.inner + li % p.inner, p.inner);
  });
}

template <typename T, bool kLog>
void SoftmaxImpl(const DenseTensor& x_in, int64_t axis, DenseTensor* out) {
  using C = compute_t<T>;
  const DenseTensor x = funcs::Contiguous(x_in);
  const int64_t a = NormalizeAxisAllowing0d(axis, x.ndim());
  const AxisPlan p = PlanAxis(x.dims(), a);
  const T* in = static_cast<const T*>(x.data());
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  ForEachLine(p, [&](int64_t base, int64_t s) {
    C mx = -std::numeric_limits<C>::infinity();
    for (int64_t k = 0; k < p.n; ++k) mx = std::max<C>(mx, C(in[base + k * s]));
    C sum = 0;
    for (int64_t k = 0; k < p.n; ++k) sum += std::exp(C(in[base + k * s]) - mx);
    if constexpr (kLog) {
      const C lse = mx + std::log(sum);
      for (int64_t k = 0; k < p.n; ++k) o[base + k * s] = static_cast<T>(C(in[base + k * s]) - lse);
    } else {
      const C inv = C(1) / sum;
      for (int64_t k = 0; k < p.n; ++k)
        o[base + k * s] = static_cast<T>(std::exp(C(in[base + k * s]) - mx) * inv);
    }
  });
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

// x_grad = out * (g - sum(g * out))
template <typename T>
void SoftmaxGradKernel(const DeviceContext&, const DenseTensor& out_in,
                       const DenseTensor& grad_out_in, int64_t axis, DenseTensor* x_grad) {
  using C = compute_t<T>;
  const DenseTensor out = funcs::Contiguous(out_in), g = funcs::Contiguous(grad_out_in);
  const AxisPlan p = PlanAxis(out.dims(), NormalizeAxisAllowing0d(axis, out.ndim()));
  const T* po = static_cast<const T*>(out.data());
  const T* pg = static_cast<const T*>(g.data());
  T* dx = static_cast<T*>(x_grad->AllocateFrom(out.place()));
  ForEachLine(p, [&](int64_t base, int64_t s) {
    C dot = 0;
    for (int64_t k = 0; k < p.n; ++k) dot += C(pg[base + k * s]) * C(po[base + k * s]);
    for (int64_t k = 0; k < p.n; ++k) {
      const int64_t i = base + k * s;
      dx[i] = static_cast<T>(C(po[i]) * (C(pg[i]) - dot));
    }
  });
}

// x_grad = g - exp(out) * sum(g)
template <typename T>
void LogSoftmaxGradKernel(const DeviceContext&, const DenseTensor& out_in,
                          const DenseTensor& grad_out_in, int64_t axis, DenseTensor* x_grad) {
  using C = compute_t<T>;
  const DenseTensor out = funcs::Contiguous(out_in), g = funcs::Contiguous(grad_out_in);
  const AxisPlan p = PlanAxis(out.dims(), NormalizeAxisAllowing0d(axis, out.ndim()));
  const T* po = static_cast<const T*>(out.data());
  const T* pg = static_cast<const T*>(g.data());
  T* dx = static_cast<T*>(x_grad->AllocateFrom(out.place()));
  ForEachLine(p, [&](int64_t base, int64_t s) {
    C sum = 0;
    for (int64_t k = 0; k < p.n; ++k) sum += C(pg[base + k * s]);
    for (int64_t k = 0; k < p.n; ++k) {
      const int64_t i = base + k * s;
      dx[i] = static_cast<T>(C(pg[i]) - std::exp(C(po[i])) * sum);
    }
  });
}

OAR_REGISTER_KERNEL(softmax, CPU, Any, SoftmaxKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(log_softmax, CPU, Any, LogSoftmaxKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(softmax_grad, CPU, Any, SoftmaxGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(log_softmax_grad, CPU, Any, LogSoftmaxGradKernel, OAR_FLOAT_TYPES);

}  // namespace oar
