// Scans along one axis: cumsum, cumprod, the reversible running sum scan_sum
// (their backward), and the running arg-extremes behind cummax/cummin.
//
// Without an axis, cumsum/cumprod/cummax/cummin run over x flattened (row-major),
// as Paddle's axis=None does.
#include <cmath>
#include <complex>
#include <type_traits>

#include "oar/core/parallel.h"
#include "oar/kernels/funcs/axis_rows.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

// The split for an optional axis: none walks the flattened tensor as one line.
funcs::AxisSplit LineSplit(const DenseTensor& x, const std::vector<int64_t>& axis) {
  if (axis.empty()) {
    funcs::AxisSplit s;
    s.n = x.numel();
    return s;
  }
  return funcs::SplitAround(x.dims(), NormalizeAxisAllowing0d(axis[0], x.ndim()));
}

// The accumulator of a scan over C: C for integers, double (complex<double>) for
// floating (complex) elements.
template <typename C>
using ScanAcc = std::conditional_t<std::is_integral_v<C>, C,
                                   std::conditional_t<is_complex_v<C>, complex128, double>>;

// out[j] = combine(out[j - 1], x[j]) along each line, from the end when reverse.
template <typename T, typename Combine>
void Scan(const DenseTensor& x_in, const funcs::AxisSplit& s, bool reverse, DenseTensor* out,
          Combine combine) {
  using C = compute_t<T>;
  using A = ScanAcc<C>;
  const DenseTensor x = funcs::Contiguous(x_in);
  const T* in = static_cast<const T*>(x.data());
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  if (x.numel() == 0) return;
  ParallelFor(0, s.lines(), s.n, [&](int64_t b, int64_t e) {
    for (int64_t line = b; line < e; ++line) {
      A acc{};
      for (int64_t k = 0; k < s.n; ++k) {
        const int64_t j = reverse ? s.n - 1 - k : k;
        const int64_t at = s.At(line, j);
        const A v = static_cast<A>(static_cast<C>(in[at]));
        acc = k == 0 ? v : combine(acc, v);
        o[at] = static_cast<T>(static_cast<C>(acc));
      }
    }
  });
}

template <typename T>
void CumsumImpl(const DenseTensor& x, const funcs::AxisSplit& s, bool reverse, DenseTensor* out) {
  Scan<T>(x, s, reverse, out, [](auto a, auto b) { return a + b; });
}

template <typename T>
void CumprodImpl(const DenseTensor& x, const funcs::AxisSplit& s, DenseTensor* out) {
  Scan<T>(x, s, false, out, [](auto a, auto b) { return a * b; });
}

// Runs `impl` in out's dtype, casting x first when the dtype argument asked for another.
template <typename T, typename F>
void InOutDType(const DenseTensor& x, DenseTensor* out, F impl) {
  if (out->dtype() == x.dtype()) {
    if constexpr (!std::is_same_v<T, bool>) impl.template operator()<T>(x);
    return;
  }
  const DenseTensor xc = funcs::CastTo(x, out->dtype());
  VisitDTypeWithComplex(out->dtype(), [&]<typename U>() {
    if constexpr (!std::is_same_v<U, bool>) impl.template operator()<U>(xc);
  });
}

}  // namespace

template <typename T>
void CumsumKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& axis,
                  DType, DenseTensor* out) {
  const funcs::AxisSplit s = LineSplit(x, axis);
  InOutDType<T>(x, out,
                [&]<typename U>(const DenseTensor& xc) { CumsumImpl<U>(xc, s, false, out); });
}

template <typename T>
void CumprodKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& dim,
                   DType, DenseTensor* out) {
  const funcs::AxisSplit s = LineSplit(x, dim);
  InOutDType<T>(x, out, [&]<typename U>(const DenseTensor& xc) { CumprodImpl<U>(xc, s, out); });
}

template <typename T>
void ScanSumKernel(const DeviceContext&, const DenseTensor& x, int64_t axis, bool reverse,
                   DenseTensor* out) {
  CumsumImpl<T>(x, funcs::SplitAround(x.dims(), NormalizeAxisAllowing0d(axis, x.ndim())), reverse,
                out);
}

// The position of the running maximum (minimum): a later equal value takes over,
// and so does every later NaN once one is reached (the maximum stays NaN), as
// torch.cummax and Paddle's cummax do.
template <typename T, bool kMax>
void CumArgKernel(const DeviceContext&, const DenseTensor& x_in, const std::vector<int64_t>& axis,
                  DenseTensor* out) {
  using C = compute_t<T>;
  const DenseTensor x = funcs::Contiguous(x_in);
  const funcs::AxisSplit s = LineSplit(x, axis);
  const T* in = static_cast<const T*>(x.data());
  int64_t* o = static_cast<int64_t*>(out->AllocateFrom(x.place()));
  if (x.numel() == 0) return;
  ParallelFor(0, s.lines(), s.n, [&](int64_t b, int64_t e) {
    for (int64_t line = b; line < e; ++line) {
      int64_t best = 0;
      C bv = static_cast<C>(in[s.At(line, 0)]);
      for (int64_t j = 0; j < s.n; ++j) {
        const int64_t at = s.At(line, j);
        const C v = static_cast<C>(in[at]);
        if (v != v || (bv == bv && (kMax ? v >= bv : v <= bv))) {
          best = j;
          bv = v;
        }
        o[at] = best;
      }
    }
  });
}

template <typename T>
void CummaxIndexKernel(const DeviceContext& ctx, const DenseTensor& x,
                       const std::vector<int64_t>& axis, DenseTensor* out) {
  CumArgKernel<T, true>(ctx, x, axis, out);
}

template <typename T>
void CumminIndexKernel(const DeviceContext& ctx, const DenseTensor& x,
                       const std::vector<int64_t>& axis, DenseTensor* out) {
  CumArgKernel<T, false>(ctx, x, axis, out);
}

OAR_REGISTER_KERNEL(cumsum, CPU, Any, CumsumKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(cumprod, CPU, Any, CumprodKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(scan_sum, CPU, Any, ScanSumKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(cumsum, CPU, Any, CumsumKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(cumprod, CPU, Any, CumprodKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(scan_sum, CPU, Any, ScanSumKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(cummax_index, CPU, Any, CummaxIndexKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(cummin_index, CPU, Any, CumminIndexKernel, OAR_NUMERIC_TYPES);

}  // namespace oar
