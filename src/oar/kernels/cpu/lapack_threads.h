// How many OpenMP threads OpenBLAS's LAPACK may use inside one call (the LAPACK
// kernels: lapack_kernels.cc, lapack_eigh.cc).
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>

#include "oar/core/parallel.h"

namespace oar {

// OpenBLAS's LAPACK (OpenMP build) opens a parallel region per panel step of a
// factorisation. A worker asleep between regions (GOMP_SPINCOUNT, Note [OpenMP's
// spinning and oar's pool]) can wait a scheduler slice to wake on a shared machine,
// once per region: solve at 512 took 7.7x PyTorch's time that way, 0.5x on one
// thread (docs/linalg.md, benchmarks/linalg.py). So a factorisation runs on the calling
// thread alone unless its matrix is large enough (about n^3 >= 2e9, n >~ 1260) that
// its serial time dwarfs a few scheduler slices. omp_set_num_threads changes only the
// calling thread's setting, which OpenBLAS reads at each call; the guard restores it.
class LapackThreads {
 public:
  LapackThreads(int64_t rows, int64_t cols) {
    // oar's pool sizes itself from omp_get_max_threads() on first use; reading it
    // first keeps a pool first used under this guard from being sized to one.
    detail::IntraOpThreads();
    if (Serial(rows, cols) && omp_get_max_threads() > 1) {
      saved_ = omp_get_max_threads();
      omp_set_num_threads(1);
    }
  }
  ~LapackThreads() {
    if (saved_ > 0) omp_set_num_threads(saved_);
  }
  LapackThreads(const LapackThreads&) = delete;
  LapackThreads& operator=(const LapackThreads&) = delete;

  // Whether LAPACK on a rows x cols matrix runs on the calling thread alone.
  static bool Serial(int64_t rows, int64_t cols) {
    const double big = static_cast<double>(std::max(rows, cols));
    const double small = static_cast<double>(std::min(rows, cols));
    return big * small * small < kThreadedCost;
  }

 private:
  static constexpr double kThreadedCost = 2e9;
  int saved_ = 0;
};

}  // namespace oar
