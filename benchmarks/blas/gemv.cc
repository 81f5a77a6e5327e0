// Products with one output row, as a linear layer at batch 1 makes (ResNet-18's
// classifier, [1, 512] x [512, 1000]; a decoder's layers when it generates one token),
// on the BLAS oar links: its GEMM against its GEMV on the same buffers (Note [A product
// with one row or column is a GEMV] in src/oar/kernels/cpu/gemm.h), and oar's linear
// on each shape, which runs the GEMV. Each shape twice: the weight hot (the same call
// repeated) and cold (64 MiB written between calls, as in a model, where other layers
// ran since the weight was last read). Figures: the median of 200 calls, microseconds.
//
//   g++ -O2 -std=c++20 -fopenmp -Isrc -Ibuild/generated benchmarks/blas/gemv.cc -Lbuild \
//     -loar -lopenblas -Wl,-rpath,$PWD/build -o /tmp/gemv && \
//     GOMP_SPINCOUNT=1000 OMP_NUM_THREADS=2 /tmp/gemv [--out benchmarks/results/gemv.md]
//
// GOMP_SPINCOUNT=1000 is what `import oar` sets (Note [OpenMP's spinning and oar's pool]).
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "oar/api/api.h"
#include "oar/oar.h"

namespace {

double MedianMicros(const std::function<void()>& call, const std::function<void()>& between) {
  for (int i = 0; i < 20; ++i) call();
  std::vector<double> t;
  for (int i = 0; i < 200; ++i) {
    between();
    const auto t0 = std::chrono::steady_clock::now();
    call();
    t.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(t.begin(), t.begin() + 100, t.end());
  return t[100];
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown CPU";
}

}  // namespace

int main(int argc, char** argv) {
  const char* out_path = argc > 2 && std::strcmp(argv[1], "--out") == 0 ? argv[2] : nullptr;
  std::vector<char> flush(64 << 20);
  const std::function<void()> hot = [] {}, cold = [&] {
    std::fill(flush.begin(), flush.end(), static_cast<char>(flush[0] + 1));
  };
  std::ostringstream md;
  char date[16];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::localtime(&now));
  md << "# benchmarks/blas/gemv.cc: a product with one output row, GEMM or GEMV\n\n"
     << "`GOMP_SPINCOUNT=1000 OMP_NUM_THREADS=2 /tmp/gemv` (the build command is in the "
     << "source), " << date << "\n\n"
     << "Machine: " << CpuModel() << ", " << omp_get_max_threads() << " threads. Float32 [1, k] x "
     << "[k, n], microseconds, the median of 200 calls; cold: 64 MiB written before each call.\n\n"
     << "| k x n | BLAS GEMM hot | BLAS GEMV hot | oar linear hot | BLAS GEMM cold | "
     << "BLAS GEMV cold | oar linear cold |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  const std::pair<int64_t, int64_t> shapes[] = {
      {512, 1000}, {768, 768}, {1000, 1000}, {1024, 4096}, {4096, 1024}};
  for (const auto& [k, n] : shapes) {
    std::vector<float> x(k, 0.5f), w(k * n, 0.25f), y(n);
    const oar::Tensor xt = oar::full({1, k}, 0.5), wt = oar::full({k, n}, 0.25),
                      bt = oar::full({n}, 0.0);
    const std::function<void()> calls[] = {
        [&] {
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, n, k, 1.0f, x.data(), k,
                      w.data(), n, 0.0f, y.data(), n);
        },
        [&] {
          cblas_sgemv(CblasRowMajor, CblasTrans, k, n, 1.0f, w.data(), n, x.data(), 1, 0.0f,
                      y.data(), 1);
        },
        [&] { oar::api::linear(xt, wt, bt); }};
    md << "| " << k << " x " << n;
    for (const auto* between : {&hot, &cold}) {
      for (const auto& call : calls) {
        char cell[32];
        std::snprintf(cell, sizeof cell, " | %.1f", MedianMicros(call, *between));
        md << cell;
      }
    }
    md << " |\n";
  }
  std::fputs(md.str().c_str(), stdout);
  if (out_path != nullptr) std::ofstream(out_path) << md.str();
  return 0;
}
