// grad() runs only the sub-graph it needs (not a test). On a chain
// y = f_1000(...f_1(x)) with h = f_990(...), grad(y, h) should cost a small
// fraction of grad(y, x): it executes 10 nodes and never walks the other 990.
//
//   build/benchmarks/oar_bench_grad_pruning
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "oar/oar.h"

namespace {

template <typename F>
double BestUs(F&& f, int reps) {
  double best = 1e300;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  return best;
}

}  // namespace

int main() {
  constexpr int kLength = 1000, kNearOutput = 990;
  oar::Tensor x = oar::ones({16});
  x.set_stop_gradient(false);
  oar::Tensor y = x, h;
  for (int i = 0; i < kLength; ++i) {
    y = oar::tanh(oar::scale(y, 0.5));
    if (i == kNearOutput - 1) h = y;
  }
  oar::GradOptions keep;
  keep.retain_graph = true;
  const double near = BestUs([&] { oar::Grad({y}, {h}, {}, keep); }, 50);
  const auto near_stats = oar::LastBackwardStats();
  const double full = BestUs([&] { oar::Grad({y}, {x}, {}, keep); }, 50);
  const auto full_stats = oar::LastBackwardStats();
  std::printf("chain of %d ops (%d nodes), h after op %d\n", kLength, 2 * kLength, kNearOutput);
  std::printf("%-12s %10s %10s %10s\n", "grad", "us", "visited", "executed");
  std::printf("%-12s %10.1f %10lld %10lld\n", "grad(y, h)", near,
              static_cast<long long>(near_stats.nodes_visited),
              static_cast<long long>(near_stats.nodes_executed));
  std::printf("%-12s %10.1f %10lld %10lld\n", "grad(y, x)", full,
              static_cast<long long>(full_stats.nodes_visited),
              static_cast<long long>(full_stats.nodes_executed));
  std::printf("grad(y, h) / grad(y, x) = %.3f\n", near / full);
  return 0;
}
