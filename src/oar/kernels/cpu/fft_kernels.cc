// The FFT section (src/oar/ops/fft.yaml) on pocketfft (third_party/pocketfft, BSD-3;
// docs/fft.md has the benchmark that chose it over FFTW and MKL). pocketfft is built
// without its own threads: a transform runs as passes over one axis at a time, and a
// pass is cut into blocks of another dim that oar's pool runs (Note [A late worker
// never delays an op]), so the FFT shares the pool every other kernel uses. pocketfft
// reads any strides, so inputs are never copied to make them contiguous; outputs are
// fresh contiguous tensors. Long complex transforms of one axis take the four-step
// route (FourStep below): pocketfft alone walks a 2^20-point signal in ten passes
// that each miss the cache, and cannot split one signal across threads. Long real
// transforms of even length take it too, as complex transforms of half the length
// (R2CBySplit, C2RBySplit): rfft of 2^20 float32 went from 7.3 to 2.6 ms.
#define POCKETFFT_NO_MULTITHREADING
// Plans (twiddle tables) cached across calls and threads, behind pocketfft's mutex:
// the blocks of a pass would otherwise each rebuild the same plan.
#define POCKETFFT_CACHE_SIZE 16
#include <pocketfft_hdronly.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/funcs/fft_four_step.h"
#include "oar/kernels/funcs/fft_real_split.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

namespace pf = pocketfft;
constexpr size_t kNoDim = static_cast<size_t>(-1);

template <typename R>
R FftScale(int64_t normalization, int64_t n) {
  switch (static_cast<FftNorm>(normalization)) {
    case FftNorm::kByRootN:
      return static_cast<R>(1.0 / std::sqrt(static_cast<double>(n)));
    case FftNorm::kByN:
      return static_cast<R>(1.0 / static_cast<double>(n));
    case FftNorm::kNone:
      break;
  }
  return R(1);
}

pf::shape_t Shape(const DDim& d) { return pf::shape_t(d.begin(), d.end()); }

pf::stride_t ByteStrides(const DenseTensor& t) {
  pf::stride_t s(t.strides().begin(), t.strides().end());
  for (auto& v : s) v *= static_cast<ptrdiff_t>(SizeOf(t.dtype()));
  return s;
}

template <typename P>
P Shift(P p, ptrdiff_t bytes) {
  using Byte = std::conditional_t<std::is_const_v<std::remove_pointer_t<P>>, const char, char>;
  return reinterpret_cast<P>(reinterpret_cast<Byte*>(p) + bytes);
}

size_t Numel(const pf::shape_t& shape) {
  size_t n = 1;
  for (size_t v : shape) n *= v;
  return n;
}

// The order of the one-axis passes: innermost axis first (measured faster than
// outermost first for pocketfft, whose strided passes then run in place).
std::vector<int64_t> InnermostFirst(std::vector<int64_t> axes) {
  std::sort(axes.begin(), axes.end(), std::greater<>());
  return axes;
}

// Calls f(block_shape, in_bytes, out_bytes) on blocks that split the largest dim other
// than `axis` (the transformed one, where input and output lengths may differ) across
// the pool; each block is a whole strided array pocketfft transforms along `axis`.
template <typename F>
void ForBlocks(const pf::shape_t& shape, size_t axis, const pf::stride_t& sin,
               const pf::stride_t& sout, F&& f) {
  size_t d = kNoDim;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i != axis && (d == kNoDim || shape[i] > shape[d])) d = i;
  }
  if (d == kNoDim || shape[d] <= 1) {
    f(shape, 0, 0);
    return;
  }
  // About 5 n log2 n flops per signal of n points.
  const double len = static_cast<double>(shape[axis]);
  const auto cost = static_cast<int64_t>(static_cast<double>(Numel(shape) / shape[d]) *
                                         (5.0 * std::log2(len + 1.0) + 1.0));
  // Blocks are whole groups of kSignalGroup signals: pocketfft transforms as many
  // signals at once as a vector register has lanes and the rest of a block one by
  // one, so a pool chunk of 5 columns ran 1 in 5 without SIMD (rfft2 of 1024^2 took
  // longer on two threads than on one: 1.5-2.3 against 1.3 ms).
  constexpr int64_t kSignalGroup = 16;
  const auto n = static_cast<int64_t>(shape[d]);
  const int64_t groups = (n + kSignalGroup - 1) / kSignalGroup;
  ParallelFor(0, groups, cost * kSignalGroup, [&](int64_t gb, int64_t ge) {
    const int64_t b = gb * kSignalGroup, e = std::min(n, ge * kSignalGroup);
    pf::shape_t s = shape;
    s[d] = static_cast<size_t>(e - b);
    f(s, b * sin[d], b * sout[d]);
  });
}

