// Convolution engines side by side: im2col + GEMM (OpenBLAS) against oneDNN,
// for each pass (forward, backward data, backward weights) at the shapes that
// matter for a small Fashion-MNIST CNN (batch 64: 1->32 channels at 28x28 and
// 32->64 at 14x14, 3x3, padding 1), a 1x1 and a strided convolution. It calls
// the engines of src/oar/kernels/cpu/conv_impl.h directly on the same buffers;
// the last column is the engine conv_engine::Choose picks (the kernels' choice), which
// is set from this program's output (docs/benchmarks.md, "Convolution").
//
// Each measurement: a warm-up call, then the best of kSamples samples of
// repeated calls lasting >= kMinSampleSeconds each. Threads: OMP_NUM_THREADS
// (oneDNN runs on the same OpenMP pool).
//
//   usage: oar_bench_conv [float64] [resnet18 | depthwise | winograd]   (default float32; oneDNN
//          is float32 only; resnet18: the forward pass of ResNet-18's convolutions at
//          batch 1 and 16, 224x224 input, instead of the CNN's shapes; depthwise: every
//          pass of MobileNetV2's depthwise convolutions at batch 8, a 5x5 depthwise and
//          two grouped convolutions with 2 and 3 channels per group; winograd: oar's
//          Winograd F(2x2, 3x3) against oneDNN on every pass of ResNet-18's 3x3 stride-1
//          convolutions at batch 1, 8 and 16)
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "oar/core/cpu_isa.h"
#include "oar/kernels/cpu/conv_impl.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kSamples = 60;
constexpr double kMinSampleSeconds = 0.002;

double Seconds(const std::function<void()>& fn) {
  const auto t0 = Clock::now();
  fn();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double BestSecondsPerCall(const std::function<void()>& fn) {
  fn();
  const double first = Seconds(fn);
  const int reps = std::max(1, int(kMinSampleSeconds / std::max(first, 1e-9)));
  double best = 1e300;
  for (int s = 0; s < kSamples; ++s) {
    best = std::min(best, Seconds([&] {
                            for (int r = 0; r < reps; ++r) fn();
                          }) / reps);
  }
  return best;
}

oar::DenseTensor Random(oar::DType dtype, const oar::DDim& dims, std::mt19937* rng) {
  oar::DenseTensor t(dtype, dims);
  t.AllocateFrom(oar::CPUPlace());
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (dtype == oar::DType::kFloat32) {
      static_cast<float*>(t.data())[i] = float(u(*rng));
    } else {
      static_cast<double*>(t.data())[i] = u(*rng);
    }
  }
  return t;
}

struct Shape {
  const char* name;
  int64_t n, c_in, c_out, h, w, k, stride, pad;
  int64_t groups = 1;
};

const char* AlgoName(oar::conv_engine::Algo a) {
  using oar::conv_engine::Algo;
  return a == Algo::kGemm ? "gemm" : a == Algo::kOneDnn ? "onednn" : "winograd";
}

// A shape's operands and outputs for every pass, and the time of one pass by one engine.
struct Operands {
  oar::WindowGeometry g;
  oar::DenseTensor x, w, dy, y, dx, dw;
  int64_t groups;

  Operands(const Shape& s, oar::DType dtype, std::mt19937* rng) : groups(s.groups) {
    const oar::DDim xd{s.n, s.c_in, s.h, s.w}, wd{s.c_out, s.c_in / s.groups, s.k, s.k};
    g = oar::ConvGeometry(xd, wd, {s.stride, s.stride}, {s.pad, s.pad, s.pad, s.pad}, {1, 1},
                          s.groups);
    const oar::DDim yd{s.n, s.c_out, g.out[1], g.out[2]};
    x = Random(dtype, xd, rng);
    w = Random(dtype, wd, rng);
    dy = Random(dtype, yd, rng);
    y = oar::DenseTensor(dtype, yd);
    dx = oar::DenseTensor(dtype, xd);
    dw = oar::DenseTensor(dtype, wd);
    for (oar::DenseTensor* t : {&y, &dx, &dw}) t->AllocateFrom(oar::CPUPlace());
  }

  double Seconds(oar::conv_engine::Algo a, oar::conv_engine::Pass pass) {
    using oar::conv_engine::Pass;
    return BestSecondsPerCall([&] {
      switch (pass) {
        case Pass::kForward:
          oar::conv_engine::Forward(a, x, w, g, groups, &y);
          break;
        case Pass::kBackwardData:
          oar::conv_engine::BackwardData(a, dy, w, g, groups, &dx);
          break;
        case Pass::kBackwardWeights:
          oar::conv_engine::BackwardWeights(a, x, dy, g, groups, &dw);
          break;
      }
    });
  }
};

