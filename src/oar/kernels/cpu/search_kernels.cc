// Searching and sorting along an axis: argmax/argmin, argsort, the positions
// behind topk/kthvalue/mode, unique's group numbers, bincount and histogram, and
// along_axis_gather with its gradient (which turns those positions into
// differentiable values: python/oar/tensor/stat.py, search.py).
//
// Orders put NaN after every number (funcs::LessNanLast), and equal values keep
// their original order, so every result is deterministic.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "oar/core/parallel.h"
#include "oar/kernels/funcs/axis_rows.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

using funcs::LessNanLast;

std::vector<int64_t> AsInt64(const DenseTensor& t) {
  const DenseTensor c = funcs::CastTo(funcs::Contiguous(t), DType::kInt64);
  const int64_t* p = static_cast<const int64_t*>(c.data());
  return std::vector<int64_t>(p, p + c.numel());
}

// One line of x along the axis, as compute values.
template <typename T>
std::vector<compute_t<T>> Line(const T* in, const funcs::AxisSplit& s, int64_t line) {
  std::vector<compute_t<T>> v(s.n);
  for (int64_t j = 0; j < s.n; ++j) v[j] = static_cast<compute_t<T>>(in[s.At(line, j)]);
  return v;
}

// Positions 0..n-1 ordered by value (ascending, or descending with NaN first),
// equal values by position.
template <typename C>
auto ByValue(const std::vector<C>& v, bool descending) {
  return [&v, descending](int64_t a, int64_t b) {
    if (descending ? LessNanLast(v[b], v[a]) : LessNanLast(v[a], v[b])) return true;
    if (descending ? LessNanLast(v[a], v[b]) : LessNanLast(v[b], v[a])) return false;
    return a < b;
  };
}

// Runs f(values, line) for each line along `axis` of x in parallel.
template <typename T, typename F>
void ForEachLine(const DenseTensor& x_in, const funcs::AxisSplit& s, F f) {
  const DenseTensor x = funcs::Contiguous(x_in);
  const T* in = static_cast<const T*>(x.data());
  if (x.numel() == 0) return;
  ParallelFor(0, s.lines(), s.n * 4, [&](int64_t b, int64_t e) {
    for (int64_t line = b; line < e; ++line) f(Line(in, s, line), line);
  });
}

funcs::AxisSplit SplitFor(const DenseTensor& x, int64_t axis) {
  return funcs::SplitAround(x.dims(), NormalizeAxisAllowing0d(axis, x.ndim()));
}

template <typename T, bool kMax>
void ArgExtreme(const DenseTensor& x, const std::vector<int64_t>& axis, DenseTensor* out) {
  funcs::AxisSplit s;
  s.n = x.numel();
  if (!axis.empty()) s = SplitFor(x, axis[0]);
  out->AllocateFrom(x.place());
  VisitDType(out->dtype(), [&]<typename I>() {
    if constexpr (std::is_same_v<I, int32_t> || std::is_same_v<I, int64_t>) {
      I* o = static_cast<I*>(out->data());
      ForEachLine<T>(x, s, [&](const auto& v, int64_t line) {
        int64_t best = 0;
        for (int64_t j = 1; j < s.n && v[best] == v[best]; ++j) {
          if (v[j] != v[j] || (kMax ? v[j] > v[best] : v[j] < v[best])) best = j;
        }
        o[line] = static_cast<I>(best);
      });
    }
  });
}

}  // namespace

template <typename T>
void ArgmaxKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& axis,
                  bool, DType, DenseTensor* out) {
  ArgExtreme<T, true>(x, axis, out);
}

template <typename T>
void ArgminKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& axis,
                  bool, DType, DenseTensor* out) {
  ArgExtreme<T, false>(x, axis, out);
}

template <typename T>
void ArgsortKernel(const DeviceContext&, const DenseTensor& x, int64_t axis, bool descending, bool,
                   DenseTensor* out) {
  const funcs::AxisSplit s = SplitFor(x, axis);
  int64_t* o = static_cast<int64_t*>(out->AllocateFrom(x.place()));
  ForEachLine<T>(x, s, [&](const auto& v, int64_t line) {
    std::vector<int64_t> idx(s.n);
    std::iota(idx.begin(), idx.end(), 0);
    std::sort(idx.begin(), idx.end(), ByValue(v, descending));  // total order: stable
    for (int64_t j = 0; j < s.n; ++j) o[s.At(line, j)] = idx[j];
  });
}

