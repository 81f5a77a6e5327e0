// Where the time of a long 1-D complex FFT goes (docs/fft.md, "The four-step
// route"): 2^20 points as 1024 x 1024, one thread, process CPU time, min of N calls,
// ms. Rows: pocketfft alone; the earlier route step by step (pocketfft's strided
// column pass, a separate twiddle pass, pocketfft's row pass written transposed);
// oar's blocked route (src/oar/kernels/funcs/fft_four_step.h), its two passes.
// Not built by CMake: see README.md here for the command.
#define POCKETFFT_NO_MULTITHREADING
#define POCKETFFT_CACHE_SIZE 16
#include <pocketfft_hdronly.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <memory>
#include <numbers>
#include <random>
#include <vector>

#include "min_ms.h"
#include "oar/kernels/funcs/fft_four_step.h"

namespace pf = pocketfft;

template <typename R>
static void Run(const char* name, int reps) {
  using C = std::complex<R>;
  constexpr size_t n1 = 1024, n2 = 1024, n = n1 * n2;
  constexpr auto cs = static_cast<ptrdiff_t>(sizeof(C));
  std::mt19937 g(1);
  std::normal_distribution<R> d;
  std::vector<C> in(n), ref(n), out(n), scratch(n);
  for (auto& x : in) x = {d(g), d(g)};
  // The earlier route's twiddles: w_n^m, m = q n2 + r, as hi[q] * lo[r].
  std::vector<C> lo(n2), hi(n1);
  for (size_t r = 0; r < n2; ++r) lo[r] = std::polar(R(1), R(-2 * std::numbers::pi * r / n));
  for (size_t q = 0; q < n1; ++q) hi[q] = std::polar(R(1), R(-2 * std::numbers::pi * q / n1));
  const pf::shape_t mat{n1, n2};
  const pf::stride_t rows{n2 * cs, cs}, transposed{cs, n1 * cs};
  auto cols_old = [&] {
    pf::c2c<R>(mat, rows, rows, {0}, true, in.data(), scratch.data(), R(1), 1);
  };
  auto twiddle_old = [&] {
    for (size_t k1 = 0; k1 < n1; ++k1) {
      C* row = scratch.data() + k1 * n2;
      size_t q = 0, r = 0;  // m = j2 k1 = q n2 + r, stepped along j2 (k1 < n2)
      for (size_t j2 = 0; j2 < n2; ++j2) {
        const R wr = hi[q].real() * lo[r].real() - hi[q].imag() * lo[r].imag();
        const R wi = hi[q].real() * lo[r].imag() + hi[q].imag() * lo[r].real();
        const R xr = row[j2].real(), xi = row[j2].imag();
        row[j2] = C(xr * wr - xi * wi, xr * wi + xi * wr);
        r += k1;
        if (r >= n2) {
          r -= n2;
          if (++q == n1) q = 0;
        }
      }
    }
  };
  auto rows_old = [&] {
    pf::c2c<R>(mat, rows, transposed, {1}, true, scratch.data(), out.data(), R(1), 1);
  };
  using F = oar::funcs::FourStepFft<R>;
  const F f(n1, n2, true);
  const auto lanes = std::make_unique<typename F::Lanes[]>(f.ScratchSize());
  const auto buf = std::make_unique<typename F::Lanes[]>(f.BufferSize());
  auto cols_new = [&] { f.Columns(0, f.ColumnBlocks(), in.data(), 1, lanes.get(), buf.get()); };
  auto rows_new = [&] { f.Rows(0, f.RowBlocks(), lanes.get(), out.data(), 1, R(1), buf.get()); };

  const double plain =
      MinMs([&] { pf::c2c<R>({n}, {cs}, {cs}, {0}, true, in.data(), ref.data(), R(1), 1); }, reps);
  const double c0 = MinMs(cols_old, reps), t0 = MinMs(twiddle_old, reps),
               r0 = MinMs(rows_old, reps);
  const double c1 = MinMs(cols_new, reps), r1 = MinMs(rows_new, reps);
  cols_new();
  rows_new();
  double err = 0, mag = 0;
  for (size_t i = 0; i < n; ++i) {
    err = std::max(err, static_cast<double>(std::abs(out[i] - ref[i])));
    mag = std::max(mag, static_cast<double>(std::abs(ref[i])));
  }
  std::printf(
      "%s pocketfft alone %.2f | earlier: columns %.2f twiddle %.2f rows %.2f = %.2f |"
      " blocked: columns %.2f rows %.2f = %.2f | max error %.1e\n",
      name, plain, c0, t0, r0, c0 + t0 + r0, c1, r1, c1 + r1, err / mag);
}

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 20;
  Run<float>("complex64 ", reps);
  Run<double>("complex128", reps);
}