constexpr const char* kPassNames[] = {"forward", "backward data", "backward weights"};

void BenchShape(const Shape& s, oar::DType dtype, std::mt19937* rng, bool forward_only = false) {
  using oar::conv_engine::Algo;
  using oar::conv_engine::Pass;
  Operands ops(s, dtype, rng);
  const bool onednn = oar::conv_engine::OneDnnSupports(dtype, ops.g);
  for (Pass pass : {Pass::kForward, Pass::kBackwardData, Pass::kBackwardWeights}) {
    if (forward_only && pass != Pass::kForward) continue;
    const double t_gemm = ops.Seconds(Algo::kGemm, pass);
    const double t_dnnl = onednn ? ops.Seconds(Algo::kOneDnn, pass) : 0.0;
    const Algo chosen =
        oar::conv_engine::Choose(pass, dtype, ops.g, s.n, s.c_in, s.c_out, s.groups);
    std::printf("%-34s %-17s %10.3f %10s %8s  %s\n", s.name, kPassNames[int(pass)], t_gemm * 1e3,
                onednn ? std::to_string(t_dnnl * 1e3).substr(0, 6).c_str() : "-",
                onednn ? std::to_string(t_dnnl / t_gemm).substr(0, 5).c_str() : "-",
                AlgoName(chosen));
    std::fflush(stdout);
  }
}

// oar's Winograd F(2x2, 3x3) against oneDNN (direct without AVX-512) on each pass of
// a 3x3 stride-1 convolution.
void BenchWinograd(const Shape& s, std::mt19937* rng) {
  using oar::conv_engine::Algo;
  using oar::conv_engine::Pass;
  const oar::DType f32 = oar::DType::kFloat32;
  Operands ops(s, f32, rng);
  for (Pass pass : {Pass::kForward, Pass::kBackwardData, Pass::kBackwardWeights}) {
    const double t_dnnl = ops.Seconds(Algo::kOneDnn, pass);
    const double t_wino = ops.Seconds(Algo::kWinograd, pass);
    const Algo chosen = oar::conv_engine::Choose(pass, f32, ops.g, s.n, s.c_in, s.c_out, 1);
    std::printf("%-22s batch %-3lld %-17s %10.3f %10.3f %8.3f  %s\n", s.name,
                static_cast<long long>(s.n), kPassNames[int(pass)], t_dnnl * 1e3, t_wino * 1e3,
                t_wino / t_dnnl, AlgoName(chosen));
    std::fflush(stdout);
  }
}

}  // namespace

// ResNet-18's convolutions (each once; the network runs the 3x3 ones of a stage 3-4 times).
std::vector<Shape> ResNet18Shapes(int64_t n) {
  std::vector<Shape> v;
  struct C {
    const char* name;
    int64_t c_in, c_out, hw, k, stride, pad;
  };
  const C convs[] = {
      {"conv1 3x224 -> 64, 7x7 s2", 3, 64, 224, 7, 2, 3},
      {"64x56 -> 64, 3x3", 64, 64, 56, 3, 1, 1},
      {"64x56 -> 128, 3x3 s2", 64, 128, 56, 3, 2, 1},
      {"64x56 -> 128, 1x1 s2", 64, 128, 56, 1, 2, 0},
      {"128x28 -> 128, 3x3", 128, 128, 28, 3, 1, 1},
      {"128x28 -> 256, 3x3 s2", 128, 256, 28, 3, 2, 1},
      {"128x28 -> 256, 1x1 s2", 128, 256, 28, 1, 2, 0},
      {"256x14 -> 256, 3x3", 256, 256, 14, 3, 1, 1},
      {"256x14 -> 512, 3x3 s2", 256, 512, 14, 3, 2, 1},
      {"256x14 -> 512, 1x1 s2", 256, 512, 14, 1, 2, 0},
      {"512x7 -> 512, 3x3", 512, 512, 7, 3, 1, 1},
  };
  for (const C& c : convs) {
    v.push_back({c.name, n, c.c_in, c.c_out, c.hw, c.hw, c.k, c.stride, c.pad});
  }
  return v;
}

