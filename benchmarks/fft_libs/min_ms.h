// The figure the FFT harnesses here report: the process CPU time of the fastest of
// `reps` calls after a warm-up call, ms (on a shared machine, the one that survives
// other processes' load).
#pragma once

#include <algorithm>
#include <ctime>
#include <functional>

inline double MinMs(const std::function<void()>& f, int reps = 15) {
  f();
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    timespec a, b;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    f();
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    best = std::min(best, (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) * 1e-6);
  }
  return best;
}