template <typename T>
void TopkIndexKernel(const DeviceContext&, const DenseTensor& x, int64_t k, int64_t axis,
                     bool largest, bool, DenseTensor* out) {
  const funcs::AxisSplit s = SplitFor(x, axis);
  int64_t* o = static_cast<int64_t*>(out->AllocateFrom(x.place()));
  if (x.dims().size() == 0) {  // a 0-d x keeps its shape for k 0 or 1 (torch): position 0
    o[0] = 0;
    return;
  }
  if (k == 0) return;
  funcs::AxisSplit os = s;
  os.n = k;
  ForEachLine<T>(x, s, [&](const auto& v, int64_t line) {
    std::vector<int64_t> idx(s.n);
    std::iota(idx.begin(), idx.end(), 0);
    std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), ByValue(v, largest));
    for (int64_t j = 0; j < k; ++j) o[os.At(line, j)] = idx[j];
  });
}

template <typename T>
void KthvalueIndexKernel(const DeviceContext&, const DenseTensor& x, int64_t k, int64_t axis, bool,
                         DenseTensor* out) {
  const funcs::AxisSplit s = SplitFor(x, axis);
  int64_t* o = static_cast<int64_t*>(out->AllocateFrom(x.place()));
  ForEachLine<T>(x, s, [&](const auto& v, int64_t line) {
    std::vector<int64_t> idx(s.n);
    std::iota(idx.begin(), idx.end(), 0);
    std::nth_element(idx.begin(), idx.begin() + (k - 1), idx.end(), ByValue(v, false));
    o[line] = idx[k - 1];
  });
}

// The most frequent value (the smallest of equally frequent ones); its last position.
template <typename T>
void ModeIndexKernel(const DeviceContext&, const DenseTensor& x, int64_t axis, bool,
                     DenseTensor* out) {
  const funcs::AxisSplit s = SplitFor(x, axis);
  int64_t* o = static_cast<int64_t*>(out->AllocateFrom(x.place()));
  ForEachLine<T>(x, s, [&](const auto& v, int64_t line) {
    std::vector<int64_t> idx(s.n);
    std::iota(idx.begin(), idx.end(), 0);
    std::sort(idx.begin(), idx.end(), ByValue(v, false));
    int64_t best = idx[0], best_count = 0;
    for (int64_t j = 0; j < s.n;) {
      int64_t e = j + 1;
      while (e < s.n && v[idx[e]] == v[idx[j]]) ++e;
      if (e - j > best_count) {
        best_count = e - j;
        best = idx[e - 1];
      }
      j = e;
    }
    o[line] = best;
  });
}

template <typename T>
void AlongAxisGatherKernel(const DeviceContext&, const DenseTensor& x_in, const DenseTensor& index,
                           int64_t axis, DenseTensor* out) {
  const DenseTensor x = funcs::Contiguous(x_in);
  const int64_t a = NormalizeAxisAllowing0d(axis, x.ndim());
  const funcs::AxisSplit xs = funcs::SplitAround(x.dims(), a);
  const funcs::AxisSplit is = funcs::SplitAround(index.dims(), a);
  const std::vector<int64_t> pos = AsInt64(index);
  const T* in = static_cast<const T*>(x.data());
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  // An empty index may still have 2^40 empty lines (shape [1, 2^40, 0]).
  if (index.numel() == 0) return;
  for (int64_t line = 0; line < is.lines(); ++line) {
    for (int64_t j = 0; j < is.n; ++j) {
      const int64_t at = is.At(line, j);
      int64_t p = pos[at];
      OAR_ENFORCE(p >= -xs.n && p < xs.n,
                  errors::OutOfRange("index ", p, " in argument 'index' is out of bounds for axis ",
                                     axis, " with size ", xs.n));
      o[at] = in[xs.At(line, p < 0 ? p + xs.n : p)];
    }
  }
}

template <typename T>
void AlongAxisGatherGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& index,
                               const DenseTensor& grad_out_in, int64_t axis, DenseTensor* x_grad) {
  const DenseTensor g = funcs::Contiguous(grad_out_in);
  const int64_t a = NormalizeAxisAllowing0d(axis, x.ndim());
  const funcs::AxisSplit xs = funcs::SplitAround(x.dims(), a);
  const funcs::AxisSplit is = funcs::SplitAround(index.dims(), a);
  const std::vector<int64_t> pos = AsInt64(index);
  x_grad->AllocateFrom(g.place());
  funcs::Fill(x_grad, 0);
  const T* gp = static_cast<const T*>(g.data());
  T* o = static_cast<T*>(x_grad->data());
  if (index.numel() == 0) return;
  for (int64_t line = 0; line < is.lines(); ++line) {
    for (int64_t j = 0; j < is.n; ++j) {
      const int64_t at = is.At(line, j);
      int64_t p = pos[at];
      OAR_ENFORCE(p >= -xs.n && p < xs.n,
                  errors::OutOfRange("index ", p, " in argument 'index' is out of bounds for axis ",
                                     axis, " with size ", xs.n));
      T& dst = o[xs.At(line, p < 0 ? p + xs.n : p)];
      dst = static_cast<T>(static_cast<compute_t<T>>(dst) + static_cast<compute_t<T>>(gp[at]));
    }
  }
}

