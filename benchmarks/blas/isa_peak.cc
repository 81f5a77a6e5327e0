// The instruction-level ceiling of a GEMM on this CPU: GFLOP/s of back-to-back
// AVX-512 vfmadd231ps (float32) and vdpbf16ps (bfloat16 pairs, float32
// accumulation) on 24 independent accumulators per thread, so only throughput
// binds. 24, not 12: on Zen 5 vdpbf16ps issues twice a cycle with a latency of
// about six, and 12 chains held it to 1.70-1.85x the FMA's rate (the figure an
// earlier version of this file printed); 24 give 2.00x. The FMA's rate is the
// same with either. A GEMM's efficiency is its GFLOP/s over this peak; the bf16/f32 ratio
// of the two peaks bounds how much faster a bf16 GEMM can be than a float32 one
// (docs/amp.md, "Where the targets stand").
//
//   g++ -O2 -std=c++20 -pthread benchmarks/blas/isa_peak.cc -o /tmp/isa_peak && /tmp/isa_peak
//
// The kernels carry target attributes and run only if the CPU reports the
// feature, so the program builds and runs on any x86-64 machine.
#include <immintrin.h>

#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

namespace {

constexpr long kIters = 50'000'000;
constexpr int kAcc = 24;

__attribute__((target("avx512f"))) double Fma() {
  __m512 acc[kAcc];
  for (auto& a : acc) a = _mm512_setzero_ps();
  const __m512 x = _mm512_set1_ps(1e-9f);
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < kIters; ++i) {
#pragma GCC unroll 24
    for (auto& a : acc) a = _mm512_fmadd_ps(x, x, a);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  float sink = 0;
  for (auto& a : acc) sink += _mm512_reduce_add_ps(a);
  if (sink < 0) std::printf("%g", sink);  // keeps the loop alive
  return kIters * kAcc * 32.0 / s / 1e9;  // 16 lanes x (multiply + add)
}

__attribute__((target("avx512f,avx512bf16"))) double Bf16Dot() {
  __m512 acc[kAcc];
  for (auto& a : acc) a = _mm512_setzero_ps();
  const auto b = (__m512bh)_mm512_set1_epi16(0x3f80);  // bf16 1.0
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < kIters; ++i) {
#pragma GCC unroll 24
    for (auto& a : acc) a = _mm512_dpbf16_ps(a, b, b);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  float sink = 0;
  for (auto& a : acc) sink += _mm512_reduce_add_ps(a);
  if (sink < 0) std::printf("%g", sink);
  return kIters * kAcc * 64.0 / s / 1e9;  // 16 lanes x 2 pairs x (multiply + add)
}

double OnThreads(int threads, double (*kernel)()) {
  std::vector<double> r(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back([&r, t, kernel] { r[t] = kernel(); });
  for (auto& t : pool) t.join();
  double total = 0;
  for (double v : r) total += v;
  return total;
}

}  // namespace

int main() {
  if (!__builtin_cpu_supports("avx512f")) {
    std::printf("no AVX-512 on this CPU: nothing to measure\n");
    return 0;
  }
  const bool bf16 = __builtin_cpu_supports("avx512bf16");
  std::printf("| threads | vfmadd231ps GFLOP/s | vdpbf16ps GFLOP/s | bf16/f32 |\n");
  std::printf("| ---: | ---: | ---: | ---: |\n");
  for (int threads : {1, 2}) {
    const double f = OnThreads(threads, Fma);
    if (bf16) {
      const double b = OnThreads(threads, Bf16Dot);
      std::printf("| %d | %.0f | %.0f | %.2f |\n", threads, f, b, b / f);
    } else {
      std::printf("| %d | %.0f | n/a (no avx512_bf16) | n/a |\n", threads, f);
    }
  }
}
