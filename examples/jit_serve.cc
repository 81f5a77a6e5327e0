// Serves a model saved from Python with oar.jit.save, without Python: loads
// MODEL.oarmodel + MODEL.safetensors, runs the inference program on the tensors
// of an input file and writes the outputs (docs/jit.md, "Serving from C++").
// With a thread count, the same loaded module also answers that many threads
// at once (Note [A loaded module is shared read-only]), and every answer must
// equal the serial one.
//
//   usage: jit_serve [--custom-ops LIB.so]... MODEL INPUTS.safetensors
//                    OUTPUTS.safetensors [THREADS]
//   INPUTS holds the inputs in the order forward takes them; OUTPUTS gets
//   "out0", "out1", ... --custom-ops loads a library of custom operators the
//   model calls (docs/custom_ops.md) before the model. Exits non-zero on any
//   error or disagreement.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "oar/extension/registry.h"
#include "oar/oar.h"

namespace {

// The largest difference between two runs of the same outputs (0 when equal).
double MaxDifference(const std::vector<oar::Tensor>& a, const std::vector<oar::Tensor>& b) {
  if (a.size() != b.size()) return 1e30;
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].shape() != b[i].shape()) return 1e30;
    oar::Tensor d = oar::max(oar::abs(oar::subtract(oar::cast(a[i], oar::DType::kFloat64),
                                                    oar::cast(b[i], oar::DType::kFloat64))),
                             {}, false);
    if (a[i].numel() > 0) worst = std::max(worst, d.item<double>());
  }
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> libraries, args;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--custom-ops" && i + 1 < argc) {
      libraries.emplace_back(argv[++i]);
    } else {
      args.emplace_back(argv[i]);
    }
  }
  if (args.size() < 3) {
    std::fprintf(stderr,
                 "usage: %s [--custom-ops LIB.so]... MODEL INPUTS.safetensors "
                 "OUTPUTS.safetensors [THREADS]\n",
                 argv[0]);
    return 2;
  }
  try {
    for (const std::string& lib : libraries) oar::extension::LoadCustomOps(lib);
    const oar::jit::Module module = oar::jit::Load(args[0]);
    std::vector<oar::Tensor> inputs;
    for (auto& [name, t] : oar::Load(args[1])) inputs.push_back(t);
    const std::vector<oar::Tensor> outputs = module.Forward(inputs);
    oar::NamedTensors named;
    for (size_t i = 0; i < outputs.size(); ++i)
      named.emplace_back("out" + std::to_string(i), outputs[i]);
    oar::Save(named, args[2]);
    std::printf("%zu inputs -> %zu outputs:", inputs.size(), outputs.size());
    for (const auto& o : outputs) std::printf(" %s", oar::StrCat(o.shape()).c_str());
    std::printf("\n");

    const int threads = args.size() > 3 ? std::atoi(args[3].c_str()) : 0;
    if (threads > 0) {
      constexpr int kCallsPerThread = 4;
      std::vector<double> worst(static_cast<size_t>(threads), 0.0);
      std::vector<std::string> errors(static_cast<size_t>(threads));
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
          try {
            for (int c = 0; c < kCallsPerThread; ++c) {
              const double d = MaxDifference(module.Forward(inputs), outputs);
              worst[static_cast<size_t>(t)] = std::max(worst[static_cast<size_t>(t)], d);
            }
          } catch (const std::exception& e) {
            errors[static_cast<size_t>(t)] = e.what();
          }
        });
      }
      for (auto& th : pool) th.join();
      double all = 0;
      for (int t = 0; t < threads; ++t) {
        if (!errors[static_cast<size_t>(t)].empty()) {
          std::fprintf(stderr, "thread %d: %s\n", t, errors[static_cast<size_t>(t)].c_str());
          return 1;
        }
        all = std::max(all, worst[static_cast<size_t>(t)]);
      }
      std::printf("%d threads x %d calls: largest difference from the serial run %g\n", threads,
                  kCallsPerThread, all);
      if (all > 1e-5) return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jit_serve: %s\n", e.what());
    return 1;
  }
  return 0;
}