// MobileNetV2's depthwise 3x3 convolutions at batch 8 (224x224 input; the network runs
// some of them 2-4 times), then the shapes that bound Note [Depthwise convolutions'
// gradients on oneDNN]: a 5x5 depthwise layer and grouped layers of 2 and 3 channels.
std::vector<Shape> DepthwiseShapes() {
  std::vector<Shape> v;
  struct C {
    const char* name;
    int64_t c, hw, k, stride, per_group;
  };
  const C convs[] = {
      {"dw 32x112, 3x3", 32, 112, 3, 1, 1},         {"dw 96x112, 3x3 s2", 96, 112, 3, 2, 1},
      {"dw 144x56, 3x3", 144, 56, 3, 1, 1},         {"dw 144x56, 3x3 s2", 144, 56, 3, 2, 1},
      {"dw 192x28, 3x3", 192, 28, 3, 1, 1},         {"dw 192x28, 3x3 s2", 192, 28, 3, 2, 1},
      {"dw 384x14, 3x3", 384, 14, 3, 1, 1},         {"dw 576x14, 3x3", 576, 14, 3, 1, 1},
      {"dw 576x14, 3x3 s2", 576, 14, 3, 2, 1},      {"dw 960x7, 3x3", 960, 7, 3, 1, 1},
      {"dw 64x56, 5x5", 64, 56, 5, 1, 1},           {"64x56, 3x3, 2 per group", 64, 56, 3, 1, 2},
      {"96x28, 3x3, 3 per group", 96, 28, 3, 1, 3},
  };
  for (const C& c : convs) {
    v.push_back({c.name, 8, c.c, c.c, c.hw, c.hw, c.k, c.stride, c.k / 2, c.c / c.per_group});
  }
  return v;
}

int main(int argc, char** argv) {
  bool f64 = false, resnet = false, depthwise = false, winograd = false;
  for (int i = 1; i < argc; ++i) {
    winograd = winograd || std::strcmp(argv[i], "winograd") == 0;
    f64 = f64 || std::strcmp(argv[i], "float64") == 0;
    resnet = resnet || std::strcmp(argv[i], "resnet18") == 0;
    depthwise = depthwise || std::strcmp(argv[i], "depthwise") == 0;
  }
  const oar::DType dtype = f64 ? oar::DType::kFloat64 : oar::DType::kFloat32;
  std::printf("conv engines, %s, %d threads, best of %d samples (ms per call)\n",
              f64 ? "float64" : "float32", omp_get_max_threads(), kSamples);
  std::printf("oar dispatch ISA: %s (CPU: %s)\n", oar::CpuIsaName(oar::MaxCpuIsa()).data(),
              oar::CpuIsaName(oar::DetectedCpuIsa()).data());
  std::mt19937 rng(0);
  if (winograd) {
    std::printf("%-22s %-9s %-17s %10s %10s %8s  %s\n", "shape", "", "pass", "onednn ms", "wino ms",
                "wino/dnn", "chosen");
    for (const int64_t n : {1, 8, 16}) {
      for (const Shape& s : ResNet18Shapes(n)) {
        if (s.k == 3 && s.stride == 1) BenchWinograd(s, &rng);
      }
    }
    return 0;
  }
  std::printf("%-34s %-17s %10s %10s %8s  %s\n", "shape", "pass", "gemm ms", "onednn ms",
              "dnn/gemm", "chosen");
  const Shape shapes[] = {
      {"64x1x28x28 -> 32, 3x3 pad 1", 64, 1, 32, 28, 28, 3, 1, 1},
      {"64x32x14x14 -> 64, 3x3 pad 1", 64, 32, 64, 14, 14, 3, 1, 1},
      {"64x64x14x14 -> 64, 1x1", 64, 64, 64, 14, 14, 1, 1, 0},
      {"64x32x28x28 -> 64, 3x3 s2 pad 1", 64, 32, 64, 28, 28, 3, 2, 1},
  };
  if (resnet) {
    for (const int64_t n : {1, 16}) {
      std::printf("ResNet-18, batch %lld\n", static_cast<long long>(n));
      for (const Shape& s : ResNet18Shapes(n)) BenchShape(s, dtype, &rng, true);
    }
    return 0;
  }
  if (depthwise) {
    for (const Shape& s : DepthwiseShapes()) BenchShape(s, dtype, &rng);
    return 0;
  }
  for (const Shape& s : shapes) BenchShape(s, dtype, &rng);
  return 0;
}
