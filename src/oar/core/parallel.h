// Intra-op parallelism: large loops are split over the intra-op thread pool
// (core/thread_pool.h), small ones run inline so 1-element ops never touch it.
//
// Note [A late worker never delays an op]
// OpenMP's fork-join ends every region at a barrier that waits for each team
// thread to arrive. When another process holds the other core (a build, a
// second training job), a team thread waits for the scheduler's next time slice
// and a 7-microsecond add took 8 ms (measured: 65,536-element add, two threads,
// load average 1.4 on two cores; PyTorch, also on OpenMP, showed the same).
// ParallelFor therefore hands its chunks out through atomic counters that the
// calling thread draws from as well (one contiguous range of chunks per thread,
// and a thread that has emptied its own takes what is left of the others': Note
// [Each thread walks its own range of chunks] in thread_pool.cc): a worker that
// wakes up late finds nothing left and goes back to sleep, and the op costs at most its serial time
// plus the part a late worker took. Each thread's share is cut in at least four chunks (finer for
// long loops), so that part is small. No kernel's result depends on where the chunks end (kernels
// are tested at 1, 2 and 3 threads; the reductions fix their own blocks).
#pragma once

#include <algorithm>
#include <cstdint>

#include "oar/core/flags.h"

namespace oar {

inline int64_t ParallelThreshold() {
  return GlobalFlags().parallel_threshold.load(std::memory_order_relaxed);
}

namespace detail {
// Runs body(ctx, c) for every c in [0, chunks) on the pool's workers and the
// calling thread; returns when all have finished and rethrows the first
// exception a chunk threw.
void RunChunks(int64_t chunks, void (*body)(void*, int64_t), void* ctx);
// True on a thread that is running a chunk (nested loops then run inline).
bool InParallelRegion();
// Threads ParallelFor splits work over (the caller included): OMP_NUM_THREADS,
// else the CPUs this process may run on.
int64_t IntraOpThreads();
}  // namespace detail

// While it lives, the calling thread's OpenMP thread count is 1 (Note [Libraries
// inside a chunk run on one thread] in thread_pool.cc): a library call made under it
// (BLAS, oneDNN) runs on this thread alone.
class OneOpenMPThread {
 public:
  OneOpenMPThread();
  ~OneOpenMPThread();
  OneOpenMPThread(const OneOpenMPThread&) = delete;
  OneOpenMPThread& operator=(const OneOpenMPThread&) = delete;

 private:
  int saved_;
};

// Calls f(begin, end) on disjoint chunks covering [begin, end). `cost` is the
// work per index in element-operations; the loop is split only when the total
// passes the parallel threshold.
template <typename F>
void ParallelFor(int64_t begin, int64_t end, int64_t cost, F&& f) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  if (n * std::max<int64_t>(cost, 1) < ParallelThreshold() || detail::InParallelRegion()) {
    f(begin, end);
    return;
  }
  // At least four chunks per thread: a worker that wakes after the caller has started
  // takes a quarter of a share, not half the loop, so its lateness costs less. A long
  // loop is cut finer, into chunks of about four thresholds' work, so that the thread
  // that finishes first waits at most one such chunk for the other (gelu over 2^20
  // floats: 8 chunks of 25 us left one core idle for up to a chunk at the end).
  const int64_t threads = detail::IntraOpThreads();
  const int64_t work = n * std::max<int64_t>(cost, 1);
  const int64_t fine =
      std::clamp<int64_t>(work / (4 * ParallelThreshold()), 4 * threads, 64 * threads);
  const int64_t chunks = threads <= 1 ? 1 : std::min(n, fine);
  if (chunks <= 1) {
    f(begin, end);
    return;
  }
  const int64_t size = (n + chunks - 1) / chunks;
  auto chunk = [&](int64_t c) {
    const int64_t b = begin + c * size;
    const int64_t e = std::min(end, b + size);
    if (b < e) f(b, e);
  };
  detail::RunChunks(
      chunks, [](void* p, int64_t c) { (*static_cast<decltype(chunk)*>(p))(c); }, &chunk);
}

}  // namespace oar