// Calls f(in_bytes, out_bytes) for every index of the dims other than `axis`.
template <typename F>
void ForEachSignal(const pf::shape_t& shape, size_t axis, const pf::stride_t& sin,
                   const pf::stride_t& sout, F&& f) {
  std::vector<size_t> idx(shape.size(), 0);
  ptrdiff_t oi = 0, oo = 0;
  while (true) {
    f(oi, oo);
    size_t i = shape.size();
    while (i-- > 0) {
      if (i == axis) continue;
      if (++idx[i] < shape[i]) {
        oi += sin[i];
        oo += sout[i];
        break;
      }
      oi -= static_cast<ptrdiff_t>(idx[i] - 1) * sin[i];
      oo -= static_cast<ptrdiff_t>(idx[i] - 1) * sout[i];
      idx[i] = 0;
    }
    if (i == kNoDim) return;
  }
}

// The four-step split n = n1 * n2 of a long signal, or {0, 0} to use pocketfft as is:
// only lengths from 2^15 (below, pocketfft's passes stay in cache) with a divisor
// n2 in [16, sqrt(n)] (primes go to pocketfft's Bluestein).
std::pair<size_t, size_t> FourStepSplit(size_t n) {
  if (n < (size_t{1} << 15)) return {0, 0};
  for (auto n2 = static_cast<size_t>(std::sqrt(static_cast<double>(n))); n2 >= 16; --n2) {
    if (n % n2 == 0) return {n / n2, n2};
  }
  return {0, 0};
}

// One signal by the four-step split (funcs/fft_four_step.h): the column blocks, then
// the row blocks, each step split across the pool. Blocks are fixed by the lengths
// alone, so the result does not depend on the thread count.
template <typename R>
void FourStep(const funcs::FourStepFft<R>& f, const std::complex<R>* in, ptrdiff_t in_stride,
              std::complex<R>* out, ptrdiff_t out_stride, R fct,
              typename funcs::FourStepFft<R>::Lanes* scratch) {
  using Lanes = typename funcs::FourStepFft<R>::Lanes;
  // About 5 n log2 n flops per transform, per block of transforms.
  const auto flops = [](size_t len, size_t count) {
    return static_cast<int64_t>(static_cast<double>(len * count) *
                                (5.0 * std::log2(static_cast<double>(len)) + 4.0));
  };
  ParallelFor(0, static_cast<int64_t>(f.ColumnBlocks()), flops(f.n1(), f.B),
              [&](int64_t b, int64_t e) {
                const auto buf = std::make_unique_for_overwrite<Lanes[]>(f.BufferSize());
                f.Columns(static_cast<size_t>(b), static_cast<size_t>(e), in, in_stride, scratch,
                          buf.get());
              });
  ParallelFor(0, static_cast<int64_t>(f.RowBlocks()), flops(f.n2(), f.RowsPerBlock()),
              [&](int64_t b, int64_t e) {
                const auto buf = std::make_unique_for_overwrite<Lanes[]>(f.BufferSize());
                f.Rows(static_cast<size_t>(b), static_cast<size_t>(e), scratch, out, out_stride,
                       fct, buf.get());
              });
}

