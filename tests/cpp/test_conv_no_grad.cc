// Note [A convolution without a graph runs folded]: with grad mode off the eager
// convolution of one sample runs as an InferenceConv with no batch norm from the second
// call that finds its weight unchanged, kept on the weight's memory without keeping that
// memory alive. (The
// rules for a changed weight are tested with the packed weight's,
// test_conv_weight_cache.cc.)
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "oar/core/conv_flags.h"
#include "oar/kernels/cpu/conv_inference.h"
#include "oar/kernels/cpu/conv_no_grad.h"
#include "oar/oar.h"
#include "test_util.h"

namespace oar {
namespace {

using conv_engine::HoldsNoGradConv;
using conv_engine::InferenceConv;
using conv_engine::InferenceConvSpec;
using testing::BytesInUse;
using testing::Make;
using testing::Random;
using testing::Values;

Tensor Floats(const std::vector<int64_t>& shape, uint32_t seed) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return Make(Random(n, seed), shape, DType::kFloat32);
}

std::vector<double> Conv(const Tensor& x, const Tensor& w, int64_t stride = 1) {
  return Values(conv(x, w, {stride, stride}, {1, 1, 1, 1}, {1, 1}));
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

// 32 channels at 16x16: 256 output positions, which the folded rule runs by Winograd's
// algorithm where it has it and the training rule (at least 384) does not; 48 input
// channels sum in blocks on every ISA without oneDNN's AVX-512 kernels.
class ConvNoGrad : public ::testing::Test {
 protected:
  Tensor x = Floats({1, 48, 16, 16}, 1);
  Tensor w = Floats({32, 48, 3, 3}, 2);
};

TEST_F(ConvNoGrad, FromTheSecondUnchangedCallItRunsFolded) {
  const std::vector<double> recorded = Conv(x, w);  // grad mode on: the ops' passes
  const NoGradGuard no_grad;
  EXPECT_EQ(Conv(x, w), recorded);  // the first call: the ops' passes too
  EXPECT_FALSE(HoldsNoGradConv(w.dense()));
  const std::vector<double> second = Conv(x, w);
  EXPECT_TRUE(HoldsNoGradConv(w.dense()));
  EXPECT_EQ(Conv(x, w), second);  // the kept convolution
  InferenceConvSpec spec{.strides = {1, 1}, .paddings = {1, 1, 1, 1}, .dilations = {1, 1}};
  spec.winograd = FLAGS_conv_winograd();
  const InferenceConv folded(w.dense(), spec);
  EXPECT_EQ(second, Values(Tensor(std::make_shared<DenseTensor>(
                        folded.Run(x.dense(), nullptr, /*plain=*/true)))));
  ExpectNear(second, recorded, 1e-4);  // by rounding only (3x3x48 products of values < 1)
}

TEST_F(ConvNoGrad, AWeightChangedAtEveryCallKeepsTheOpsPasses) {
  const Tensor zero = Make({0.0}, {1}, DType::kFloat32);
  const std::vector<double> recorded = Conv(x, w);
  const NoGradGuard no_grad;
  for (int round = 0; round < 3; ++round) {
    add_(w, zero);  // a write: the weight counts as changed
    EXPECT_EQ(Conv(x, w), recorded);
    EXPECT_FALSE(HoldsNoGradConv(w.dense()));
  }
}

TEST_F(ConvNoGrad, OtherAttributesGetTheirOwnConvolution) {
  const std::vector<double> want1 = Conv(x, w, 1), want2 = Conv(x, w, 2);  // recorded
  const NoGradGuard no_grad;
  for (int round = 0; round < 3; ++round) {
    ExpectNear(Conv(x, w, 1), want1, 1e-4);
    ExpectNear(Conv(x, w, 2), want2, 1e-4);  // not the stride-1 one's output
  }
}

TEST_F(ConvNoGrad, AKeptConvolutionFreesItsWeightsMemory) {
  const NoGradGuard no_grad;
  const int64_t before = BytesInUse();
  {
    const Tensor kept = Floats({32, 48, 3, 3}, 3);
    (void)Conv(x, kept);
    (void)Conv(x, kept);
    ASSERT_TRUE(HoldsNoGradConv(kept.dense()));
    EXPECT_GT(BytesInUse(), before);
  }
  EXPECT_EQ(BytesInUse(), before);  // the weight and what was kept on it
}

TEST_F(ConvNoGrad, AChannelsLastInputRunsFolded) {
  const Tensor xl = transpose(Floats({1, 16, 16, 48}, 5), {0, 3, 1, 2});
  const std::vector<double> want = Conv(xl, w);  // recorded
  const NoGradGuard no_grad;
  for (int round = 0; round < 2; ++round) ExpectNear(Conv(xl, w), want, 1e-4);
  EXPECT_TRUE(HoldsNoGradConv(w.dense()));
}

TEST_F(ConvNoGrad, LargerBatchesOtherDtypesAndRanksRunTheOpsPasses) {
  const NoGradGuard no_grad;
  const Tensor x3 = Floats({3, 48, 16, 16}, 4);
  (void)Conv(x3, w);
  (void)Conv(x3, w);
  EXPECT_FALSE(HoldsNoGradConv(w.dense()));
  const Tensor x64 = Make(Random(48 * 64, 6), {1, 48, 8, 8});  // float64
  const Tensor w64 = Make(Random(32 * 48 * 9, 7), {32, 48, 3, 3});
  (void)Conv(x64, w64);
  (void)Conv(x64, w64);
  EXPECT_FALSE(HoldsNoGradConv(w64.dense()));
  const Tensor x1 = Floats({1, 48, 16}, 8), w1 = Floats({32, 48, 3}, 9);  // 1-D
  (void)conv(x1, w1, {1}, {1, 1}, {1});
  (void)conv(x1, w1, {1}, {1, 1}, {1});
  EXPECT_FALSE(HoldsNoGradConv(w1.dense()));
}

// Several threads with grad mode off (each thread's own) call one weight's kept folded
// convolution at once (the Threads suite runs under TSan too), each call with the bits
// of a standalone one. (Work oneDNN runs on OpenMP's team, whose threads TSan does not
// see synchronise, is kept out: the calls before it is kept, and a Winograd weight's
// transform.)
TEST(Threads, NoGradConvolutionsOfOneWeightRunFromSeveralThreads) {
  // 8x8: the direct algorithm, whose small weight reorder oneDNN runs on the calling thread
  const Tensor x = Floats({1, 48, 8, 8}, 10), w = Floats({32, 48, 3, 3}, 11);
  InferenceConvSpec spec{.strides = {1, 1}, .paddings = {1, 1, 1, 1}, .dilations = {1, 1}};
  spec.winograd = FLAGS_conv_winograd();
  const InferenceConv standalone(w.dense(), spec);
  const std::vector<double> folded = Values(
      Tensor(std::make_shared<DenseTensor>(standalone.Run(x.dense(), nullptr, /*plain=*/true))));
  {
    const NoGradGuard no_grad;
    (void)Conv(x, w);  // the ops' passes; the second call keeps the folded convolution
    ASSERT_EQ(Conv(x, w), folded);
    ASSERT_TRUE(HoldsNoGradConv(w.dense()));
  }
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      const NoGradGuard no_grad;
      for (int rep = 0; rep < 10; ++rep) {
        if (Conv(x, w) != folded) wrong.fetch_add(1);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace oar
