// The four-step FFT of one long signal of n = n1 * n2 points (fft_kernels.cc), on
// pocketfft's plans. x[j], j = n2 * j1 + j2, is the n1 x n2 matrix A[j1][j2], and
// X[k1 + n1 * k2] = sum_j2 w_n2^(j2 k2) w_n^(j2 k1) sum_j1 A[j1][j2] w_n1^(j1 k1).
//
// The data is walked twice, each time in blocks that stay in the core's L2:
// Columns() reads a block of B columns (B adjacent points of each row: whole cache
// lines), runs the length-n1 transforms on them in SIMD lanes (pocketfft's
// cmplx<vtype> form, lane = column), multiplies by the twiddles and stores the
// block into the scratch already in the lane layout Rows() wants (lane = row k1,
// an L x L transpose in registers). Rows() runs the length-n2 transforms on groups
// of L rows and writes each frequency's rows of a block as adjacent outputs. The
// previous route (pocketfft's strided passes over the columns, a twiddle pass, its
// strided row pass) walked the data three times, a cache line per point at a stride
// of n2 or n1 points: 1-D 2^20 complex128 took 14 ms of one core, now 6.2
// (docs/fft.md has the step timings).
#pragma once

#include <pocketfft_hdronly.h>  // configured (POCKETFFT_*) by the including kernel

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstring>
#include <memory>
#include <numbers>
#include <utility>
#include <vector>

namespace oar::funcs {

// pocketfft keeps SIMD types only where the compiler has vector extensions.
#ifndef POCKETFFT_NO_VECTORS
inline constexpr bool kFourStepFft = true;

namespace four_step_detail {

namespace pfd = pocketfft::detail;

// Exchanges the off-diagonal D-lane blocks of a pair of rows of an L x L lane
// matrix; the stages D = 1, 2, ..., L/2 together transpose it.
template <size_t D, typename V, size_t... I>
void SwapBlocks(V& a, V& b, std::index_sequence<I...>) {
  constexpr size_t L = sizeof...(I);
  const V x = __builtin_shufflevector(a, b, ((I & D) ? L + I - D : I)...);
  const V y = __builtin_shufflevector(a, b, ((I & D) ? L + I : I + D)...);
  a = x;
  b = y;
}

template <size_t L, typename V>
void Transpose(V* v) {
  [&]<size_t... S>(std::index_sequence<S...>) {
    (
        [&] {
          constexpr size_t D = size_t{1} << S;
          for (size_t i = 0; i < L; ++i) {
            if (!(i & D)) SwapBlocks<D>(v[i], v[i + D], std::make_index_sequence<L>());
          }
        }(),
        ...);
  }(std::make_index_sequence<std::countr_zero(L)>());
}

// L adjacent complex numbers <-> their real and imaginary lanes.
template <typename V, typename R, size_t... I>
pfd::cmplx<V> Deinterleave(const R* p, std::index_sequence<I...>) {
  V a, b;
  std::memcpy(&a, p, sizeof(V));
  std::memcpy(&b, p + sizeof...(I), sizeof(V));
  return {__builtin_shufflevector(a, b, 2 * I...), __builtin_shufflevector(a, b, 2 * I + 1 ...)};
}

template <typename V, typename R, size_t... I>
void Interleave(const pfd::cmplx<V>& c, R* p, std::index_sequence<I...>) {
  constexpr size_t L = sizeof...(I);
  const V a = __builtin_shufflevector(c.r, c.i, (I % 2 ? L : 0) + I / 2 ...);
  const V b = __builtin_shufflevector(c.r, c.i, (I % 2 ? L : 0) + L / 2 + I / 2 ...);
  std::memcpy(p, &a, sizeof(V));
  std::memcpy(p + L, &b, sizeof(V));
}

}  // namespace four_step_detail

template <typename R>
class FourStepFft {
  using V = pocketfft::detail::vtype_t<R>;

 public:
  using C = std::complex<R>;
  // L values (points or rows) in SIMD lanes: the unit of scratch and buffers.
  using Lanes = pocketfft::detail::cmplx<V>;
  static constexpr size_t L = pocketfft::detail::VLEN<R>::val;
  // Columns per block: 16 points of a row is 256 bytes of complex128 (4 lines), and
  // a block of n1 = 1024 rows 256 KB, a quarter of a Zen 4 core's L2.
  static constexpr size_t B = 16;
  static constexpr size_t G = B / L;
  static_assert(B % L == 0, "a block is whole lane groups");