// A complex transform along one axis (in may equal out, with equal strides).
template <typename R>
void C2CPass(const pf::shape_t& shape, const pf::stride_t& sin, const pf::stride_t& sout,
             size_t axis, bool forward, const std::complex<R>* in, std::complex<R>* out, R fct) {
  const auto [n1, n2] = FourStepSplit(shape[axis]);
  if constexpr (funcs::kFourStepFft) {
    if (n1 != 0) {
      // Four-step: each signal in turn, every step of it split across the pool. A
      // signal is read whole into the scratch before its output is written, so
      // in == out is safe.
      const funcs::FourStepFft<R> f(n1, n2, forward);
      using Lanes = typename funcs::FourStepFft<R>::Lanes;
      const auto scratch = std::make_unique_for_overwrite<Lanes[]>(f.ScratchSize());
      const auto cs = static_cast<ptrdiff_t>(sizeof(std::complex<R>));
      ForEachSignal(shape, axis, sin, sout, [&](ptrdiff_t oi, ptrdiff_t oo) {
        FourStep<R>(f, Shift(in, oi), sin[axis] / cs, Shift(out, oo), sout[axis] / cs, fct,
                    scratch.get());
      });
      return;
    }
  }
  ForBlocks(shape, axis, sin, sout, [&](const pf::shape_t& s, ptrdiff_t oi, ptrdiff_t oo) {
    pf::c2c<R>(s, sin, sout, {axis}, forward, Shift(in, oi), Shift(out, oo), fct, 1);
  });
}

// Whether a real transform of `shape` along `last` (length n) takes the split route
// (funcs/fft_real_split.h): n even, n/2 long enough for the four-step route, and
// every signal's real samples contiguous and aligned as complex pairs. Returns the
// four-step split of n/2, or {0, 0}.
template <typename R>
std::pair<size_t, size_t> RealSplit(const pf::shape_t& shape, const pf::stride_t& real_strides,
                                    size_t last, const R* real_base) {
  if (!funcs::kFourStepFft) return {0, 0};
  const size_t n = shape[last];
  constexpr auto kPair = static_cast<ptrdiff_t>(alignof(std::complex<R>));
  if (n % 2 != 0 || real_strides[last] != static_cast<ptrdiff_t>(sizeof(R)) ||
      reinterpret_cast<uintptr_t>(real_base) % kPair != 0) {
    return {0, 0};
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i != last && shape[i] > 1 && real_strides[i] % kPair != 0) return {0, 0};
  }
  return FourStepSplit(n / 2);
}

// What a split-route transform of signals of 2m real samples needs once per call:
// the m-point four-step plan, its scratch and the split pass's twiddles.
template <typename R>
struct SplitPlan {
  SplitPlan(int64_t half, std::pair<size_t, size_t> split, bool forward)
      : m(half),
        f(split.first, split.second, forward),
        scratch(std::make_unique_for_overwrite<Lanes[]>(f.ScratchSize())),
        w(2 * half, forward) {}
  using Lanes = typename funcs::FourStepFft<R>::Lanes;
  int64_t m;
  funcs::FourStepFft<R> f;
  std::unique_ptr<Lanes[]> scratch;
  funcs::SplitTwiddles w;
};

// r2c of long signals: each signal's m = n/2 complex pairs by the four-step route
// into its output, then the split pass there, in parallel over the pairs.
template <typename R>
void R2CBySplit(const pf::shape_t& shape, const pf::stride_t& sin, const pf::stride_t& sout,
                size_t last, std::pair<size_t, size_t> split, bool forward, const R* src,
                std::complex<R>* o, R fct) {
  if constexpr (funcs::kFourStepFft) {
    using C = std::complex<R>;
    const SplitPlan<R> p(static_cast<int64_t>(shape[last] / 2), split, forward);
    const ptrdiff_t os = sout[last] / static_cast<ptrdiff_t>(sizeof(C));
    ForEachSignal(shape, last, sin, sout, [&](ptrdiff_t oi, ptrdiff_t oo) {
      C* out = Shift(o, oo);
      FourStep<R>(p.f, reinterpret_cast<const C*>(Shift(src, oi)), 1, out, os, fct,
                  p.scratch.get());
      funcs::SplitEndsForward(out, os, p.m);
      ParallelFor(1, p.m / 2 + 1, 24,
                  [&](int64_t b, int64_t e) { funcs::SplitPairsForward(out, os, p.m, p.w, b, e); });
    });
  }
}