// Group numbers of the distinct elements (no axis) or slices along the axis, in
// ascending (lexicographic) order. NaNs never compare equal, so each is its own group.
template <typename T>
void UniqueInverseKernel(const DeviceContext&, const DenseTensor& x_in,
                         const std::vector<int64_t>& axis, DenseTensor* out) {
  using C = compute_t<T>;
  const DenseTensor x = funcs::Contiguous(x_in);
  funcs::AxisSplit s;  // slice k: the elements At(line, k) over all lines
  s.n = x.numel();
  if (!axis.empty()) s = SplitFor(x, axis[0]);
  const T* in = static_cast<const T*>(x.data());
  int64_t* o = static_cast<int64_t*>(out->AllocateFrom(x.place()));
  const int64_t lines = axis.empty() ? 1 : s.lines();
  auto at = [&](int64_t k, int64_t line) { return static_cast<C>(in[s.At(line, k)]); };
  auto less = [&](int64_t a, int64_t b) {
    for (int64_t line = 0; line < lines; ++line) {
      if (LessNanLast(at(a, line), at(b, line))) return true;
      if (LessNanLast(at(b, line), at(a, line))) return false;
    }
    return a < b;
  };
  auto same = [&](int64_t a, int64_t b) {
    for (int64_t line = 0; line < lines; ++line) {
      if (!(at(a, line) == at(b, line))) return false;
    }
    return true;
  };
  std::vector<int64_t> idx(s.n);
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), less);
  int64_t group = 0;
  for (int64_t j = 0; j < s.n; ++j) {
    if (j > 0 && !same(idx[j - 1], idx[j])) ++group;
    o[idx[j]] = group;
  }
}

template <typename T>
void BincountKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& weights_in,
                    int64_t minlength, DenseTensor* out) {
  using C = compute_t<T>;
  using W = std::conditional_t<std::is_integral_v<C>, int64_t, double>;
  const std::vector<int64_t> v = AsInt64(x);
  int64_t len = minlength;
  for (int64_t e : v) {
    OAR_ENFORCE(e >= 0, errors::InvalidArgument("argument 'x' must hold non-negative integers, "
                                                "found ",
                                                e));
    // e + 1 wrapped for e = 2^63 - 1, and acc[e] then wrote 8 bytes before the buffer.
    OAR_ENFORCE(e < std::numeric_limits<int64_t>::max(),
                errors::ResourceExhausted("bincount(): the value ", e, " needs ", e,
                                          " + 1 bins, more than int64 can count"));
    len = std::max(len, e + 1);
  }
  const DenseTensor w = funcs::Contiguous(weights_in);
  const T* wp = static_cast<const T*>(w.data());
  out->Resize(DDim{len});
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  std::vector<W> acc = funcs::ScratchBuffer<W>(len);
  for (size_t i = 0; i < v.size(); ++i) acc[v[i]] += static_cast<W>(static_cast<C>(wp[i]));
  for (int64_t i = 0; i < len; ++i) o[i] = static_cast<T>(static_cast<C>(acc[i]));
}

// Note [A value's bin is the one whose edges hold it]
// The bin a value falls in is the one between the two edges (as linspace computes them,
// in the input's precision: float for float32 and narrower) that hold it, so histogram
// agrees with the edges the user sees; max itself falls in the last bin. (x - min) /
// (max - min) * bins alone can land one bin off a value lying on an edge: 0.01 in two
// bins of [-0.99, 1.01] computes bin 1 while the middle edge rounds to 0.0100000000000000009.
// PyTorch's histogram rounds the same way; Paddle's kernel uses the formula alone.
template <typename E>
class EqualBins {
 public:
  EqualBins(double lo, double hi, int64_t bins)
      : lo_(static_cast<E>(lo)),
        hi_(static_cast<E>(hi)),
        step_(Step(lo_, hi_, bins)),
        bins_(bins) {}
  bool Holds(double v) const { return v >= lo_ && v <= hi_; }
  int64_t Of(double v) const {
    const auto e = static_cast<E>(v);
    // The estimate is clamped as a double: a range that rounds to a point in E (min and
    // max 1e-50 apart, float32 input) gives 0 / 0, and NaN has no int64 value.
    // Halved: hi - lo passes double's range for float64 bounds near -+1.8e308.
    const double at = (static_cast<double>(e) / 2 - static_cast<double>(lo_) / 2) /
                      (static_cast<double>(hi_) / 2 - static_cast<double>(lo_) / 2) *
                      static_cast<double>(bins_);
    int64_t b = at >= 1 ? static_cast<int64_t>(std::min(at, static_cast<double>(bins_ - 1))) : 0;
    while (b > 0 && e < Edge(b)) --b;
    while (b + 1 < bins_ && e >= Edge(b + 1)) ++b;
    return b;
  }

