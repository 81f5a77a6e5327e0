// GEMM throughput of oar::api::matmul against calling the same BLAS directly
// (cblas_sgemm / cblas_dgemm) on the same input buffers, for square float32
// and float64 matrices. The ratio oar/BLAS shows what oar's dispatch, output
// allocation and kernel wrapper cost on top of the BLAS call.
//
// Each measurement: 2 warm-up calls, then the best of kSamples samples; a
// sample repeats the call enough times to last >= kMinSampleSeconds, so small
// sizes are not timer-bound.
//
// OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE change OpenBLAS's kernels and blocking;
// benchmarks/run_cpp_benchmarks.sh unsets them before running this program,
// and the program prints what it saw.
//
//   usage: oar_bench_gemm [sizes...]   (default 256 1024 2048)
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <type_traits>
#include <vector>

#include "oar/api/api.h"
#include "oar/oar.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kSamples = 5;
constexpr double kMinSampleSeconds = 0.05;

double Seconds(const std::function<void()>& fn) {
  const auto t0 = Clock::now();
  fn();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Best seconds per call of fn.
double BestSecondsPerCall(const std::function<void()>& fn) {
  fn();
  const double first = Seconds(fn);  // second warm-up call, also sizes the samples
  const int reps = std::max(1, int(kMinSampleSeconds / std::max(first, 1e-9)));
  double best = 1e300;
  for (int s = 0; s < kSamples; ++s) {
    best = std::min(best, Seconds([&] {
                            for (int r = 0; r < reps; ++r) fn();
                          }) / reps);
  }
  return best;
}

const char* EnvOr(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

template <typename T>
void BenchOne(int64_t n, oar::DType dtype, const char* dtype_name) {
  const oar::Tensor a = oar::api::uniform({n, n}, dtype, -1.0, 1.0);
  const oar::Tensor b = oar::api::uniform({n, n}, dtype, -1.0, 1.0);
  // BLAS writes into one preallocated buffer, while oar allocates a fresh
  // output per call: that allocation is part of oar's cost being measured.
  std::vector<T> c(size_t(n) * n);
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();

  const double t_oar = BestSecondsPerCall([&] { oar::Tensor out = oar::api::matmul(a, b); });
  const double t_blas = BestSecondsPerCall([&] {
    if constexpr (std::is_same_v<T, float>) {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, pa, n, pb, n, 0.0f,
                  c.data(), n);
    } else {
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, pa, n, pb, n, 0.0,
                  c.data(), n);
    }
  });

  const double flop = 2.0 * double(n) * n * n;
  std::printf("%-8s %6lld %12.1f %12.1f %10.3f %12.3f\n", dtype_name, (long long)n,
              flop / t_oar * 1e-9, flop / t_blas * 1e-9, t_blas / t_oar, t_oar * 1e3);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int64_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoll(argv[i]));
  if (sizes.empty()) sizes = {256, 1024, 2048};

  std::printf("oar GEMM vs direct CBLAS, square C = A @ B, best of %d samples after warm-up\n",
              kSamples);
#ifdef OPENBLAS_VERSION
  std::printf("BLAS: %s, %d threads\n", openblas_get_config(), openblas_get_num_threads());
#endif
  std::printf(
      "env: OPENBLAS_CORETYPE=%s OPENBLAS_L2_SIZE=%s OPENBLAS_NUM_THREADS=%s OMP_NUM_THREADS=%s\n",
      EnvOr("OPENBLAS_CORETYPE", "<unset>"), EnvOr("OPENBLAS_L2_SIZE", "<unset>"),
      EnvOr("OPENBLAS_NUM_THREADS", "<unset>"), EnvOr("OMP_NUM_THREADS", "<unset>"));
  std::printf("(ratio = oar GFLOP/s / BLAS GFLOP/s; 1.0 means no overhead)\n\n");
  std::printf("%-8s %6s %12s %12s %10s %12s\n", "dtype", "n", "oar GFLOP/s", "BLAS GFLOP/s",
              "ratio", "oar ms/call");

  oar::seed(0);
  for (int64_t n : sizes) BenchOne<float>(n, oar::DType::kFloat32, "float32");
  for (int64_t n : sizes) BenchOne<double>(n, oar::DType::kFloat64, "float64");
  return 0;
}