// c2r of long signals: the split pass into a contiguous m-point buffer, then its
// four-step transform straight into the real output's sample pairs.
template <typename R>
void C2RBySplit(const pf::shape_t& out_shape, const pf::stride_t& sin, const pf::stride_t& sout,
                size_t last, std::pair<size_t, size_t> split, bool forward,
                const std::complex<R>* src, R* o, R fct) {
  if constexpr (funcs::kFourStepFft) {
    using C = std::complex<R>;
    const SplitPlan<R> p(static_cast<int64_t>(out_shape[last] / 2), split, forward);
    const auto z = std::make_unique_for_overwrite<C[]>(static_cast<size_t>(p.m));
    const ptrdiff_t is = sin[last] / static_cast<ptrdiff_t>(sizeof(C));
    ForEachSignal(out_shape, last, sin, sout, [&](ptrdiff_t oi, ptrdiff_t oo) {
      const C* in = Shift(src, oi);
      ParallelFor(0, p.m / 2 + 1, 24, [&](int64_t b, int64_t e) {
        funcs::SplitPairsInverse(in, is, p.m, p.w, b, e, z.get());
      });
      FourStep<R>(p.f, z.get(), 1, reinterpret_cast<C*>(Shift(o, oo)), 1, fct, p.scratch.get());
    });
  }
}

// Completes a onesided spectrum in place: out[..., k] for k >= n/2 + 1 along `last`
// from Hermitian symmetry, X[k] = conj(X[-k]) with every transformed index negated.
template <typename R>
void FillHermitian(std::complex<R>* out, const DDim& dims, const std::vector<int64_t>& axes) {
  const size_t nd = dims.size();
  const auto last = static_cast<size_t>(axes.back());
  const int64_t n = dims[last];
  const int64_t h = n / 2 + 1;
  if (h >= n) return;
  std::vector<bool> transformed(nd, false);
  for (int64_t a : axes) transformed[static_cast<size_t>(a)] = true;
  std::vector<int64_t> st(nd, 1);
  for (size_t i = nd - 1; i-- > 0;) st[i] = st[i + 1] * dims[i + 1];
  // Every index of the dims other than `last`; its mirror negates the transformed ones.
  std::vector<int64_t> idx(nd, 0);
  while (true) {
    int64_t at = 0, mirror = 0;
    for (size_t i = 0; i < nd; ++i) {
      if (i == last) continue;
      at += idx[i] * st[i];
      const int64_t m = transformed[i] && idx[i] != 0 ? dims[i] - idx[i] : idx[i];
      mirror += m * st[i];
    }
    for (int64_t k = h; k < n; ++k) {
      out[at + k * st[last]] = std::conj(out[mirror + (n - k) * st[last]]);
    }
    size_t i = nd;
    while (i-- > 0) {
      if (i == last) continue;
      if (++idx[i] < dims[i]) break;
      idx[i] = 0;
    }
    if (i == kNoDim) return;
  }
}

template <typename T>
void FftC2CKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& axes,
                  int64_t normalization, bool forward, DenseTensor* out) {
  using R = typename T::value_type;
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  const std::vector<int64_t> a = InnermostFirst(FftAxes(x, axes, false));
  if (a.empty()) {
    funcs::CopyInto(x, out);
    return;
  }
  if (out->numel() == 0) return;
  int64_t n = 1;
  for (int64_t ax : a) n *= x.dims()[ax];
  const pf::shape_t shape = Shape(x.dims());
  const pf::stride_t sin = ByteStrides(x), sout = ByteStrides(*out);
  const T* src = x.data<T>();
  for (size_t i = 0; i < a.size(); ++i) {
    C2CPass<R>(shape, i == 0 ? sin : sout, sout, static_cast<size_t>(a[i]), forward,
               i == 0 ? src : o, o, i == 0 ? FftScale<R>(normalization, n) : R(1));
  }
}

