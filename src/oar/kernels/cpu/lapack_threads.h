// How many OpenMP threads OpenBLAS's LAPACK may use inside one call (the LAPACK
// kernels: lapack_kernels.cc, lapack_eigh.cc). Calls inside a ParallelFor body run on
// one thread already (Note [Libraries inside a chunk run on one thread]).
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
// its serial time dwarfs a few scheduler slices; `weight` scales that cost for drivers
// whose parallel regions are long for their size (gesdd: 2, so n >= ~1000 threads, where
// two threads cut 1024's SVD from 340 to 282 ms on an AVX2 EPYC and 768's gains under
// 10%, docs/linalg.md). omp_set_num_threads changes only the
// calling thread's setting, which OpenBLAS reads at each call; the guard restores it.
class LapackThreads {
 public:
  LapackThreads(int64_t rows, int64_t cols, double weight = 1.0) {
    // oar's pool sizes itself from omp_get_max_threads() on first use; reading it
    // first keeps a pool first used under this guard from being sized to one.
    detail::IntraOpThreads();
    if (Serial(rows, cols, weight) && omp_get_max_threads() > 1) {
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
  static bool Serial(int64_t rows, int64_t cols, double weight = 1.0) {
    const double big = static_cast<double>(std::max(rows, cols));
    const double small = static_cast<double>(std::min(rows, cols));
    return weight * big * small * small < kThreadedCost;
  }

 private:
  static constexpr double kThreadedCost = 2e9;
  int saved_ = 0;
};

// Runs task(i) for i in [0, tasks) on the pool, each LAPACK/BLAS call on one thread
// (Note [Libraries inside a chunk run on one thread] in core/thread_pool.cc). `cost`
// is one task's work, for ParallelFor's threshold.
template <typename F>
void RunTasks(int tasks, int64_t cost, F&& task) {
  ParallelFor(0, tasks, cost, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) task(static_cast<int>(i));
  });
}

}  // namespace oar
