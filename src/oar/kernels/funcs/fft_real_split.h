// A real FFT of even length n = 2m as a complex FFT of m points (fft_kernels.cc
// uses it for long 1-D signals, which then take the threaded four-step route
// instead of pocketfft's single-threaded real transform).
//
// Forward (r2c): z[t] = x[2t] + i x[2t+1] has Z = DFT_m(z) = A + iB, where A and B
// are the DFTs of the even and odd samples. Both are spectra of real signals, so
// A[k] = (Z[k] + conj Z[m-k]) / 2, B[k] = (Z[k] - conj Z[m-k]) / 2i, and
// X[k] = A[k] + w^k B[k] with w = exp(s 2 pi i / n), s = -1 forward, +1 backward.
// Since w^(m-k) = -conj(w^k), X[m-k] = conj(A[k] - w^k B[k]): one twiddle per pair
// (k, m-k), and a pair reads and writes only its own two entries, so the pass runs
// in place and in parallel.
//
// Inverse (c2r): from the half spectrum X[0..m], Z[k] = A'[k] + i B'[k] with
// A'[k] = X[k] + conj X[m-k], B'[k] = (X[k] - conj X[m-k]) w^k; the m-point
// transform of Z (same sign) is x[2t] + i x[2t+1]. The imaginary parts of X[0] and
// X[m] are ignored, as pocketfft's and PyTorch's c2r do.
#pragma once

#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <vector>

namespace oar::funcs {

namespace split_detail {
// std::complex's operator* checks for inf/NaN (it calls __mulsc3/__muldc3), which
// keeps these loops scalar; twiddles and spectra here are finite.
template <typename R, typename S>
std::complex<R> Mul(std::complex<S> w, std::complex<R> b) {
  const R wr = static_cast<R>(w.real()), wi = static_cast<R>(w.imag());
  return {wr * b.real() - wi * b.imag(), wr * b.imag() + wi * b.real()};
}
}  // namespace split_detail

// w^k = exp(s 2 pi i k / n) as the product of two tables of about sqrt(n)
// entries computed in double, so every twiddle is within a few double ulp and
// costs a complex multiply instead of a sincos.
class SplitTwiddles {
 public:
  SplitTwiddles(int64_t n, bool forward) {
    while ((int64_t{1} << (2 * shift_)) < n) ++shift_;
    const double step = (forward ? -2.0 : 2.0) * std::numbers::pi / static_cast<double>(n);
    const int64_t lo = int64_t{1} << shift_;
    lo_.resize(static_cast<size_t>(lo));
    for (int64_t b = 0; b < lo; ++b) lo_[static_cast<size_t>(b)] = std::polar(1.0, step * b);
    hi_.resize(static_cast<size_t>((n >> shift_) + 1));
    for (size_t a = 0; a < hi_.size(); ++a) {
      hi_[a] = std::polar(1.0, step * static_cast<double>(static_cast<int64_t>(a) << shift_));
    }
  }
  std::complex<double> operator()(int64_t k) const {
    return split_detail::Mul(hi_[static_cast<size_t>(k >> shift_)],
                             lo_[static_cast<size_t>(k & ((int64_t{1} << shift_) - 1))]);
  }

 private:
  int shift_ = 0;
  std::vector<std::complex<double>> lo_, hi_;
};

// r2c, after z's m-point transform Z sits in x_out[0..m) (stride s, elements):
// the pairs k in [k0, k1), a sub-range of [1, m/2], become X[k] and X[m-k].
template <typename R>
void SplitPairsForward(std::complex<R>* x, ptrdiff_t s, int64_t m, const SplitTwiddles& w,
                       int64_t k0, int64_t k1) {
  using C = std::complex<R>;
  for (int64_t k = k0; k < k1; ++k) {
    const C zk = x[k * s], zj = std::conj(x[(m - k) * s]);
    const C a = (zk + zj) * R(0.5);
    const C d = (zk - zj) * R(0.5);
    const C b(d.imag(), -d.real());  // d / i
    const C wb = split_detail::Mul(w(k), b);
    x[k * s] = a + wb;
    x[(m - k) * s] = std::conj(a - wb);
  }
}

// r2c's pair k = 0: X[0] and X[m] from Z[0] (both real).
template <typename R>
void SplitEndsForward(std::complex<R>* x, ptrdiff_t s, int64_t m) {
  const std::complex<R> z0 = x[0];
  x[0] = {z0.real() + z0.imag(), R(0)};
  x[m * s] = {z0.real() - z0.imag(), R(0)};
}

// c2r: the pairs k in [k0, k1) of [0, m/2] of Z (contiguous) from the half
// spectrum x[0..m] (stride s, elements).
template <typename R>
void SplitPairsInverse(const std::complex<R>* x, ptrdiff_t s, int64_t m, const SplitTwiddles& w,
                       int64_t k0, int64_t k1, std::complex<R>* z) {
  using C = std::complex<R>;
  for (int64_t k = k0; k < k1; ++k) {
    if (k == 0) {
      const R e = x[0].real(), o = x[m * s].real();
      z[0] = {e + o, e - o};
      continue;
    }
    const C xk = x[k * s], xj = std::conj(x[(m - k) * s]);
    const C a = xk + xj;
    const C b = split_detail::Mul(w(k), xk - xj);
    z[k] = a + C(-b.imag(), b.real());                // a + i b
    z[m - k] = std::conj(a) + C(b.imag(), b.real());  // conj(a) + i conj(b)
  }
}

}  // namespace oar::funcs
