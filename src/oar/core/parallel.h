// Intra-op parallelism: large loops are split over OpenMP threads, small ones
// run inline so 1-element ops never touch the thread pool.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <exception>

#include "oar/core/flags.h"

namespace oar {

inline int64_t ParallelThreshold() {
  return GlobalFlags().parallel_threshold.load(std::memory_order_relaxed);
}

// Calls f(begin, end) on disjoint chunks covering [begin, end). `cost` is the
// work per index in element-operations; the loop is split only when the total
// passes the parallel threshold.
template <typename F>
void ParallelFor(int64_t begin, int64_t end, int64_t cost, F&& f) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  if (n * std::max<int64_t>(cost, 1) < ParallelThreshold() || omp_in_parallel() ||
      omp_get_max_threads() == 1) {
    f(begin, end);
    return;
  }
  std::exception_ptr error;
#pragma omp parallel
  {
    const int64_t nt = omp_get_num_threads();
    const int64_t t = omp_get_thread_num();
    const int64_t chunk = (n + nt - 1) / nt;
    const int64_t b = begin + t * chunk;
    const int64_t e = std::min(end, b + chunk);
    if (b < e) {
      try {
        f(b, e);
      } catch (...) {
#pragma omp critical(oar_parallel_error)
        if (!error) error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace oar
