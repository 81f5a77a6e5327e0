// Per-sample losses along one axis: softmax cross-entropy with hard labels (fused
// logsumexp + pick, and softmax - one_hot for the backward), with soft labels, and
// the pick of nll_loss. Lines along the axis are split over threads.
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/funcs/vec_math.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

// A contiguous tensor as [outer, n, inner] around `axis`; line l = (o, i) starts at
// o * n * inner + i with stride inner, and its per-sample value sits at l.
struct Lines {
  int64_t outer = 1, n = 1, inner = 1;
  int64_t count() const { return outer * inner; }
  int64_t base(int64_t l) const { return (l / inner) * n * inner + l % inner; }
};
Lines LinesOf(const DDim& dims, int64_t axis) {
  const int64_t a = NormalizeAxis(axis, static_cast<int64_t>(dims.size()));
  Lines p;
  for (int64_t d = 0; d < a; ++d) p.outer *= dims[d];
  p.n = dims[a];
  for (size_t d = a + 1; d < dims.size(); ++d) p.inner *= dims[d];
  return p;
}

// The labels as int64, each in [0, n) or equal to ignore_index, else an error naming it.
std::vector<int64_t> Labels(const DenseTensor& label, int64_t n, int64_t ignore_index) {
  const DenseTensor l = funcs::CastTo(funcs::Contiguous(label), DType::kInt64);
  const auto* p = static_cast<const int64_t*>(l.data());
  std::vector<int64_t> out(p, p + l.numel());
  for (int64_t v : out) {
    if (v != ignore_index && (v < 0 || v >= n)) {
      throw errors::OutOfRange("argument 'label' holds ", v, ", out of range [0, ", n, ") for ", n,
                               " classes (ignore_index is ", ignore_index, ")");
    }
  }
  return out;
}

// A line in the compute type: the data itself when it is contiguous and already
// of that type, else gathered into buf.
template <typename C, typename T>
const C* LineOf(const T* x, int64_t n, int64_t s, C* buf) {
  if constexpr (std::is_same_v<T, C>) {
    if (s == 1) return x;
  }
  for (int64_t k = 0; k < n; ++k) buf[k] = C(x[k * s]);
  return buf;
}

// e[k] = exp(x[k] - max) through vec_math in one sweep; returns max and sum(e).
// The max skips NaN: a NaN element makes the sum NaN anyway.
template <typename C>
std::pair<C, C> ExpLine(const C* x, int64_t n, C* e) {
  const C mx = vec::MaxIgnoringNaN(x, n);
  return {mx, vec::ExpSubSum(x, mx, e, n)};
}

template <typename C>
C LogSumExp(const C* x, int64_t n, C* e) {
  const auto [mx, sum] = ExpLine(x, n, e);
  return mx + std::log(sum);
}

template <typename T>
const T* DataOf(const DenseTensor& t) {
  return static_cast<const T*>(t.data());
}

}  // namespace

template <typename T>
void CrossEntropyHardKernel(const DeviceContext&, const DenseTensor& logits_in,
                            const DenseTensor& label, int64_t ignore_index, int64_t axis,
                            DenseTensor* out) {
  using C = compute_t<T>;
  const DenseTensor z = funcs::Contiguous(logits_in);
  const Lines p = LinesOf(z.dims(), axis);
  const std::vector<int64_t> y = Labels(label, p.n, ignore_index);
  const T* pz = DataOf<T>(z);
  T* o = static_cast<T*>(out->AllocateFrom(z.place()));
  ForLinesWithRow<C>(p, 2, [&](int64_t l, int64_t base, C* row, C* e) {
    if (y[l] == ignore_index) {
      o[l] = T(0);
      return;
    }
    const C lse = LogSumExp(LineOf(pz + base, p.n, p.inner, row), p.n, e);
    o[l] = static_cast<T>(lse - C(pz[base + y[l] * p.inner]));
  });
}

// Lines in parallel with a per-chunk scratch of two rows of the compute type: `row`
// for a gathered line, `e` for its exponentials.
template <typename C, typename F>
void ForLinesWithRow(const Lines& p, int64_t cost, F f) {
  if (p.count() == 0) return;
  ParallelFor(0, p.count(), p.n * cost, [&](int64_t b, int64_t e) {
    std::vector<C> scratch(2 * static_cast<size_t>(p.n));
    for (int64_t l = b; l < e; ++l) f(l, p.base(l), scratch.data(), scratch.data() + p.n);
  });
}

template <typename T>
void CrossEntropyHardGradKernel(const DeviceContext&, const DenseTensor& logits_in,
                                const DenseTensor& label, const DenseTensor& grad_out_in,
                                int64_t ignore_index, int64_t axis, DenseTensor* logits_grad) {
  using C = compute_t<T>;
  const DenseTensor z = funcs::Contiguous(logits_in), g = funcs::Contiguous(grad_out_in);
  const Lines p = LinesOf(z.dims(), axis);
  const std::vector<int64_t> y = Labels(label, p.n, ignore_index);
  const T* pz = DataOf<T>(z);
  const T* pg = DataOf<T>(g);
  T* dz = static_cast<T*>(logits_grad->AllocateFrom(z.place()));
  ForLinesWithRow<C>(p, 3, [&](int64_t l, int64_t base, C* row, C* e) {
    const int64_t s = p.inner;
    if (y[l] == ignore_index) {
      for (int64_t k = 0; k < p.n; ++k) dz[base + k * s] = T(0);
      return;
    }
    // g (softmax - one_hot): e / sum scaled by g, then g subtracted at the label.
    const C gl = C(pg[l]);
    if constexpr (std::is_same_v<T, C>) {
      if (s == 1) {  // the exponentials go straight into the gradient's row, scaled there
        T* d = dz + base;
        const C scale = gl / ExpLine(pz + base, p.n, d).second;
        for (int64_t k = 0; k < p.n; ++k) d[k] *= scale;
        d[y[l]] -= gl;
        return;
      }
    }
    const C scale = gl / ExpLine(LineOf(pz + base, p.n, s, row), p.n, e).second;
    for (int64_t k = 0; k < p.n; ++k) dz[base + k * s] = static_cast<T>(e[k] * scale);
    dz[base + y[l] * s] = static_cast<T>(e[y[l]] * scale - gl);
  });
}

