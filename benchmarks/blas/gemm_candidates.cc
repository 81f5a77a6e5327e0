// GEMM benchmark used to choose the BLAS that oar links (see run.sh).
//
// One binary is built per candidate library; the source only uses the CBLAS
// interface. Library-specific introspection (thread count, detected kernel)
// is looked up with dlsym so the same file builds against OpenBLAS and BLIS.
//
// Usage: gemm_candidates <label> <threads>
// Prints "#"-prefixed info lines and one table row per (routine, transB):
//   <label> <threads>T <routine> <NN|NT|NN+relu> <GFLOP/s at 256> <1024> <2048>
// Build with -fopenmp (the NN+relu row mixes in an OpenMP loop, like oar).
// Exit status is non-zero if the correctness check fails.

#include <cblas.h>
#include <dlfcn.h>
#include <omp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

template <class F>
F* sym(const char* name) {
  return reinterpret_cast<F*>(dlsym(RTLD_DEFAULT, name));
}

// Set the thread count through the library's own API (run.sh also sets the
// OPENBLAS/BLIS/OMP_NUM_THREADS variables) and report what it reports back.
void set_threads_and_describe(int threads) {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cblas_sgemm), &info) && info.dli_fname)
    std::printf("# cblas_sgemm loaded from %s\n", info.dli_fname);
  if (auto set = sym<void(int)>("openblas_set_num_threads")) {
    set(threads);
    std::printf("# OpenBLAS core=%s threads=%d config=%s\n",
                sym<char*()>("openblas_get_corename")(),
                sym<int()>("openblas_get_num_threads")(),
                sym<char*()>("openblas_get_config")());
  }
  if (auto set = sym<void(int64_t)>("bli_thread_set_num_threads")) {
    set(threads);
    int arch = sym<int()>("bli_arch_query_id")();
    std::printf("# BLIS %s arch=%s threads=%lld openmp=%d\n",
                sym<char*()>("bli_info_get_version_str")(),
                sym<char*(int)>("bli_arch_string")(arch),
                static_cast<long long>(sym<int64_t()>("bli_thread_get_num_threads")()),
                static_cast<int>(sym<int64_t()>("bli_info_get_enable_openmp")()));
  }
}

void gemm(bool transB, int m, int n, int k, float alpha, const float* a,
          const float* b, float beta, float* c) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
              m, n, k, alpha, a, k, b, transB ? k : n, beta, c, n);
}
void gemm(bool transB, int m, int n, int k, double alpha, const double* a,
          const double* b, double beta, double* c) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
              m, n, k, alpha, a, k, b, transB ? k : n, beta, c, n);
}

template <class T>
std::vector<T> random_matrix(size_t count, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<T> dist(-1, 1);
  std::vector<T> v(count);
  for (auto& x : v) x = dist(gen);
  return v;
}

// Naive reference for one entry of alpha*A*op(B) + beta*C0, plus the
// magnitude sum(|a||b|) used to scale the tolerance.
template <class T>
void reference(bool transB, int n, int k, const T* a, const T* b, int i, int j,
               double* value, double* scale) {
  double acc = 0, mag = 0;
  for (int p = 0; p < k; ++p) {
    double x = a[size_t(i) * k + p];
    double y = transB ? b[size_t(j) * k + p] : b[size_t(p) * n + j];
    acc += x * y;
    mag += std::fabs(x * y);
  }
  *value = acc;
  *scale = mag;
}

// Standard error bound for a length-k dot product: |err| <= k*eps*sum|a*b|.
template <class T>
double tolerance(int k) { return k * double(std::numeric_limits<T>::epsilon()); }

// Full comparison against a naive triple loop at a small, awkward shape.
template <class T>
bool check_small(bool transB) {
  const int m = 37, n = 53, k = 71;
  const T alpha = 1.5, beta = 0.5;
  auto a = random_matrix<T>(size_t(m) * k, 1);
  auto b = random_matrix<T>(size_t(k) * n, 2);
  auto c = random_matrix<T>(size_t(m) * n, 3);
  auto c0 = c;
  gemm(transB, m, n, k, alpha, a.data(), b.data(), beta, c.data());
  double worst = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double ref, mag;
      reference(transB, n, k, a.data(), b.data(), i, j, &ref, &mag);
      ref = alpha * ref + beta * double(c0[size_t(i) * n + j]);
      double err = std::fabs(double(c[size_t(i) * n + j]) - ref) /
                   (std::fabs(alpha) * mag + std::fabs(beta * c0[size_t(i) * n + j]));
      worst = std::max(worst, err);
    }
  return worst < tolerance<T>(k);
}

