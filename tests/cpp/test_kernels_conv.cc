// The two convolution engines (src/oar/kernels/cpu/conv_impl.h) agree on every
// pass: the op tests reach only the engine conv_engine::Choose picks for their shapes
// (and float64 always runs on GEMM), so this compares oneDNN against the GEMM
// path directly, in float32, over groups, dilation, stride, asymmetric padding
// and 1-D/3-D shapes. Also the typed errors of the conv and pool InferMeta.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "oar/api/api.h"
#include "oar/kernels/cpu/conv_impl.h"
#include "test_util.h"

namespace oar {
namespace {

DenseTensor RandomF32(const DDim& dims, std::mt19937* rng) {
  DenseTensor t(DType::kFloat32, dims);
  t.AllocateFrom(CPUPlace());
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int64_t i = 0; i < t.numel(); ++i) static_cast<float*>(t.data())[i] = u(*rng);
  return t;
}

DenseTensor Empty(const DDim& dims) {
  DenseTensor t(DType::kFloat32, dims);
  t.AllocateFrom(CPUPlace());
  return t;
}

void ExpectClose(const DenseTensor& a, const DenseTensor& b, const char* what) {
  ASSERT_EQ(a.dims(), b.dims()) << what;
  const float* pa = static_cast<const float*>(a.data());
  const float* pb = static_cast<const float*>(b.data());
  for (int64_t i = 0; i < a.numel(); ++i) {
    ASSERT_NEAR(pa[i], pb[i], 1e-4 * (1 + std::abs(pb[i]))) << what << " element " << i;
  }
}

struct ConvCase {
  DDim x, w;
  std::vector<int64_t> strides, paddings, dilations;
  int64_t groups;
};

class ConvEngines : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvEngines, OneDnnMatchesGemmOnEveryPass) {
  const ConvCase& c = GetParam();
  std::mt19937 rng(7);
  const WindowGeometry g = ConvGeometry(c.x, c.w, c.strides, c.paddings, c.dilations, c.groups);
  ASSERT_TRUE(conv_engine::OneDnnSupports(DType::kFloat32, g));
  DDim yd{c.x[0], c.w[0]};
  for (int d = 0; d < g.nd; ++d) yd.push_back(g.out[3 - g.nd + d]);
  const DenseTensor x = RandomF32(c.x, &rng), w = RandomF32(c.w, &rng), dy = RandomF32(yd, &rng);
  DenseTensor y1 = Empty(yd), y2 = Empty(yd), dx1 = Empty(c.x), dx2 = Empty(c.x);
  DenseTensor dw1 = Empty(c.w), dw2 = Empty(c.w);
  conv_engine::Forward(conv_engine::Algo::kGemm, x, w, g, c.groups, &y1);
  conv_engine::Forward(conv_engine::Algo::kOneDnn, x, w, g, c.groups, &y2);
  ExpectClose(y2, y1, "forward");
  conv_engine::BackwardData(conv_engine::Algo::kGemm, dy, w, g, c.groups, &dx1);
  conv_engine::BackwardData(conv_engine::Algo::kOneDnn, dy, w, g, c.groups, &dx2);
  ExpectClose(dx2, dx1, "backward data");
  conv_engine::BackwardWeights(conv_engine::Algo::kGemm, x, dy, g, c.groups, &dw1);
  conv_engine::BackwardWeights(conv_engine::Algo::kOneDnn, x, dy, g, c.groups, &dw2);
  ExpectClose(dw2, dw1, "backward weights");
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ConvEngines,
    ::testing::Values(
        ConvCase{{2, 3, 6, 5}, {4, 3, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1},
        ConvCase{{3, 4, 7, 6}, {6, 2, 3, 2}, {2, 1}, {1, 0, 2, 1}, {1, 2}, 2},
        ConvCase{{2, 8, 5, 5}, {8, 8, 1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1},
        ConvCase{{2, 4, 9, 9}, {4, 1, 3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 4},
        ConvCase{{2, 3, 11}, {5, 3, 3}, {2}, {2, 1}, {2}, 1},
        ConvCase{{1, 2, 4, 5, 4}, {4, 1, 2, 3, 2}, {1, 2, 1}, {0, 1, 1, 1, 0, 0}, {1, 1, 2}, 2},
        // More than 16 input channels: oneDNN's forward pass in blocks of 16 where it
        // runs no AVX-512 kernels (the last block 8 or 4 channels), and the GEMM path's
        // forward in blocks of 144 rows of its inner dimension.
        ConvCase{{2, 40, 7, 6}, {6, 40, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1},
        ConvCase{{2, 36, 9, 8}, {5, 36, 3, 2}, {2, 1}, {1, 0, 0, 1}, {1, 2}, 1},
        ConvCase{{1, 20, 4, 5, 4}, {3, 20, 2, 3, 2}, {1, 1, 1}, {1, 0, 1, 1, 0, 1}, {1, 1, 1}, 1},
        ConvCase{{2, 300, 4, 4}, {3, 300, 1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1},
        // Depthwise layers, which oneDNN's depthwise kernels run (Note [Depthwise
        // convolutions' gradients on oneDNN]): 3x3 with 16 channels, 5x5 strided.
        ConvCase{{2, 16, 9, 8}, {16, 1, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 16},
        ConvCase{{3, 24, 11, 10}, {24, 1, 5, 5}, {2, 2}, {2, 2, 2, 2}, {1, 1}, 24}));

// Note [Depthwise convolutions' gradients on oneDNN] (conv_kernels.cc): which engine
// each pass of a depthwise or grouped convolution with few taps takes.
TEST(ConvChoose, DepthwiseGradientsRunOnOneDnn) {
  using conv_engine::Algo;
  using conv_engine::Pass;
  auto choose = [](Pass pass, int64_t c, int64_t per_group, int64_t k) {
    const WindowGeometry g = ConvGeometry({8, c, 28, 28}, {c, per_group, k, k}, {1, 1},
                                          {k / 2, k / 2, k / 2, k / 2}, {1, 1}, c / per_group);
    return conv_engine::Choose(pass, DType::kFloat32, g, 8, c, c, c / per_group);
  };
  const bool avx512 = conv_engine::OneDnnAvx512();
  for (Pass pass : {Pass::kForward, Pass::kBackwardData, Pass::kBackwardWeights}) {
    EXPECT_EQ(choose(pass, 192, 1, 3), Algo::kOneDnn);
  }
  EXPECT_EQ(choose(Pass::kBackwardData, 64, 1, 5), Algo::kOneDnn);
  EXPECT_EQ(choose(Pass::kBackwardWeights, 64, 1, 5), avx512 ? Algo::kOneDnn : Algo::kGemm);
  // Two channels per group: the few-taps rule of a first layer, as before.
  EXPECT_EQ(choose(Pass::kBackwardData, 64, 2, 3), Algo::kGemm);
  EXPECT_EQ(choose(Pass::kBackwardWeights, 64, 2, 3), avx512 ? Algo::kOneDnn : Algo::kGemm);
  // A depth multiplier (two outputs per input channel) is not depthwise for oneDNN.
  const WindowGeometry g =
      ConvGeometry({8, 32, 28, 28}, {64, 1, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 32);
  EXPECT_EQ(conv_engine::Choose(Pass::kBackwardData, DType::kFloat32, g, 8, 32, 64, 32),
            Algo::kGemm);
}

// Note [The forward convolution sums in blocks] (conv_impl.h): the float32 forward
// pass's norm-wise relative error against float64, ||y - y64|| / ||y64||, stays near
// one block's (2.1e-7 to 2.2e-7 here) however many products each output sums, with
// the engine the kernels choose. ctest also runs this under OAR_MAX_CPU_ISA=avx2 and
// sse2 on an AVX-512 machine, where oneDNN's kernels would sum every input channel in
// one accumulator (4.2e-7 and 8.0e-7 on the two 3x3 cases without the blocks, measured
// on data like this through oar's Python API); Paddle 3.3.1 measured 1.9e-7 to 2.2e-7
// on these three. A 1x1 convolution runs on the GEMM path on AVX2 machines and on
// oneDNN's AVX-512 kernels, which keep their own order (2.9e-7 on this one): it is
// checked on the GEMM path, where one GEMM gave 3.0e-7.
double NormRelativeError(const DenseTensor& y, const DenseTensor& ref) {
  const float* py = static_cast<const float*>(y.data());
  const double* pr = static_cast<const double*>(ref.data());
  double err = 0, norm = 0;
  for (int64_t i = 0; i < y.numel(); ++i) {
    err += (py[i] - pr[i]) * (py[i] - pr[i]);
    norm += pr[i] * pr[i];
  }
  return std::sqrt(err / norm);
}

DenseTensor ToFloat64(const DenseTensor& t) {
  DenseTensor d(DType::kFloat64, t.dims());
  d.AllocateFrom(CPUPlace());
  for (int64_t i = 0; i < t.numel(); ++i) {
    static_cast<double*>(d.data())[i] = static_cast<const float*>(t.data())[i];
  }
  return d;
}

double ForwardError(const DDim& xd, const DDim& wd, int64_t pad, bool gemm) {
  std::mt19937 rng(11);
  const WindowGeometry g = ConvGeometry(xd, wd, {1, 1}, {pad, pad, pad, pad}, {1, 1}, 1);
  const DDim yd{xd[0], wd[0], g.out[1], g.out[2]};
  const DenseTensor x = RandomF32(xd, &rng), w = RandomF32(wd, &rng);
  DenseTensor y = Empty(yd), ref(DType::kFloat64, yd);
  ref.AllocateFrom(CPUPlace());
  const auto algo = gemm ? conv_engine::Algo::kGemm
                         : conv_engine::Choose(conv_engine::Pass::kForward, DType::kFloat32, g,
                                               xd[0], xd[1], wd[0], 1);
  conv_engine::Forward(algo, x, w, g, 1, &y);
  conv_engine::Forward(conv_engine::Algo::kGemm, ToFloat64(x), ToFloat64(w), g, 1, &ref);
  return NormRelativeError(y, ref);
}

// Sets a flag for the scope of a test and restores it after.
class ScopedConvWinograd {
 public:
  explicit ScopedConvWinograd(bool on) : old_(GetFlag("conv_winograd")) {
    SetFlag("conv_winograd", on ? 1 : 0);
  }
  ~ScopedConvWinograd() { SetFlag("conv_winograd", old_); }
  ScopedConvWinograd(const ScopedConvWinograd&) = delete;
  ScopedConvWinograd& operator=(const ScopedConvWinograd&) = delete;

 private:
  double old_;
};

TEST(ConvForwardSum, ErrorStaysNearOneBlocksOnEveryIsa) {
  // The direct algorithm's order; Winograd's is checked below.
  const ScopedConvWinograd direct(false);
  EXPECT_LT(ForwardError({2, 64, 24, 24}, {32, 64, 3, 3}, 1, false), 2.6e-7);    // 576 products
  EXPECT_LT(ForwardError({2, 256, 10, 10}, {32, 256, 3, 3}, 1, false), 2.6e-7);  // 2,304
  EXPECT_LT(ForwardError({2, 1024, 8, 8}, {32, 1024, 1, 1}, 0, true), 2.6e-7);   // 1,024
}

// Note [A batch of one reorders its input once for all blocks] (conv_onednn.h): a
// sample's output from a batch of one (one reorder of the whole input) has the bits of
// the same sample in a batch of two (one reorder per block), 264 input channels in
// blocks of 16 and one of 8, direct algorithm, every ISA.
TEST(ConvForwardSum, ABatchOfOneHasTheBatchsBits) {
  const ScopedConvWinograd direct(false);
  std::mt19937 rng(17);
  const DDim xd{2, 264, 9, 9}, wd{24, 264, 3, 3};
  const DenseTensor x = RandomF32(xd, &rng), w = RandomF32(wd, &rng);
  const WindowGeometry g2 = ConvGeometry(xd, wd, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1);
  DenseTensor y2 = Empty({2, 24, 9, 9});
  conv_engine::Forward(conv_engine::Algo::kOneDnn, x, w, g2, 1, &y2);
  DenseTensor x1 = Empty({1, 264, 9, 9}), y1 = Empty({1, 24, 9, 9});
  const int64_t per_x = x1.numel(), per_y = y1.numel();
  std::copy_n(static_cast<const float*>(x.data()) + per_x, per_x, static_cast<float*>(x1.data()));
  const WindowGeometry g1 = ConvGeometry(x1.dims(), wd, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1);
  conv_engine::Forward(conv_engine::Algo::kOneDnn, x1, w, g1, 1, &y1);
  const float* second = static_cast<const float*>(y2.data()) + per_y;
  EXPECT_EQ(std::vector<float>(second, second + per_y),
            std::vector<float>(static_cast<const float*>(y1.data()),
                               static_cast<const float*>(y1.data()) + per_y));
}

// Note [Winograd's algorithm in the eager convolution] (conv_impl.h): which
// convolutions take it. On a CPU without oneDNN's AVX-512 kernels none takes oneDNN's.
TEST(ConvWinograd, TakesLargeThreeByThreeStrideOneConvolutions) {
  const ScopedConvWinograd on(true);
  auto takes = [](const DDim& xd, const DDim& wd, std::vector<int64_t> strides,
                  std::vector<int64_t> dilations, int64_t groups, DType dtype = DType::kFloat32) {
    const WindowGeometry g = ConvGeometry(xd, wd, strides, {1, 1, 1, 1}, dilations, groups);
    return conv_engine::OneDnnWinograd(dtype, g, xd[0], xd[1], wd[0], groups);
  };
  const bool avx512 = conv_engine::OneDnnAvx512();
  // 2 x 14 x 14 = 392 output positions, 32 channels each way: the smallest it takes.
  EXPECT_EQ(takes({2, 32, 14, 14}, {32, 32, 3, 3}, {1, 1}, {1, 1}, 1), avx512);
  EXPECT_FALSE(takes({2, 31, 14, 14}, {32, 31, 3, 3}, {1, 1}, {1, 1}, 1));  // channels in
  EXPECT_FALSE(takes({2, 32, 14, 14}, {31, 32, 3, 3}, {1, 1}, {1, 1}, 1));  // channels out
  EXPECT_FALSE(takes({1, 32, 19, 19}, {32, 32, 3, 3}, {1, 1}, {1, 1}, 1));  // 361 positions
  EXPECT_FALSE(takes({8, 32, 28, 28}, {32, 32, 3, 3}, {2, 2}, {1, 1}, 1));  // strided
  EXPECT_FALSE(takes({8, 32, 28, 28}, {32, 32, 3, 3}, {1, 1}, {2, 2}, 1));  // dilated
  EXPECT_FALSE(takes({8, 64, 28, 28}, {64, 32, 3, 3}, {1, 1}, {1, 1}, 2));  // grouped
  EXPECT_FALSE(takes({8, 32, 28, 28}, {32, 32, 5, 5}, {1, 1}, {1, 1}, 1));  // 5x5
  EXPECT_FALSE(takes({8, 32, 28, 28}, {32, 32, 3, 3}, {1, 1}, {1, 1}, 1, DType::kBFloat16));
  // Without oneDNN's kernel, oar's own F(2x2, 3x3) takes the same convolutions' passes
  // (Note [Winograd's F(2x2, 3x3) where oneDNN has none]).
  const DDim xd{2, 32, 14, 14}, wd{32, 32, 3, 3};
  const WindowGeometry g = ConvGeometry(xd, wd, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1);
  using conv_engine::Algo;
  using conv_engine::Pass;
  auto algo = [&](Pass pass) {
    return conv_engine::Choose(pass, DType::kFloat32, g, 2, 32, 32, 1);
  };
  EXPECT_TRUE(conv_engine::WinogradShape(DType::kFloat32, g, 2, 32, 32, 1));
  EXPECT_EQ(algo(Pass::kForward) == Algo::kWinograd, !avx512);
  EXPECT_EQ(algo(Pass::kBackwardData) == Algo::kWinograd, !avx512);
  EXPECT_EQ(algo(Pass::kBackwardWeights) == Algo::kWinograd, !avx512);
  const ScopedConvWinograd off(false);
  EXPECT_FALSE(takes({2, 32, 14, 14}, {32, 32, 3, 3}, {1, 1}, {1, 1}, 1));
  EXPECT_FALSE(conv_engine::WinogradShape(DType::kFloat32, g, 2, 32, 32, 1));
  EXPECT_EQ(algo(Pass::kForward), Algo::kOneDnn);
}

// oar's own F(2x2, 3x3), all three passes run directly on every ISA: odd output sizes (a last tile
// column and row half outside), paddings 0 and 2, channel counts off the vector
// width, and a pass of more tiles than one chunk holds (1,152 tiles of 64 channels,
// the chunk boundary inside a sample), against float64.
TEST(ConvWinograd, OwnKernelStaysCloseToFloat64) {
  struct Case {
    DDim x, w;
    int64_t pad;
  };
  const Case cases[] = {{{3, 40, 9, 17}, {32, 40, 3, 3}, 0},
                        {{2, 33, 15, 16}, {35, 33, 3, 3}, 2},
                        {{1, 32, 23, 21}, {48, 32, 3, 3}, 1},
                        {{2, 64, 48, 48}, {64, 64, 3, 3}, 1}};
  std::mt19937 rng(6);
  using conv_engine::Algo;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.x[1]);
    const WindowGeometry g =
        ConvGeometry(c.x, c.w, {1, 1}, {c.pad, c.pad, c.pad, c.pad}, {1, 1}, 1);
    const DDim yd{c.x[0], c.w[0], g.out[1], g.out[2]};
    const DenseTensor x = RandomF32(c.x, &rng), w = RandomF32(c.w, &rng), dy = RandomF32(yd, &rng);
    DenseTensor y = Empty(yd), dx = Empty(c.x), dw = Empty(c.w);
    DenseTensor y64(DType::kFloat64, yd), dx64(DType::kFloat64, c.x), dw64(DType::kFloat64, c.w);
    for (DenseTensor* t : {&y64, &dx64, &dw64}) t->AllocateFrom(CPUPlace());
    conv_engine::Forward(Algo::kWinograd, x, w, g, 1, &y);
    conv_engine::BackwardData(Algo::kWinograd, dy, w, g, 1, &dx);
    conv_engine::BackwardWeights(Algo::kWinograd, x, dy, g, 1, &dw);
    conv_engine::Forward(Algo::kGemm, ToFloat64(x), ToFloat64(w), g, 1, &y64);
    conv_engine::BackwardData(Algo::kGemm, ToFloat64(dy), ToFloat64(w), g, 1, &dx64);
    conv_engine::BackwardWeights(Algo::kGemm, ToFloat64(x), ToFloat64(dy), g, 1, &dw64);
    // Measured: 2.0e-7 to 2.6e-7 for the first two passes (the direct algorithm:
    // 2.2e-7), 2.8e-7 to 4.8e-7 for the weight gradient.
    EXPECT_LT(NormRelativeError(y, y64), 4e-7);
    EXPECT_LT(NormRelativeError(dx, dx64), 4e-7);
    EXPECT_LT(NormRelativeError(dw, dw64), 8e-7);
  }
}

// The three passes of a convolution Winograd's algorithm takes, against float64: their
// results move from the direct algorithm's (so the algorithm ran: oneDNN's where it has
// one, oar's own elsewhere) and stay within the note's bound of the exact values on
// every ISA.
TEST(ConvWinograd, PassesStayCloseToFloat64) {
  std::mt19937 rng(5);
  const DDim xd{2, 64, 24, 24}, wd{32, 64, 3, 3};
  const WindowGeometry g = ConvGeometry(xd, wd, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1);
  const DDim yd{2, 32, 24, 24};
  const DenseTensor x = RandomF32(xd, &rng), w = RandomF32(wd, &rng), dy = RandomF32(yd, &rng);
  DenseTensor y64(DType::kFloat64, yd), dx64(DType::kFloat64, xd), dw64(DType::kFloat64, wd);
  for (DenseTensor* t : {&y64, &dx64, &dw64}) t->AllocateFrom(CPUPlace());
  using conv_engine::Algo;
  conv_engine::Forward(Algo::kGemm, ToFloat64(x), ToFloat64(w), g, 1, &y64);
  conv_engine::BackwardData(Algo::kGemm, ToFloat64(dy), ToFloat64(w), g, 1, &dx64);
  conv_engine::BackwardWeights(Algo::kGemm, ToFloat64(x), ToFloat64(dy), g, 1, &dw64);
  auto passes = [&](bool winograd) {
    const ScopedConvWinograd flag(winograd);
    auto algo = [&](conv_engine::Pass pass) {
      return conv_engine::Choose(pass, DType::kFloat32, g, 2, 64, 32, 1);
    };
    std::vector<DenseTensor> out{Empty(yd), Empty(xd), Empty(wd)};
    conv_engine::Forward(algo(conv_engine::Pass::kForward), x, w, g, 1, &out[0]);
    conv_engine::BackwardData(algo(conv_engine::Pass::kBackwardData), dy, w, g, 1, &out[1]);
    conv_engine::BackwardWeights(algo(conv_engine::Pass::kBackwardWeights), x, dy, g, 1, &out[2]);
    return out;
  };
  const std::vector<DenseTensor> wino = passes(true), direct = passes(false);
  const DenseTensor* exact[] = {&y64, &dx64, &dw64};
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    // Measured on AVX-512: 7.9e-7, 6.2e-7 and 8.1e-7 (the direct algorithm: 2.2e-7,
    // 2.2e-7 and 6.0e-7).
    EXPECT_LT(NormRelativeError(wino[i], *exact[i]), 1.5e-6);
    const auto* a = static_cast<const float*>(wino[i].data());
    const auto* b = static_cast<const float*>(direct[i].data());
    EXPECT_FALSE(std::equal(a, a + wino[i].numel(), b));
  }
}

TEST(ConvInferMeta, TypedErrorsNameTheArgument) {
  DenseTensor x(DType::kFloat32, {1, 4, 5, 5}), out;
  testing::Catch(
      [&] { ConvInferMeta(x, DenseTensor(DType::kFloat32, {3, 3, 3, 3}), {}, {}, {}, 1, &out); },
      ErrorCode::kInvalidArgument, {"argument 'x' has 4 channels", "expects 3"});
  testing::Catch(
      [&] { ConvInferMeta(x, DenseTensor(DType::kFloat32, {3, 2, 3, 3}), {}, {}, {}, 2, &out); },
      ErrorCode::kInvalidArgument, {"argument 'groups' (2) must divide"});
  testing::Catch(
      [&] { ConvInferMeta(x, DenseTensor(DType::kFloat32, {2, 4, 7, 3}), {}, {}, {}, 1, &out); },
      ErrorCode::kInvalidArgument, {"argument 'weight'", "the kernel spans 7"});
  testing::Catch(
      [&] { ConvInferMeta(x, DenseTensor(DType::kFloat32, {2, 4, 3, 3}), {1}, {}, {}, 1, &out); },
      ErrorCode::kInvalidArgument, {"argument 'strides' [1] must have 2 values"});
  testing::Catch(
      [&] { ConvInferMeta(x, DenseTensor(DType::kFloat32, {2, 4, 3}), {}, {}, {}, 1, &out); },
      ErrorCode::kInvalidArgument, {"argument 'x' has shape [1, 4, 5, 5]"});
  testing::Catch(
      [&] { PoolInferMeta(x, {2, 2}, {2, 2}, {2, 2, 0, 0}, false, true, 0, false, &out); },
      ErrorCode::kInvalidArgument, {"argument 'paddings'", "at most half of kernel_size"});
  testing::Catch(
      [&] { PoolInferMeta(x, {6, 2}, {1, 1}, {0, 0, 0, 0}, false, true, 0, false, &out); },
      ErrorCode::kInvalidArgument, {"argument 'kernel_size' [6, 2] is larger"});
  DenseTensor idx(DType::kInt32, {1, 4, 2, 2});
  testing::Catch([&] { PoolGatherInferMeta(x, idx, &out); }, ErrorCode::kInvalidType,
                 {"argument 'index' must be an int64 tensor"});
}

TEST(PoolGather, OutOfRangeIndexIsATypedError) {
  const Tensor x = api::full({1, 1, 2, 2}, 1.0, DType::kFloat32);
  const Tensor index = api::full({1, 1, 1, 1}, 4, DType::kInt64);
  testing::Catch([&] { api::pool_gather(x, index); }, ErrorCode::kOutOfRange,
                 {"pool_gather(): argument 'index' holds 4"});
  // A negative index, and one in a later plane than the first (the check is per plane),
  // in both directions and in a low-precision dtype.
  const Tensor xb = api::full({1, 2, 2, 2}, 1.0, DType::kBFloat16);
  const Tensor bad = testing::Make({0, 1, -1, 2}, {1, 2, 2, 1}, DType::kInt64);
  testing::Catch([&] { api::pool_gather(xb, bad); }, ErrorCode::kOutOfRange,
                 {"pool_gather(): argument 'index' holds -1"});
  const Tensor g = api::full({1, 2, 2, 1}, 1.0, DType::kBFloat16);
  testing::Catch([&] { api::pool_scatter(xb, bad, g); }, ErrorCode::kOutOfRange,
                 {"pool_scatter(): argument 'index' holds -1"});
}

}  // namespace
}  // namespace oar