  FourStepFft(size_t n1, size_t n2, bool forward)
      : n1_(n1),
        n2_(n2),
        forward_(forward),
        plan1_(pocketfft::detail::get_plan<pocketfft::detail::pocketfft_c<R>>(n1)),
        plan2_(pocketfft::detail::get_plan<pocketfft::detail::pocketfft_c<R>>(n2)),
        hi_(n1),
        lo_(n2),
        step_(n1),
        // Row groups per Rows() block: up to 8, the outputs of one frequency then 512
        // adjacent bytes, while the block's n2 points per row stay within 512 KB.
        row_groups_(std::clamp<size_t>((size_t{512} << 10) / (n2 * sizeof(Lanes)), 1, 8)) {
    // w_n^m for m = q * n2 + r is hi[q] * lo[r]: two short tables instead of n entries.
    const double n = static_cast<double>(n1 * n2), sign = forward ? -1.0 : 1.0;
    for (size_t r = 0; r < n2; ++r) lo_[r] = Unit(sign * static_cast<double>(r) / n);
    for (size_t q = 0; q < n1; ++q) {
      hi_[q] = Unit(sign * static_cast<double>(q) / static_cast<double>(n1));
    }
    // step_[k1] lane l: w_n^(k1 l), which turns the twiddle of a group's first column
    // into those of its L columns with one vector product.
    for (size_t k1 = 0; k1 < n1; ++k1) {
      for (size_t l = 0; l < L; ++l) {
        const C w = Twiddle(k1 * l / n2, k1 * l % n2);
        step_[k1].r[l] = w.real();
        step_[k1].i[l] = w.imag();
      }
    }
  }

  size_t n1() const { return n1_; }
  size_t n2() const { return n2_; }
  size_t ColumnBlocks() const { return (n2_ + B - 1) / B; }
  size_t RowBlocks() const { return (RowGroupCount() + row_groups_ - 1) / row_groups_; }
  // Rows of one row block.
  size_t RowsPerBlock() const { return row_groups_ * L; }
  // Lanes of the scratch (the whole transform between the steps) and of one block's
  // buffer (Columns or Rows).
  size_t ScratchSize() const { return RowGroupCount() * n2_; }
  size_t BufferSize() const { return std::max(G * n1_, row_groups_ * n2_); }

  // Column transforms of the column blocks [b0, b1) of `in` (point j at in[j * stride]),
  // times the twiddles, into `scratch`: row group k1 / L, column j2, lane k1 % L.
  void Columns(size_t b0, size_t b1, const C* in, ptrdiff_t stride, Lanes* scratch,
               Lanes* buf) const {
    for (size_t b = b0; b < b1; ++b) {
      const size_t c = b * B, w = std::min(B, n2_ - c);
      Gather(in + static_cast<ptrdiff_t>(c) * stride, stride, w, buf);
      for (size_t g = 0; g < G; ++g) plan1_->exec(buf + g * n1_, R(1), forward_);
      TwiddleStore(c, w, buf, scratch);
    }
  }

  // Row transforms of the row blocks [b0, b1) of `scratch`, scaled by fct, into `out`
  // (frequency k at out[k * stride]).
  void Rows(size_t b0, size_t b1, const Lanes* scratch, C* out, ptrdiff_t stride, R fct,
            Lanes* buf) const {
    for (size_t b = b0; b < b1; ++b) {
      const size_t g0 = b * row_groups_, g1 = std::min(RowGroupCount(), g0 + row_groups_);
      // Into the buffer, so the scratch stays read-only here (transforming it in place
      // measured the same).
      std::copy(scratch + g0 * n2_, scratch + g1 * n2_, buf);
      for (size_t g = g0; g < g1; ++g) plan2_->exec(buf + (g - g0) * n2_, fct, forward_);
      const size_t first = g0 * L, rows = std::min(n1_, g1 * L) - first;
      for (size_t k2 = 0; k2 < n2_; ++k2) {
        C* o = out + static_cast<ptrdiff_t>(first + k2 * n1_) * stride;
        if (stride == 1 && rows == (g1 - g0) * L) {
          for (size_t g = 0; g < g1 - g0; ++g) {
            four_step_detail::Interleave(buf[g * n2_ + k2], reinterpret_cast<R*>(o + g * L),
                                         std::make_index_sequence<L>());
          }
        } else {
          for (size_t u = 0; u < rows; ++u) {
            const Lanes& s = buf[(u / L) * n2_ + k2];
            o[static_cast<ptrdiff_t>(u) * stride] = C(s.r[u % L], s.i[u % L]);
          }
        }
      }
    }
  }

