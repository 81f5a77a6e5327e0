// The panel kernel of a product of few rows (Note [A product of few rows streams its
// weight once], src/oar/kernels/cpu/panel_gemm.h) against oneDNN, plain and with B
// packed once (onednn::PackedGemm, Note [A recurrent weight is packed once]), on a
// recurrent layer's steps: `steps` products with one B and new A and C, as the fused
// RNN runs them. For each shape, the time of the steps with B packed first (the pack
// inside the time, as a layer pays it once per call), ms, in rounds that take the three
// in turn, best of the rounds; and the largest difference of each from the plain
// oneDNN result (the panel kernel sums every output in k's order; oneDNN's order is its
// kernel's). The rows are the LSTM model's steps (batch 20, hidden 512), the GRU's,
// wider and narrower layers, and a sweep of row counts that sets kMinPanelRows and
// kMaxPanelRows.
//
//   bash benchmarks/blas/panel_gemm.sh [--out FILE] [--build DIR] [rounds]
//
// Needs a CPU with AVX2 at least; the panel kernel runs its AVX-512 tile where dispatch
// allows AVX-512, else its AVX2 one (OAR_MAX_CPU_ISA=avx2 picks that on any CPU).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "oar/core/cpu_isa.h"
#include "oar/kernels/cpu/matmul_onednn.h"
#include "oar/kernels/cpu/panel_gemm.h"

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Shape {
  const char* name;
  int64_t m, n, k;
  bool tb;  // B read transposed (the forward step's h @ w_hh^T)
};

std::vector<float> Values(size_t size, unsigned seed) {
  std::vector<float> v(size);
  for (size_t i = 0; i < size; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = static_cast<float>(seed >> 8) / static_cast<float>(1u << 24) - 0.5f;
  }
  return v;
}

void Row(const Shape& s, int steps, int rounds) {
  const auto a = Values(static_cast<size_t>(steps * s.m * s.k), 1);
  const auto b = Values(static_cast<size_t>(s.n * s.k), 2);
  const int64_t ldb = s.tb ? s.k : s.n;
  std::vector<float> c_plain(steps * s.m * s.n), c_packed(c_plain.size()), c_panel(c_plain.size());
  const auto plain = [&] {
    for (int t = 0; t < steps; ++t) {
      oar::onednn::Gemm(false, s.tb, s.m, s.n, s.k, a.data() + t * s.m * s.k, s.k, b.data(), ldb,
                        0.0f, c_plain.data() + t * s.m * s.n, s.n);
    }
  };
  const auto packed = [&] {
    const oar::onednn::PackedGemm g(s.tb, s.m, s.n, s.k, s.k, b.data(), ldb, 0.0f, s.n);
    for (int t = 0; t < steps; ++t)
      g.Run(a.data() + t * s.m * s.k, c_packed.data() + t * s.m * s.n);
  };
  const auto panel = [&] {
    const oar::cpu::PanelGemm g(s.tb, s.m, s.n, s.k, s.k, b.data(), ldb, 0.0f, s.n);
    for (int t = 0; t < steps; ++t) g.Run(a.data() + t * s.m * s.k, c_panel.data() + t * s.m * s.n);
  };
  double best[3] = {1e9, 1e9, 1e9};
  for (int r = 0; r < rounds; ++r) {
    double t0 = Now();
    plain();
    best[0] = std::min(best[0], Now() - t0);
    t0 = Now();
    packed();
    best[1] = std::min(best[1], Now() - t0);
    t0 = Now();
    panel();
    best[2] = std::min(best[2], Now() - t0);
  }
  double diff_packed = 0, diff_panel = 0;
  for (size_t i = 0; i < c_plain.size(); ++i) {
    diff_packed = std::max(diff_packed, double(std::fabs(c_packed[i] - c_plain[i])));
    diff_panel = std::max(diff_panel, double(std::fabs(c_panel[i] - c_plain[i])));
  }
  const double gflop = 2.0 * steps * s.m * s.n * s.k / 1e9;
  std::printf("| %s | %ld x %ld x %ld%s | %.3f | %.3f | %.3f | %.2f | %.0f | %.1e | %.1e |\n",
              s.name, long(s.m), long(s.n), long(s.k), s.tb ? " (B^T)" : "", best[0] * 1e3,
              best[1] * 1e3, best[2] * 1e3, best[2] / std::min(best[0], best[1]), gflop / best[2],
              diff_packed, diff_panel);
}

}  // namespace

int main(int argc, char** argv) {
  if (!oar::cpu::PanelGemm::Runs(oar::cpu::kMinPanelRows)) {
    std::puts("the panel kernel does not run on this CPU (it needs AVX2)");
    return 0;
  }
  const int steps = 35, rounds = argc > 1 ? std::atoi(argv[1]) : 20;
  std::printf(
      "%d steps with one B, best of %d rounds (plain, packed, panel in turn), ms; the panel "
      "kernel's %s tile\n\n",
      steps, rounds, oar::CpuIsaAllowed(oar::CpuIsa::kAvx512) ? "AVX-512" : "AVX2");
  std::puts(
      "| shape | M x N x K | oneDNN | oneDNN, B packed | panel | panel / faster | panel GFLOP/s "
      "| packed - plain | panel - plain |");
  std::puts("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  const Shape shapes[] = {
      {"LSTM step", 20, 2048, 512, true},
      {"LSTM step gradient", 20, 512, 2048, false},
      {"LSTM layer 1 of the model: input 256", 20, 2048, 256, true},
      {"GRU step", 20, 1536, 512, true},
      {"GRU step gradient", 20, 512, 1536, false},
      {"hidden 1024", 20, 4096, 1024, true},
      {"hidden 1024, gradient", 20, 1024, 4096, false},
      {"hidden 128", 20, 512, 128, true},
      {"batch 1", 1, 2048, 512, true},
      {"batch 4", 4, 2048, 512, true},
      {"batch 8", 8, 2048, 512, true},
      {"batch 8, gradient", 8, 512, 2048, false},
      {"batch 16", 16, 2048, 512, true},
      {"batch 24", 24, 2048, 512, true},
      {"batch 32", 32, 2048, 512, true},
      {"batch 48", 48, 2048, 512, true},
      {"batch 48, gradient", 48, 512, 2048, false},
      {"batch 64", 64, 2048, 512, true},
      {"batch 64, gradient", 64, 512, 2048, false},
      {"batch 96", 96, 2048, 512, true},
  };
  for (const Shape& s : shapes) Row(s, steps, rounds);
  return 0;
}