template <typename T>
void FftR2CKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& axes,
                  int64_t normalization, bool forward, bool onesided, DenseTensor* out) {
  using C = std::complex<T>;
  C* o = static_cast<C*>(out->AllocateFrom(x.place()));
  if (out->numel() == 0) return;
  const std::vector<int64_t> a = FftAxes(x, axes, true);
  int64_t n = 1;
  for (int64_t ax : a) n *= x.dims()[ax];
  const auto last = static_cast<size_t>(a.back());
  const pf::shape_t shape = Shape(x.dims());
  const pf::stride_t sin = ByteStrides(x), sout = ByteStrides(*out);
  const T* src = x.data<T>();
  const T fct = FftScale<T>(normalization, n);
  if (const auto split = RealSplit<T>(shape, sin, last, src); split.first != 0) {
    R2CBySplit<T>(shape, sin, sout, last, split, forward, src, o, fct);
  } else {
    ForBlocks(shape, last, sin, sout, [&](const pf::shape_t& s, ptrdiff_t oi, ptrdiff_t oo) {
      pf::r2c<T>(s, sin, sout, last, forward, Shift(src, oi), Shift(o, oo), fct, 1);
    });
  }
  // The other axes transform the half spectrum in place.
  pf::shape_t half = shape;
  half[last] = shape[last] / 2 + 1;
  for (int64_t ax : InnermostFirst({a.begin(), a.end() - 1})) {
    C2CPass<T>(half, sout, sout, static_cast<size_t>(ax), forward, o, o, T(1));
  }
  if (!onesided) FillHermitian<T>(o, out->dims(), a);
}

template <typename T>
void FftC2RKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& axes,
                  int64_t normalization, bool forward, int64_t last_dim_size, DenseTensor* out) {
  using R = typename T::value_type;
  R* o = static_cast<R*>(out->AllocateFrom(x.place()));
  if (out->numel() == 0) return;
  const std::vector<int64_t> a = FftAxes(x, axes, true);
  const auto last = static_cast<size_t>(a.back());
  int64_t n = FftC2RLength(x, a.back(), last_dim_size);
  for (size_t i = 0; i + 1 < a.size(); ++i) n *= x.dims()[a[i]];
  const R fct = FftScale<R>(normalization, n);
  const pf::shape_t out_shape = Shape(out->dims());
  const pf::stride_t sout = ByteStrides(*out);
  const T* src = x.data<T>();
  pf::stride_t sin = ByteStrides(x);
  // The other axes first, complex to complex into a contiguous scratch; then the last.
  std::unique_ptr<T[]> scratch;
  if (a.size() > 1) {
    scratch = std::make_unique_for_overwrite<T[]>(static_cast<size_t>(x.numel()));
    const pf::shape_t in_shape = Shape(x.dims());
    pf::stride_t sc(in_shape.size());
    ptrdiff_t acc = sizeof(T);
    for (size_t i = in_shape.size(); i-- > 0;) {
      sc[i] = acc;
      acc *= static_cast<ptrdiff_t>(in_shape[i]);
    }
    const std::vector<int64_t> others = InnermostFirst({a.begin(), a.end() - 1});
    for (size_t i = 0; i < others.size(); ++i) {
      C2CPass<R>(in_shape, i == 0 ? sin : sc, sc, static_cast<size_t>(others[i]), forward,
                 i == 0 ? src : scratch.get(), scratch.get(), R(1));
    }
    src = scratch.get();
    sin = sc;
  }
  if (const auto split = RealSplit<R>(out_shape, sout, last, o); split.first != 0) {
    C2RBySplit<R>(out_shape, sin, sout, last, split, forward, src, o, fct);
    return;
  }
  ForBlocks(out_shape, last, sin, sout, [&](const pf::shape_t& s, ptrdiff_t oi, ptrdiff_t oo) {
    pf::c2r<R>(s, sin, sout, last, forward, Shift(src, oi), Shift(o, oo), fct, 1);
  });
}

}  // namespace

OAR_REGISTER_KERNEL(fft_c2c, CPU, Any, FftC2CKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(fft_r2c, CPU, Any, FftR2CKernel, float, double);
OAR_REGISTER_KERNEL(fft_c2r, CPU, Any, FftC2RKernel, OAR_COMPLEX_TYPES);

}  // namespace oar