 private:
  static C Unit(double turns) {
    const double t = 2.0 * std::numbers::pi * turns;
    return C(static_cast<R>(std::cos(t)), static_cast<R>(std::sin(t)));
  }

  // hi[q] * lo[r] in real arithmetic: std::complex's operator* checks for NaN and
  // calls __mulsc3, which keeps loops scalar.
  C Twiddle(size_t q, size_t r) const {
    const C h = hi_[q], o = lo_[r];
    return C(h.real() * o.real() - h.imag() * o.imag(), h.real() * o.imag() + h.imag() * o.real());
  }

  size_t RowGroupCount() const { return (n1_ + L - 1) / L; }

  // Points c .. c + w of every row (in is at column c) into buf: group g's column
  // transform input at buf + g * n1, lane = column; lanes past w are zero.
  void Gather(const C* in, ptrdiff_t stride, size_t w, Lanes* buf) const {
    const auto row_step = static_cast<ptrdiff_t>(n2_) * stride;
    for (size_t j1 = 0; j1 < n1_; ++j1) {
      const C* row = in + static_cast<ptrdiff_t>(j1) * row_step;
      for (size_t g = 0; g < G; ++g) {
        Lanes& d = buf[g * n1_ + j1];
        if (stride == 1 && w >= (g + 1) * L) {
          d = four_step_detail::Deinterleave<V>(reinterpret_cast<const R*>(row + g * L),
                                                std::make_index_sequence<L>());
          continue;
        }
        for (size_t l = 0; l < L; ++l) {
          const size_t t = g * L + l;
          const C v = t < w ? row[static_cast<ptrdiff_t>(t) * stride] : C(0);
          d.r[l] = v.real();
          d.i[l] = v.imag();
        }
      }
    }
  }

  // Multiplies the transformed block (columns c .. c + w) by w_n^(j2 k1) and stores
  // it into the scratch with the lanes turned from columns to rows.
  void TwiddleStore(size_t c, size_t w, const Lanes* buf, Lanes* scratch) const {
    for (size_t g = 0; g < G && g * L < w; ++g) {
      const size_t j2 = c + g * L, cols = std::min(L, w - g * L);
      // w_n^(k1 j2) = hi[q] * lo[r] with k1 j2 = q n2 + r, stepped along k1 (j2 < n2).
      size_t q = 0, r = 0;
      for (size_t k = 0; k < n1_; k += L) {
        Lanes y[L];
        for (size_t u = 0; u < L; ++u) {
          const size_t k1 = k + u;
          if (k1 >= n1_) {
            y[u].r = V{};
            y[u].i = V{};
            continue;
          }
          const C base = Twiddle(q, r);
          const Lanes& e = step_[k1];
          const V wr = base.real() * e.r - base.imag() * e.i;
          const V wi = base.real() * e.i + base.imag() * e.r;
          const Lanes& x = buf[g * n1_ + k1];
          y[u].r = x.r * wr - x.i * wi;
          y[u].i = x.r * wi + x.i * wr;
          r += j2;
          if (r >= n2_) {
            r -= n2_;
            if (++q == n1_) q = 0;
          }
        }
        V re[L], im[L];
        for (size_t u = 0; u < L; ++u) {
          re[u] = y[u].r;
          im[u] = y[u].i;
        }
        four_step_detail::Transpose<L>(re);
        four_step_detail::Transpose<L>(im);
        Lanes* dst = scratch + (k / L) * n2_ + j2;
        for (size_t l = 0; l < cols; ++l) {
          dst[l].r = re[l];
          dst[l].i = im[l];
        }
      }
    }
  }

  size_t n1_, n2_;
  bool forward_;
  std::shared_ptr<pocketfft::detail::pocketfft_c<R>> plan1_, plan2_;
  std::vector<C> hi_, lo_;
  std::vector<Lanes> step_;
  size_t row_groups_;
};
#else
inline constexpr bool kFourStepFft = false;
template <typename R>
class FourStepFft;  // never instantiated: callers test kFourStepFft first
#endif

}  // namespace oar::funcs