template <typename T>
void CrossEntropySoftKernel(const DeviceContext&, const DenseTensor& logits_in,
                            const DenseTensor& label_in, int64_t axis, DenseTensor* out) {
  using C = compute_t<T>;
  const DenseTensor z = funcs::Contiguous(logits_in), q = funcs::Contiguous(label_in);
  const Lines p = LinesOf(z.dims(), axis);
  const T* pz = DataOf<T>(z);
  const T* pq = DataOf<T>(q);
  T* o = static_cast<T*>(out->AllocateFrom(z.place()));
  // -sum(q (z - lse)) = lse sum(q) - sum(q z)
  ForLinesWithRow<C>(p, 3, [&](int64_t l, int64_t base, C* row, C* e) {
    const int64_t s = p.inner;
    const C lse = LogSumExp(LineOf(pz + base, p.n, s, row), p.n, e);
    C acc = 0;
    for (int64_t k = 0; k < p.n; ++k) acc += C(pq[base + k * s]) * (lse - C(pz[base + k * s]));
    o[l] = static_cast<T>(acc);
  });
}

template <typename T>
void CrossEntropySoftGradKernel(const DeviceContext&, const DenseTensor& logits_in,
                                const DenseTensor& label_in, const DenseTensor& grad_out_in,
                                int64_t axis, DenseTensor* logits_grad) {
  using C = compute_t<T>;
  const DenseTensor z = funcs::Contiguous(logits_in), q = funcs::Contiguous(label_in),
                    g = funcs::Contiguous(grad_out_in);
  const Lines p = LinesOf(z.dims(), axis);
  const T* pz = DataOf<T>(z);
  const T* pq = DataOf<T>(q);
  const T* pg = DataOf<T>(g);
  T* dz = static_cast<T*>(logits_grad->AllocateFrom(z.place()));
  ForLinesWithRow<C>(p, 4, [&](int64_t l, int64_t base, C* row, C* sm) {
    const int64_t s = p.inner;
    const C inv = C(1) / ExpLine(LineOf(pz + base, p.n, s, row), p.n, sm).second;
    for (int64_t k = 0; k < p.n; ++k) sm[k] *= inv;
    C qsum = 0;
    for (int64_t k = 0; k < p.n; ++k) qsum += C(pq[base + k * s]);
    const C gl = C(pg[l]);
    for (int64_t k = 0; k < p.n; ++k) {
      const int64_t i = base + k * s;
      dz[i] = static_cast<T>(gl * (sm[k] * qsum - C(pq[i])));
    }
  });
}

template <typename T>
void NllPickKernel(const DeviceContext&, const DenseTensor& x_in, const DenseTensor& label,
                   int64_t ignore_index, int64_t axis, DenseTensor* out) {
  const DenseTensor x = funcs::Contiguous(x_in);
  const Lines p = LinesOf(x.dims(), axis);
  const std::vector<int64_t> y = Labels(label, p.n, ignore_index);
  const T* px = DataOf<T>(x);
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  ParallelFor(0, p.count(), 1, [&](int64_t b, int64_t e) {
    for (int64_t l = b; l < e; ++l) {
      o[l] = y[l] == ignore_index ? T(0)
                                  : static_cast<T>(-compute_t<T>(px[p.base(l) + y[l] * p.inner]));
    }
  });
}

template <typename T>
void NllPickGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& label,
                       const DenseTensor& grad_out_in, int64_t ignore_index, int64_t axis,
                       DenseTensor* x_grad) {
  const DenseTensor g = funcs::Contiguous(grad_out_in);
  const Lines p = LinesOf(x.dims(), axis);
  const std::vector<int64_t> y = Labels(label, p.n, ignore_index);
  const T* pg = DataOf<T>(g);
  x_grad->AllocateFrom(g.place());
  funcs::Fill(x_grad, 0);
  T* dx = static_cast<T*>(x_grad->data());
  ParallelFor(0, p.count(), 1, [&](int64_t b, int64_t e) {
    for (int64_t l = b; l < e; ++l) {
      if (y[l] != ignore_index)
        dx[p.base(l) + y[l] * p.inner] = static_cast<T>(-compute_t<T>(pg[l]));
    }
  });
}

OAR_REGISTER_KERNEL(cross_entropy_hard, CPU, Any, CrossEntropyHardKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(cross_entropy_hard_grad, CPU, Any, CrossEntropyHardGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(cross_entropy_soft, CPU, Any, CrossEntropySoftKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(cross_entropy_soft_grad, CPU, Any, CrossEntropySoftGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(nll_pick, CPU, Any, NllPickKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(nll_pick_grad, CPU, Any, NllPickGradKernel, OAR_FLOAT_TYPES);

}  // namespace oar
