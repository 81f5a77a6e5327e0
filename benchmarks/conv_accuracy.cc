// The float32 forward convolution's summation orders, for benchmarks/conv_accuracy.py
// (which computes the float64 reference and the errors): oar's two engines
// (src/oar/kernels/cpu/conv_impl.h) with their sum over C_in * K products in the
// kernels' blocks and in one piece (conv_engine::Sum, Note [The forward convolution
// sums in blocks]), and a variant oar does not have: the GEMM path's 144-row blocks
// added in float64, rounded once.
//
//   usage: oar_bench_conv_accuracy DIR N C H W C_OUT KH KW STRIDE PAD REPEAT
//
// Reads DIR/x.bin [N, C, H, W] and DIR/w.bin [C_OUT, C, KH, KW] (float32, C order),
// writes DIR/<variant>.bin (the output, float32) and prints one line per variant:
// its name, its best call in ms and the best call's CPU time on the calling thread in
// ms (which excludes time the thread spent preempted; on one thread it is the whole
// call). After a first call each (the output written), the variants take turns,
// REPEAT rounds, so a disturbed stretch of a shared machine falls on all of them
// alike. A turn is three calls of one variant, the last two timed, and each round
// starts one variant later than the one before, so that every variant follows every
// other equally often: a 1x512x7x7 3x3 convolution on oneDNN timed right after the
// GEMM rows ran 20% slower than the same call after itself, for all its calls in
// that turn. Threads: OMP_NUM_THREADS (oneDNN and OpenBLAS run on the same OpenMP
// pool as oar).
#include <cblas.h>
#include <omp.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "oar/kernels/cpu/conv_impl.h"

namespace {

using oar::conv_engine::Algo;
using oar::conv_engine::Sum;

std::vector<float> ReadFloats(const std::string& path, size_t count) {
  std::vector<float> v(count);
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr || std::fread(v.data(), sizeof(float), count, f) != count) {
    std::fprintf(stderr, "cannot read %zu floats from %s\n", count, path.c_str());
    std::exit(2);
  }
  std::fclose(f);
  return v;
}

void WriteFloats(const std::string& path, const float* p, size_t count) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(p, sizeof(float), count, f) != count) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(2);
  }
  std::fclose(f);
}

oar::DenseTensor Tensor(const oar::DDim& dims, const std::vector<float>& data) {
  oar::DenseTensor t(oar::DType::kFloat32, dims);
  t.AllocateFrom(oar::CPUPlace());
  std::copy(data.begin(), data.end(), static_cast<float*>(t.data()));
  return t;
}

