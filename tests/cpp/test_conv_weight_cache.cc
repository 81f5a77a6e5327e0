// Note [A convolution's weight packed across calls]: the eager convolution
// keeps its weight packed beside the weight's memory from the second call that
// finds it unchanged, and every way the weight changes gives the new weight's
// values. With grad mode off it keeps a folded convolution there under the same
// rules (Note [A convolution without a graph runs folded]): each test runs in both
// modes. 16 input channels: one oneDNN convolution on every ISA (Note [The
// forward convolution sums in blocks] in kernels/cpu/conv_impl.h).
#include <gtest/gtest.h>

#include <vector>

#include "oar/kernels/cpu/conv_no_grad.h"
#include "oar/kernels/cpu/conv_weight_cache.h"
#include "oar/oar.h"
#include "test_util.h"

namespace oar {
namespace {

using conv_engine::HoldsNoGradConv;
using conv_engine::HoldsPackedWeight;
using testing::Make;
using testing::Random;
using testing::Values;

constexpr int64_t kC = 16;

Tensor Floats(int64_t n, uint32_t seed, const std::vector<int64_t>& shape) {
  return Make(Random(n, seed), shape, DType::kFloat32);
}

std::vector<double> Conv(const Tensor& x, const Tensor& w) {
  return Values(conv(x, w, {1, 1}, {1, 1, 1, 1}, {1, 1}));
}

// conv with a copy of w's current values in memory of its own.
std::vector<double> Fresh(const Tensor& x, const Tensor& w) {
  return Conv(x, Make(Values(w), w.shape(), DType::kFloat32));
}

// Whether oneDNN's kernel reads a packed layout other than the plain one: its
// x86-64 kernels, from SSE4.1 on (which it runs under every cap of oar's),
// read a blocked weight; its reference kernels elsewhere read the plain one.
bool Packs() {
#if defined(__x86_64__)
  return true;
#else
  return false;
#endif
}

// The parameter: grad mode (on: the ops' passes and the packed weight; the tensors
// need no gradient, so nothing is recorded).
class ConvWeightCache : public ::testing::TestWithParam<bool> {
 protected:
  // What the mode keeps: the packed weight, where oneDNN packs one, or the folded
  // convolution, on every CPU.
  bool Holds(const Tensor& t) const {
    return GetParam() ? HoldsPackedWeight(t.dense()) : HoldsNoGradConv(t.dense());
  }
  bool Keeps() const { return GetParam() ? Packs() : true; }

  SetGradModeGuard mode{GetParam()};
  Tensor x = Floats(kC * 36, 1, {1, kC, 6, 6});  // one sample: both modes keep
  Tensor w = Floats(kC * kC * 9, 2, {kC, kC, 3, 3});
};

TEST_P(ConvWeightCache, TheSecondUnchangedCallKeepsOneCopy) {
  const std::vector<double> first = Conv(x, w);
  EXPECT_FALSE(Holds(w));
  const std::vector<double> second = Conv(x, w);
  EXPECT_EQ(Holds(w), Keeps());
  EXPECT_EQ(second, first);
  EXPECT_EQ(Conv(x, w), first);  // from the packed copy
  EXPECT_EQ(first, Fresh(x, w));
}

TEST_P(ConvWeightCache, AnInPlaceWriteGivesTheNewWeight) {
  const std::vector<double> before = (Conv(x, w), Conv(x, w));
  add_(w, Floats(kC * kC * 9, 3, {kC, kC, 3, 3}));
  const std::vector<double> after = Conv(x, w);
  EXPECT_NE(after, before);
  EXPECT_EQ(after, Fresh(x, w));
  EXPECT_FALSE(Holds(w));
}

TEST_P(ConvWeightCache, AVersionResetToZeroDoesNotBringTheOldCopyBack) {
  const std::vector<double> before = (Conv(x, w), Conv(x, w));
  ASSERT_EQ(Holds(w), Keeps());
  ASSERT_EQ(w.current_inplace_version(), 0u);
  multiply_(w, Make({2.0}, {1}, DType::kFloat32));
  w.reset_inplace_version(true);  // Paddle's API: the version reads 0 again
  ASSERT_EQ(w.current_inplace_version(), 0u);
  const std::vector<double> after = Conv(x, w);
  EXPECT_NE(after, before);
  EXPECT_EQ(after, Fresh(x, w));
}

TEST_P(ConvWeightCache, ViewsOfOneBlockKeepTheirOwnValues) {
  const Tensor both = Floats(2 * kC * kC * 9, 4, {2 * kC, kC, 3, 3});
  const Tensor lo = slice(both, {0}, {0}, {kC}), hi = slice(both, {0}, {kC}, {2 * kC});
  ASSERT_EQ(lo.dense().Holder(), hi.dense().Holder());
  const std::vector<double> want_lo = Fresh(x, lo), want_hi = Fresh(x, hi);
  ASSERT_NE(want_lo, want_hi);
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(Conv(x, lo), want_lo);
    EXPECT_EQ(Conv(x, lo), want_lo);  // lo packed
    EXPECT_EQ(Conv(x, hi), want_hi);  // not lo's copy
    EXPECT_EQ(Conv(x, hi), want_hi);
  }
}

// 40 input channels: where oneDNN runs no AVX-512 kernels, two blocks of 16 and one of
// 8, each reading its own packed part of the weight.
TEST_P(ConvWeightCache, AWeightSummedInBlocksIsKeptAsOneCopy) {
  constexpr int64_t kWide = 40;
  const Tensor xw = Floats(kWide * 36, 5, {1, kWide, 6, 6});
  Tensor ww = Floats(kC * kWide * 9, 6, {kC, kWide, 3, 3});
  const std::vector<double> first = Conv(xw, ww);
  EXPECT_FALSE(Holds(ww));
  EXPECT_EQ(Conv(xw, ww), first);
  EXPECT_EQ(Holds(ww), Keeps());
  EXPECT_EQ(Conv(xw, ww), first);  // from the packed copies
  EXPECT_EQ(first, Fresh(xw, ww));
  add_(ww, Floats(kC * kWide * 9, 7, {kC, kWide, 3, 3}));
  const std::vector<double> after = Conv(xw, ww);
  EXPECT_NE(after, first);
  EXPECT_EQ(after, Fresh(xw, ww));
}

TEST_P(ConvWeightCache, MemoryWrittenOutsideTheOpsIsNeverKept) {
  w.dense().Holder()->MarkSharedOutside();
  const std::vector<double> before = (Conv(x, w), Conv(x, w), Conv(x, w));
  EXPECT_FALSE(Holds(w));
  float* p = w.dense().data<float>();  // as a numpy view would, without a version bump
  for (int64_t i = 0; i < kC * kC * 9; ++i) p[i] = -p[i];
  const std::vector<double> after = Conv(x, w);
  EXPECT_NE(after, before);
  EXPECT_EQ(after, Fresh(x, w));
}

TEST_P(ConvWeightCache, MarkingDropsAKeptCopy) {
  (void)Conv(x, w);
  (void)Conv(x, w);
  ASSERT_EQ(Holds(w), Keeps());
  w.dense().Holder()->MarkSharedOutside();
  EXPECT_FALSE(Holds(w));
}

INSTANTIATE_TEST_SUITE_P(GradMode, ConvWeightCache, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "On" : "Off";
                         });

}  // namespace
}  // namespace oar
