// Trains a 784-256-10 MLP on Fashion-MNIST with Adam from C++ alone (no Python):
// the IDX reader, nn modules, the fused optimizer and a checkpoint round trip.
//
//   usage: fashion_mnist_mlp [steps] [checkpoint path]   (default: one epoch)
//
// Exits non-zero unless the test accuracy beats 80% after a full epoch (or, for
// a short run, the loss falls below 70% of its start), or if the reloaded
// checkpoint predicts differently.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "oar/oar.h"

namespace {

constexpr int64_t kBatch = 128;

oar::Tensor Rows(const oar::Tensor& t, int64_t begin, int64_t n) {
  return oar::index_select(t, oar::arange(begin, begin + n, 1, oar::DType::kInt64), 0);
}

std::shared_ptr<oar::nn::Sequential> MakeNet() {
  auto net = std::make_shared<oar::nn::Sequential>();
  net->Add(std::make_shared<oar::nn::Flatten>())
      .Add(std::make_shared<oar::nn::Linear>(784, 256))
      .Add(std::make_shared<oar::nn::ReLU>())
      .Add(std::make_shared<oar::nn::Linear>(256, 10));
  return net;
}

double TestAccuracy(oar::nn::Module& net, const oar::Mnist& test) {
  oar::NoGradGuard no_grad;
  net.Eval();
  return oar::nn::Accuracy(net(test.images), test.labels);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    oar::Mnist train = oar::ReadFashionMnist(true);
    oar::Mnist test = oar::ReadFashionMnist(false);
    const int64_t n = train.images.shape()[0];
    const int64_t epoch_steps = n / kBatch;
    const int64_t steps = argc > 1 ? std::atoll(argv[1]) : epoch_steps;
    const std::string ckpt = argc > 2 ? argv[2] : "/tmp/oar_fashion_mnist_mlp.safetensors";
    if (steps <= 0) {
      std::fprintf(stderr, "usage: %s [steps > 0] [checkpoint]\n", argv[0]);
      return 2;
    }
    oar::DefaultCPUGenerator().Seed(0);
    auto net = MakeNet();
    oar::optim::Adam opt(net->Parameters(), 1e-3);
    const auto t0 = std::chrono::steady_clock::now();
    double first = 0, last = 0;
    for (int64_t s = 0; s < steps; ++s) {
      const int64_t b = (s % epoch_steps) * kBatch;
      net->Train();
      oar::Tensor loss = oar::nn::CrossEntropy((*net)(Rows(train.images, b, kBatch)),
                                               Rows(train.labels, b, kBatch));
      loss.backward();
      opt.StepAll();
      opt.ClearGrad();
      last = loss.item<double>();
      if (s == 0) first = last;
      if ((s + 1) % 100 == 0 || s + 1 == steps) {
        std::printf("step %lld/%lld  loss %.4f\n", static_cast<long long>(s + 1),
                    static_cast<long long>(steps), last);
      }
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double acc = TestAccuracy(*net, test);
    std::printf("trained %lld steps in %.1f s (%.0f samples/s); test accuracy %.4f\n",
                static_cast<long long>(steps), secs, steps * kBatch / secs, acc);
    oar::Save(net->StateDict(), ckpt);
    auto again = MakeNet();
    again->LoadStateDict(oar::Load(ckpt));
    const double acc2 = TestAccuracy(*again, test);
    std::printf("reloaded from %s: test accuracy %.4f\n", ckpt.c_str(), acc2);
    if (acc2 != acc) {
      std::fprintf(stderr, "FAIL: the reloaded network predicts differently\n");
      return 1;
    }
    const bool ok = steps >= epoch_steps ? acc > 0.80 : last < 0.7 * first;
    if (!ok) {
      std::fprintf(stderr, "FAIL: training did not make enough progress\n");
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