// Times one (type, transB, size) case; spot-checks entries of the result.
// With relu, every GEMM is followed by an OpenMP-parallel ReLU over C, the
// pattern oar's kernels produce (oar parallelises elementwise ops with
// OpenMP); this shows whether the BLAS thread pool and OpenMP's get in each
// other's way. Only the GEMM flops are counted; the time includes the ReLU.
template <class T>
double bench(bool transB, int n, bool relu, bool* ok) {
  auto a = random_matrix<T>(size_t(n) * n, 4);
  auto b = random_matrix<T>(size_t(n) * n, 5);
  std::vector<T> c(size_t(n) * n);
  auto run = [&] {
    gemm(transB, n, n, n, T(1), a.data(), b.data(), T(0), c.data());
    if (!relu) return;
    T* p = c.data();
    const int64_t count = int64_t(n) * n;
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < count; ++i) p[i] = p[i] > T(0) ? p[i] : T(0);  // vectorises at -O2
  };
  run();  // warm-up: thread pool start, page faults, packing buffers
  run();
  double best = 1e30, total = 0;
  for (int rep = 0; rep < 1000 && (rep < 5 || total < 0.5); ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    run();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, s);
    total += s;
  }
  std::mt19937 gen(6);
  for (int s = 0; s < 16; ++s) {
    int i = int(gen() % n), j = int(gen() % n);
    double ref, mag;
    reference(transB, n, n, a.data(), b.data(), i, j, &ref, &mag);
    if (relu) ref = std::max(ref, 0.0);
    if (std::fabs(double(c[size_t(i) * n + j]) - ref) > tolerance<T>(n) * mag) *ok = false;
  }
  return 2.0 * n * n * n / best * 1e-9;
}

// Busy CPU-seconds of the whole machine (/proc/stat) and of this process;
// their difference shows whether something else competed for the 2 cores.
double machine_busy_seconds() {
  std::ifstream f("/proc/stat");
  std::string cpu;
  long long user, nice, sys, idle, iowait, irq, softirq, steal;
  f >> cpu >> user >> nice >> sys >> idle >> iowait >> irq >> softirq >> steal;
  return double(user + nice + sys + irq + softirq + steal) / sysconf(_SC_CLK_TCK);
}
double own_cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto sec = [](timeval t) { return t.tv_sec + t.tv_usec * 1e-6; };
  return sec(ru.ru_utime) + sec(ru.ru_stime);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <label> <threads>\n", argv[0]);
    return 2;
  }
  const char* label = argv[1];
  const int threads = std::atoi(argv[2]);
  const double busy0 = machine_busy_seconds();
  const auto wall0 = std::chrono::steady_clock::now();
  set_threads_and_describe(threads);

  bool ok = check_small<float>(false) && check_small<float>(true) &&
            check_small<double>(false) && check_small<double>(true);
  std::printf("# small-shape check vs naive loop (37x53x71, alpha=1.5, beta=0.5): %s\n",
              ok ? "ok" : "FAILED");

  omp_set_num_threads(threads);
  const int sizes[] = {256, 1024, 2048};
  const char* names[] = {"NN", "NT", "NN+relu"};
  for (int dbl = 0; dbl < 2; ++dbl)
    for (int v = 0; v < (dbl ? 2 : 3); ++v) {
      std::printf("%-16s %dT %s %-7s", label, threads, dbl ? "dgemm" : "sgemm", names[v]);
      for (int n : sizes) {
        bool tb = v == 1, relu = v == 2;
        double g = dbl ? bench<double>(tb, n, relu, &ok) : bench<float>(tb, n, relu, &ok);
        std::printf(" %8.1f", g);
        std::fflush(stdout);
      }
      std::printf("\n");
    }
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  double other = machine_busy_seconds() - busy0 - own_cpu_seconds();
  std::printf("# other processes used %.1f of %.1f s wall (%.0f%% of one core)%s\n", other, wall,
              100 * other / wall, other > 0.05 * wall ? " -- CONTENDED, rerun" : "");
  if (!ok) std::printf("# CORRECTNESS CHECK FAILED for %s\n", label);
  return ok ? 0 : 1;
}
