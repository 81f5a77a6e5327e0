// Inference latency of a model saved from Python with oar.jit.save, run by
// oar's C++ runtime without Python: loads MODEL.oarmodel + MODEL.safetensors
// with oar::jit::Load, reads the inputs (in forward's order) from a
// safetensors file, runs Module::Forward WARMUP times untimed (at least once:
// the first call is timed apart) and STEPS times timed, and prints one JSON line: the median time
// of a call in seconds, the peak resident set size of the process in MiB (getrusage), and the
// seconds oar::jit::Load and the first call took ("load", "first": where a model's folded
// convolutions are made). It is the "oar C++" column of benchmarks/models.py, which saves the model
// and starts this program with OMP_NUM_THREADS set, and benchmarks/first_calls.py reads the last
// two.
//
//   usage: oar_bench_jit_latency [--no-fold] [--no-winograd] MODEL INPUTS.safetensors
//                                [WARMUP] [STEPS]
//          (defaults 3 and 50; --no-fold loads with FLAGS_jit_fold_conv off, so
//          conv + batch norm groups run op by op; --no-winograd with
//          FLAGS_conv_winograd off, so folded convolutions run the direct
//          algorithm)
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>
#include <vector>

#include "oar/oar.h"

int main(int argc, char** argv) {
  for (; argc > 1 && std::string_view(argv[1]).starts_with("--no-"); --argc, ++argv) {
    const std::string_view option = argv[1];
    if (option != "--no-fold" && option != "--no-winograd") break;
    oar::SetFlag(option == "--no-fold" ? "jit_fold_conv" : "conv_winograd", 0);
  }
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: %s [--no-fold] [--no-winograd] MODEL INPUTS.safetensors [WARMUP] "
                 "[STEPS]\n",
                 argv[0]);
    return 2;
  }
  const int warmup = argc > 3 ? std::atoi(argv[3]) : 3;
  const int steps = argc > 4 ? std::atoi(argv[4]) : 50;
  if (warmup < 0 || steps < 1) {
    std::fprintf(stderr, "jit_latency: WARMUP must be >= 0 and STEPS >= 1\n");
    return 2;
  }
  try {
    using Clock = std::chrono::steady_clock;
    const auto seconds = [](Clock::time_point a, Clock::time_point b) {
      return std::chrono::duration<double>(b - a).count();
    };
    std::vector<oar::Tensor> inputs;
    for (auto& [name, t] : oar::Load(argv[2])) inputs.push_back(t);
    const auto t_load = Clock::now();
    const oar::jit::Module module = oar::jit::Load(argv[1]);
    const auto t_first = Clock::now();
    module.Forward(inputs);
    const double load = seconds(t_load, t_first), first = seconds(t_first, Clock::now());
    for (int i = 1; i < warmup; ++i) module.Forward(inputs);
    std::vector<double> times;
    times.reserve(static_cast<size_t>(steps));
    for (int i = 0; i < steps; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      const std::vector<oar::Tensor> out = module.Forward(inputs);
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    const size_t n = times.size();
    const double median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);  // ru_maxrss: KiB on Linux
    std::printf("{\"median\": %.9g, \"peak_mib\": %.1f, \"load\": %.9g, \"first\": %.9g}\n", median,
                static_cast<double>(usage.ru_maxrss) / 1024.0, load, first);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jit_latency: %s\n", e.what());
    return 1;
  }
  return 0;
}