 private:
  // linspace's step, except where hi - lo passes E's range ([-3e38, 3e38] in float32, whose
  // edges were all inf or NaN): then each end is divided first.
  static E Step(E lo, E hi, int64_t bins) {
    const E step = (hi - lo) / static_cast<E>(bins);
    return std::isfinite(static_cast<double>(step))
               ? step
               : hi / static_cast<E>(bins) - lo / static_cast<E>(bins);
  }

  // linspace's i-th of bins + 1 points: counted from the nearer end.
  E Edge(int64_t i) const {
    return i < (bins_ + 1) / 2 ? lo_ + step_ * static_cast<E>(i)
                               : hi_ - step_ * static_cast<E>(bins_ - i);
  }
  E lo_, hi_, step_;
  int64_t bins_;
};

// Equal-width bins over [min, max] (the data's range when min == max, as Paddle's kernel
// takes it; widened by 1 on each side when that range is a point, as torch.histc).
// Values outside the range and NaNs are not counted.
template <typename T>
void HistogramKernel(const DeviceContext&, const DenseTensor& input, const DenseTensor& weight_in,
                     int64_t bins, double min, double max, DenseTensor* out) {
  using C = compute_t<T>;
  using W = std::conditional_t<std::is_integral_v<C>, int64_t, double>;
  const DenseTensor v = funcs::CastTo(funcs::Contiguous(input), DType::kFloat64);
  const double* p = static_cast<const double*>(v.data());
  const int64_t n = v.numel();
  if (min == max && n > 0) {
    min = std::numeric_limits<double>::infinity();
    max = -min;
    for (int64_t i = 0; i < n; ++i) {
      if (std::isnan(p[i])) continue;
      min = std::min(min, p[i]);
      max = std::max(max, p[i]);
    }
    OAR_ENFORCE(std::isfinite(min) && std::isfinite(max),
                errors::InvalidArgument("the range of argument 'input' is not finite; give "
                                        "'min' and 'max'"));
  }
  if (min == max) {
    min -= 1;
    max += 1;
  }
  const DenseTensor w = funcs::Contiguous(weight_in);
  const T* wp = static_cast<const T*>(w.data());
  T* o = static_cast<T*>(out->AllocateFrom(input.place()));
  std::vector<W> acc = funcs::ScratchBuffer<W>(bins);
  auto count = [&](const auto& grid) {
    for (int64_t i = 0; i < n; ++i) {
      if (grid.Holds(p[i])) acc[grid.Of(p[i])] += static_cast<W>(static_cast<C>(wp[i]));
    }
  };
  // Note [A value's bin is the one whose edges hold it]
  if (SizeOf(input.dtype()) <= 4 && IsFloating(input.dtype())) {
    count(EqualBins<float>(min, max, bins));
  } else {
    count(EqualBins<double>(min, max, bins));
  }
  for (int64_t i = 0; i < bins; ++i) o[i] = static_cast<T>(static_cast<C>(acc[i]));
}

OAR_REGISTER_KERNEL(argmax, CPU, Any, ArgmaxKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(argmin, CPU, Any, ArgminKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(argsort, CPU, Any, ArgsortKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(topk_index, CPU, Any, TopkIndexKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(kthvalue_index, CPU, Any, KthvalueIndexKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(mode_index, CPU, Any, ModeIndexKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(along_axis_gather, CPU, Any, AlongAxisGatherKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(along_axis_gather_grad, CPU, Any, AlongAxisGatherGradKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(unique_inverse, CPU, Any, UniqueInverseKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(bincount, CPU, Any, BincountKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(histogram, CPU, Any, HistogramKernel, OAR_NUMERIC_TYPES);
// Complex elements: these kernels only move (or add) elements.
OAR_REGISTER_KERNEL(along_axis_gather, CPU, Any, AlongAxisGatherKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(along_axis_gather_grad, CPU, Any, AlongAxisGatherGradKernel, OAR_COMPLEX_TYPES);

}  // namespace oar