// im2col + one cblas_sgemm per block of `rows` rows of the inner dimension (beta 0),
// each block's product added to a float64 sum. Samples in parallel when there are at
// least as many as threads, each GEMM then on one thread (OpenBLAS's OpenMP build runs
// single-threaded inside an active parallel region), as oar's GEMM path does.
void GemmFloat64Sum(const float* x, const float* w, const oar::WindowGeometry& g, int64_t n,
                    int64_t c, int64_t c_out, int64_t rows, float* y) {
  const int64_t H = g.in[1], W = g.in[2], OH = g.out[1], OW = g.out[2], L = OH * OW;
  const int64_t KH = g.kernel[1], KW = g.kernel[2], CK = c * KH * KW;
#pragma omp parallel if (n >= omp_get_max_threads())
  {
    std::vector<float> cols(CK * L), part(c_out * L);
    std::vector<double> sum(c_out * L);
#pragma omp for schedule(static)
    for (int64_t s = 0; s < n; ++s) {
      const float* xs = x + s * c * H * W;
      for (int64_t ci = 0, row = 0; ci < c; ++ci) {
        for (int64_t kh = 0; kh < KH; ++kh) {
          for (int64_t kw = 0; kw < KW; ++kw, ++row) {
            for (int64_t oh = 0; oh < OH; ++oh) {
              const int64_t ih = oh * g.stride[1] - g.pad_before[1] + kh;
              for (int64_t ow = 0; ow < OW; ++ow) {
                const int64_t iw = ow * g.stride[2] - g.pad_before[2] + kw;
                const bool in = ih >= 0 && ih < H && iw >= 0 && iw < W;
                cols[row * L + oh * OW + ow] = in ? xs[(ci * H + ih) * W + iw] : 0.0f;
              }
            }
          }
        }
      }
      std::fill(sum.begin(), sum.end(), 0.0);
      for (int64_t k0 = 0; k0 < CK; k0 += rows) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, c_out, L, std::min(rows, CK - k0),
                    1.0f, w + k0, CK, cols.data() + k0 * L, L, 0.0f, part.data(), L);
        for (int64_t i = 0; i < c_out * L; ++i) sum[i] += part[i];
      }
      float* ys = y + s * c_out * L;
      for (int64_t i = 0; i < c_out * L; ++i) ys[i] = static_cast<float>(sum[i]);
    }
  }
}

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 12) {
    std::fprintf(stderr, "usage: %s DIR N C H W C_OUT KH KW STRIDE PAD REPEAT\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  int64_t v[10];
  for (int i = 0; i < 10; ++i) v[i] = std::atoll(argv[2 + i]);
  const int64_t n = v[0], c = v[1], h = v[2], wd = v[3], c_out = v[4], kh = v[5], kw = v[6];
  const int64_t stride = v[7], pad = v[8];
  const int repeat = static_cast<int>(v[9]);
  const oar::DDim xd{n, c, h, wd}, wdims{c_out, c, kh, kw};
  const oar::WindowGeometry g =
      oar::ConvGeometry(xd, wdims, {stride, stride}, {pad, pad, pad, pad}, {1, 1}, 1);
  const oar::DDim yd{n, c_out, g.out[1], g.out[2]};
  const oar::DenseTensor x = Tensor(xd, ReadFloats(dir + "/x.bin", n * c * h * wd));
  const oar::DenseTensor w = Tensor(wdims, ReadFloats(dir + "/w.bin", c_out * c * kh * kw));
  oar::DenseTensor y(oar::DType::kFloat32, yd);
  y.AllocateFrom(oar::CPUPlace());
  std::vector<std::pair<const char*, std::function<void()>>> variants;
  if (oar::conv_engine::OneDnnSupports(oar::DType::kFloat32, g)) {
    variants.emplace_back("onednn_whole", [&] {
      oar::conv_engine::Forward(Algo::kOneDnn, x, w, g, 1, &y, Sum::kWhole);
    });
    variants.emplace_back("onednn_blocked", [&] {
      oar::conv_engine::Forward(Algo::kOneDnn, x, w, g, 1, &y, Sum::kBlocked);
    });
  }
  variants.emplace_back(
      "gemm_whole", [&] { oar::conv_engine::Forward(Algo::kGemm, x, w, g, 1, &y, Sum::kWhole); });
  variants.emplace_back("gemm_blocked", [&] {
    oar::conv_engine::Forward(Algo::kGemm, x, w, g, 1, &y, Sum::kBlocked);
  });
  variants.emplace_back("gemm_blocked_f64sum", [&] {
    GemmFloat64Sum(static_cast<const float*>(x.data()), static_cast<const float*>(w.data()), g, n,
                   c, c_out, 144, static_cast<float*>(y.data()));
  });
  for (auto& [name, fn] : variants) {
    fn();
    WriteFloats(dir + "/" + name + ".bin", static_cast<const float*>(y.data()), y.numel());
  }
  std::vector<double> best(variants.size(), 1e300), best_cpu(variants.size(), 1e300);
  for (size_t r = 0; r < static_cast<size_t>(repeat); ++r) {
    for (size_t j = 0; j < variants.size(); ++j) {
      const size_t i = (r + j) % variants.size();
      for (int call = 0; call < 3; ++call) {
        const double c0 = ThreadCpuSeconds();
        const auto t0 = std::chrono::steady_clock::now();
        variants[i].second();
        const std::chrono::duration<double> t = std::chrono::steady_clock::now() - t0;
        if (call == 0) continue;  // the first call of a turn pays for the previous variant's
        best[i] = std::min(best[i], t.count());
        best_cpu[i] = std::min(best_cpu[i], ThreadCpuSeconds() - c0);
      }
    }
  }
  for (size_t i = 0; i < variants.size(); ++i) {
    std::printf("%s %.4f %.4f\n", variants[i].first, best[i] * 1e3, best_cpu[i] * 1e3);
  }
  return 0;
}
