// Folded convolutions of a loaded program (src/oar/jit/conv_folding.h): which
// conv -> batch_norm_infer [-> add] [-> relu] groups the plan takes, and that a
// run with them folded gives the op-by-op values up to rounding, with the
// program's outputs contiguous. 8 input channels: the folded path runs on every
// ISA there (Note [Convolutions folded for inference]).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "oar/core/cpu_isa.h"
#include "oar/core/parallel.h"
#include "oar/eager/trace.h"
#include "oar/jit/conv_folding.h"
#include "oar/jit/replay.h"
#include "oar/kernels/cpu/max_pool_channels_last.h"
#include "oar/oar.h"
#include "test_util.h"

namespace oar {
namespace {

using testing::Make;
using testing::Random;

constexpr int64_t kC = 8;

Tensor Floats(int64_t n, uint32_t seed, double scale, double shift,
              const std::vector<int64_t>& shape) {
  std::vector<double> v = Random(n, seed);
  for (double& e : v) e = e * scale + shift;
  return Make(v, shape, DType::kFloat32);
}

// A DenseTensor's values, as testing::Values gives a Tensor's.
std::vector<double> DenseValues(const DenseTensor& t) {
  return testing::Values(Tensor(std::make_shared<DenseTensor>(t)));
}

// got's values within rel times want's largest magnitude, which is above `least`.
void ExpectNearScaled(const Tensor& want, const Tensor& got, double rel, double least) {
  const std::vector<double> a = testing::Values(want), b = testing::Values(got);
  ASSERT_EQ(a.size(), b.size());
  double scale = 0;
  for (double v : a) scale = std::max(scale, std::abs(v));
  ASSERT_GT(scale, least);
  for (size_t j = 0; j < a.size(); ++j) EXPECT_NEAR(a[j], b[j], rel * scale) << j;
}

// The four tensors of one batch norm, away from the identity so that folding
// them changes the weight.
struct Norm {
  Tensor mean, variance, weight, bias;
  explicit Norm(uint32_t seed, int64_t c = kC)
      : mean(Floats(c, seed, 0.5, 0, {c})),
        variance(Floats(c, seed + 1, 0.4, 1.0, {c})),
        weight(Floats(c, seed + 2, 0.5, 1.0, {c})),
        bias(Floats(c, seed + 3, 0.3, 0, {c})) {}
  Tensor operator()(const Tensor& x) const {
    return batch_norm_infer(x, mean, variance, weight, bias, 1e-5, 1);
  }
  void Add(jit::Tracer& t, const std::string& name) const {
    t.AddParam(name + ".mean", mean);
    t.AddParam(name + ".variance", variance);
    t.AddParam(name + ".weight", weight);
    t.AddParam(name + ".bias", bias);
  }
};

TEST(JitConvFolding, GroupsFoldAndMatchTheOpsUpToRounding) {
  const Tensor x = Floats(2 * kC * 9 * 9, 1, 1.0, 0, {2, kC, 9, 9});
  const Tensor w1 = Floats(kC * kC * 9, 2, 0.3, 0, {kC, kC, 3, 3});
  const Tensor w2 = Floats(kC * kC * 9, 3, 0.3, 0, {kC, kC, 3, 3});
  const Tensor w3 = Floats(kC * kC, 4, 0.3, 0, {kC, kC, 1, 1});
  const Tensor w4 = Floats(kC * kC, 5, 0.3, 0, {kC, kC, 1, 1});
  const Norm n1(10), n2(20), n3(30), n4(40);
  jit::Tracer tracer(false);
  tracer.AddInput(x);
  const std::vector<std::pair<const char*, const Tensor*>> ws = {
      {"w1", &w1}, {"w2", &w2}, {"w3", &w3}, {"w4", &w4}};
  for (const auto& [name, w] : ws) tracer.AddParam(name, *w);
  n1.Add(tracer, "n1");
  n2.Add(tracer, "n2");
  n3.Add(tracer, "n3");
  n4.Add(tracer, "n4");
  Tensor out, side;
  {
    jit::Tracer::ActiveGuard active(&tracer);
    const std::vector<int64_t> one{1, 1}, pad{1, 1, 1, 1}, none{0, 0, 0, 0};
    Tensor h = relu(n1(conv(x, w1, one, pad, one)));  // conv, bn, relu
    Tensor g = n2(conv(h, w2, one, pad, one));        // conv, bn, add, relu
    h = relu(add(x, g));                              // (the residual first)
    const Tensor c = conv(h, w3, one, none, one);     // read twice: not a group
    side = add(c, c);
    out = n4(conv(add(n3(c), side), w4, one, none, one));  // conv, bn: an output
  }
  ASSERT_FALSE(tracer.broken());
  jit::Captured cap = jit::FromTracer(tracer, {out, side});
  const jit::Program& p = cap.program;

  const std::vector<jit::ConvGroup> groups = jit::PlanConvGroups(p);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_TRUE(groups[0].spec.relu);
  EXPECT_FALSE(groups[0].spec.residual);
  EXPECT_TRUE(groups[1].spec.relu);
  EXPECT_TRUE(groups[1].spec.residual);
  EXPECT_EQ(groups[1].residual, 0);  // the input x
  EXPECT_EQ(groups[1].last - groups[1].first, 3u);
  EXPECT_FALSE(groups[2].spec.relu || groups[2].spec.residual);
  EXPECT_TRUE(groups[2].program_output);
  EXPECT_FALSE(groups[0].program_output);

  std::vector<Tensor> params;
  for (const auto& [name, w] : ws) params.push_back(*w);
  for (const Norm* n : {&n1, &n2, &n3, &n4}) {
    params.insert(params.end(), {n->mean, n->variance, n->weight, n->bias});
  }
  NoGradGuard no_grad;
  const jit::FoldedConvs folded(p, params, cap.consts);
  EXPECT_EQ(folded.size(), 3u);
  // Group 1's convolution alone reads group 0's output; group 1's output is read by a
  // convolution that is not a group, group 2's is a program output.
  EXPECT_EQ(folded.At(groups[0].first)->readers, std::vector<int64_t>{1});
  EXPECT_EQ(folded.At(groups[0].first)->reads, 1);
  EXPECT_TRUE(folded.At(groups[1].first)->readers.empty());
  EXPECT_EQ(folded.At(groups[1].first)->reads, 0);
  EXPECT_EQ(folded.At(groups[2].first)->reads, 0);
  const std::vector<Tensor> plain = jit::Run(p, {x}, params, cap.consts);
  const std::vector<Tensor> fast = jit::Run(p, {x}, params, cap.consts, &folded);
  ASSERT_EQ(fast.size(), 2u);
  for (size_t i = 0; i < fast.size(); ++i) {
    EXPECT_TRUE(fast[i].is_contiguous());
    const std::vector<double> a = testing::Values(plain[i]), b = testing::Values(fast[i]);
    ASSERT_EQ(a.size(), b.size());
    double scale = 0;
    for (double v : a) scale = std::max(scale, std::abs(v));
    ASSERT_GT(scale, 0.1);
    for (size_t j = 0; j < a.size(); ++j) EXPECT_NEAR(a[j], b[j], 2e-6 * scale) << i << " " << j;
  }
  // A second call (the packed weights reused) gives the same bits.
  EXPECT_EQ(testing::Values(jit::Run(p, {x}, params, cap.consts, &folded)[0]),
            testing::Values(fast[0]));
}

// relu(n(conv(x, w))) with `padding` on every side, captured; out: its eager value.
jit::Captured CaptureConvNormRelu(const Tensor& x, const Tensor& w, const Norm& n, int64_t padding,
                                  Tensor* out) {
  jit::Tracer tracer(false);
  tracer.AddInput(x);
  tracer.AddParam("w", w);
  n.Add(tracer, "n");
  {
    jit::Tracer::ActiveGuard active(&tracer);
    *out = relu(n(conv(x, w, {1, 1}, std::vector<int64_t>(4, padding))));
  }
  return jit::FromTracer(tracer, {*out});
}

TEST(JitConvFolding, AGroupNeedingAGradientRunsTheOps) {
  const Tensor x = Floats(kC * 25, 6, 1.0, 0, {1, kC, 5, 5});
  const Tensor w = Floats(kC * kC, 7, 0.3, 0, {kC, kC, 1, 1});
  const Norm n(50);
  Tensor out;
  jit::Captured cap = CaptureConvNormRelu(x, w, n, 0, &out);
  const std::vector<Tensor> params{w, n.mean, n.variance, n.weight, n.bias};
  const jit::FoldedConvs folded(cap.program, params, cap.consts);
  ASSERT_EQ(folded.size(), 1u);
  Tensor xg = Floats(kC * 25, 6, 1.0, 0, {1, kC, 5, 5});
  xg.set_stop_gradient(false);
  const Tensor y = jit::Run(cap.program, {xg}, params, cap.consts, &folded)[0];
  ASSERT_FALSE(y.stop_gradient());  // recorded by the ops, not folded away
  sum(y).backward();
  EXPECT_TRUE(xg.grad().defined());
}

TEST(JitConvFolding, LoadFoldsUnlessTheFlagIsOff) {
  const Tensor x = Floats(kC * 36, 8, 1.0, 0, {1, kC, 6, 6});
  const Tensor w = Floats(kC * kC * 9, 9, 0.3, 0, {kC, kC, 3, 3});
  const Norm n(60);
  Tensor out;
  jit::Captured cap = CaptureConvNormRelu(x, w, n, 1, &out);
  const std::string model = R"({"format": "oar.model", "version": 1, "programs": {"eval": )" +
                            cap.program.ToJson() + "}}";
  const std::string path = testing::TempPath("jit_fold_model");
  jit::Save(path, model,
            {{"w", w},
             {"n.mean", n.mean},
             {"n.variance", n.variance},
             {"n.weight", n.weight},
             {"n.bias", n.bias}});
  const jit::Module folded = jit::Load(path);
  ASSERT_NE(folded.program("eval").folded, nullptr);
  EXPECT_EQ(folded.program("eval").folded->size(), 1u);
  SetFlag("jit_fold_conv", 0);
  const jit::Module plain = jit::Load(path);
  SetFlag("jit_fold_conv", 1);
  EXPECT_EQ(plain.program("eval").folded, nullptr);
  const std::vector<double> a = testing::Values(plain.Forward({x})[0]);
  const std::vector<double> b = testing::Values(folded.Forward({x})[0]);
  ASSERT_EQ(a.size(), b.size());
  for (size_t j = 0; j < a.size(); ++j) EXPECT_NEAR(a[j], b[j], 1e-5 * (1 + std::abs(a[j])));
  EXPECT_EQ(a, testing::Values(out));
}

// A max_pool after a folded convolution pools in its channels-last layout
// (kernels/cpu/max_pool_channels_last.h): the op's bits, and the folded
// convolution after it reads the pooled tensor as is, also as its residual.
TEST(JitConvFolding, MaxPoolKeepsTheChannelsLastLayout) {
  const Tensor x = Floats(kC * 81, 60, 1.0, 0, {1, kC, 9, 9});
  const Tensor w1 = Floats(kC * kC * 9, 61, 0.3, 0, {kC, kC, 3, 3});
  const Tensor w2 = Floats(kC * kC, 62, 0.3, 0, {kC, kC, 1, 1});
  const Norm n1(70), n2(80);
  jit::Tracer tracer(false);
  tracer.AddInput(x);
  tracer.AddParam("w1", w1);
  tracer.AddParam("w2", w2);
  n1.Add(tracer, "n1");
  n2.Add(tracer, "n2");
  Tensor out, pooled;
  {
    jit::Tracer::ActiveGuard active(&tracer);
    const std::vector<int64_t> one{1, 1}, pad{1, 1, 1, 1}, none{0, 0, 0, 0};
    const Tensor h = relu(n1(conv(x, w1, one, pad, one)));
    pooled = max_pool(h, {3, 3}, {2, 2}, pad);
    out = relu(add(n2(conv(pooled, w2, one, none, one)), pooled));
  }
  const jit::Captured cap = jit::FromTracer(tracer, {out, pooled});
  const std::vector<jit::ConvGroup> groups = jit::PlanConvGroups(cap.program);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_TRUE(groups[1].max_pool && groups[1].program_output);
  EXPECT_EQ(groups[2].residual, groups[1].output);
  std::vector<Tensor> params{w1, w2};
  for (const Norm* n : {&n1, &n2}) {
    params.insert(params.end(), {n->mean, n->variance, n->weight, n->bias});
  }
  NoGradGuard no_grad;
  const jit::FoldedConvs folded(cap.program, params, cap.consts);
  const std::vector<Tensor> plain = jit::Run(cap.program, {x}, params, cap.consts);
  const std::vector<Tensor> fast = jit::Run(cap.program, {x}, params, cap.consts, &folded);
  EXPECT_TRUE(fast[1].is_contiguous());  // a program output
  const std::vector<double> a = testing::Values(plain[0]), b = testing::Values(fast[0]);
  for (size_t j = 0; j < a.size(); ++j) EXPECT_NEAR(a[j], b[j], 1e-5) << j;
  // The pooled values themselves are the folded convolution's, pooled exactly.
  const std::vector<double> h = testing::Values(
      max_pool(relu(n1(conv(x, w1, {1, 1}, {1, 1, 1, 1}, {1, 1}))), {3, 3}, {2, 2}, {1, 1, 1, 1}));
  const std::vector<double> p = testing::Values(fast[1]);
  for (size_t j = 0; j < h.size(); ++j) EXPECT_NEAR(h[j], p[j], 1e-5) << j;
}

TEST(JitConvFolding, ChannelsLastMaxPoolIsTheOpsBits) {
  // A channels-last view (an NHWC tensor transposed), a NaN in one window and
  // ties; 3x3 windows at stride 2 with padding and ceil_mode, 2x2 without.
  std::vector<double> v = Random(2 * 7 * 6 * kC, 90);
  v[5 * kC + 3] = std::nan("");
  v[17 * kC + 1] = v[18 * kC + 1] = 4.0;
  const Tensor nhwc = Make(v, {2, 7, 6, kC}, DType::kFloat32);
  const Tensor x = transpose(nhwc, {0, 3, 1, 2});
  ASSERT_EQ(x.strides()[1], 1);
  struct Case {
    std::vector<int64_t> kernel, strides, paddings;
    bool ceil_mode;
  };
  for (const Case& c :
       {Case{{3, 3}, {2, 2}, {1, 1, 1, 1}, true}, Case{{2, 2}, {2, 2}, {0, 0, 0, 0}, false}}) {
    ASSERT_TRUE(conv_engine::MaxPoolTakes(x.dense(), c.kernel, c.strides, c.paddings, c.ceil_mode));
    const Tensor want = max_pool(x, c.kernel, c.strides, c.paddings, c.ceil_mode);
    const DenseTensor got =
        conv_engine::MaxPoolChannelsLast(x.dense(), c.kernel, c.strides, c.paddings, c.ceil_mode,
                                         /*plain=*/false);
    EXPECT_EQ(got.strides()[1], 1);
    const std::vector<double> a = testing::Values(want);
    const std::vector<double> b = DenseValues(got);
    ASSERT_EQ(a.size(), b.size());
    bool saw_nan = false;
    for (size_t j = 0; j < a.size(); ++j) {
      if (std::isnan(a[j])) {
        saw_nan = true;
        EXPECT_TRUE(std::isnan(b[j])) << j;
      } else {
        EXPECT_EQ(a[j], b[j]) << j;
      }
    }
    EXPECT_TRUE(saw_nan);
  }
  // A plain (contiguous) input has a channel stride above one: the ops run.
  const Tensor nchw = Make(v, {2, kC, 7, 6}, DType::kFloat32);
  EXPECT_FALSE(conv_engine::MaxPoolTakes(nchw.dense(), {2, 2}, {2, 2}, {0, 0, 0, 0}, false));
}

// Note [Max pooling reads and writes channel blocks]: between channels last and dense
// 16-channel blocks, either way, the op's bits (a NaN, ties).
TEST(JitConvFolding, MaxPoolBetweenChannelBlocksIsTheOpsBits) {
  constexpr int64_t c = 32, b = conv_engine::kPoolChannelBlock, h = 7, w = 6;
  std::vector<double> v = Random(2 * h * w * c, 95);
  v[5 * c + 19] = std::nan("");
  v[17 * c + 1] = v[18 * c + 1] = 4.0;
  const Tensor x = transpose(Make(v, {2, h, w, c}, DType::kFloat32), {0, 3, 1, 2});
  // The offset of element i of an NCHW tensor of dims d in blocks: [N, C / b, H, W, b].
  auto at = [&](int64_t i, const DDim& d) {
    const int64_t n = i / (d[1] * d[2] * d[3]), ch = i / (d[2] * d[3]) % d[1];
    return ((n * (d[1] / b) + ch / b) * d[2] * d[3] + i % (d[2] * d[3])) * b + ch % b;
  };
  auto blocks = [&](const std::vector<double>& nchw, const DDim& d) {
    DenseTensor t(DType::kUInt8, DDim{Product(d) * 4});
    auto* f = reinterpret_cast<float*>(t.mutable_data<uint8_t>());
    for (int64_t i = 0; i < Product(d); ++i) f[at(i, d)] = static_cast<float>(nchw[i]);
    return t;
  };
  auto unblock = [&](const DenseTensor& t, const DDim& d) {
    const auto* f = reinterpret_cast<const float*>(t.data<uint8_t>());
    std::vector<double> out(static_cast<size_t>(Product(d)));
    for (int64_t i = 0; i < Product(d); ++i) out[i] = f[at(i, d)];
    return out;
  };
  auto same = [](const std::vector<double>& a, const std::vector<double>& got) {
    ASSERT_EQ(a.size(), got.size());
    for (size_t j = 0; j < a.size(); ++j) {
      if (std::isnan(a[j])) {
        EXPECT_TRUE(std::isnan(got[j])) << j;
      } else {
        EXPECT_EQ(a[j], got[j]) << j;
      }
    }
  };
  const std::vector<int64_t> k{3, 3}, st{2, 2}, pad{1, 1, 1, 1};
  const DDim xd = x.dims();
  ASSERT_TRUE(conv_engine::MaxPoolTakesBlocks(xd, k, st, pad, true));
  EXPECT_FALSE(conv_engine::MaxPoolTakesBlocks(DDim{2, 24, h, w}, k, st, pad, true));
  const Tensor want = max_pool(x, k, st, pad, true);
  const std::vector<double> a = testing::Values(want);
  const DDim yd = conv_engine::MaxPoolDims(xd, k, st, pad, true);
  EXPECT_EQ(yd, want.dims());
  const DenseTensor xb = blocks(testing::Values(x), xd);
  // channels last -> blocks, blocks -> channels last, blocks -> blocks
  same(a,
       unblock(conv_engine::MaxPoolChannelBlocks(&x.dense(), nullptr, xd, k, st, pad, true, true),
               yd));
  const DenseTensor cl =
      conv_engine::MaxPoolChannelBlocks(nullptr, &xb, xd, k, st, pad, true, false);
  EXPECT_EQ(cl.strides()[1], 1);
  same(a, DenseValues(cl));
  same(a, unblock(conv_engine::MaxPoolChannelBlocks(nullptr, &xb, xd, k, st, pad, true, true), yd));
}

// A 3x3 convolution's operands: input and residual [2, c, hw, hw], weight and batch norm.
struct ThreeByThree {
  Tensor x, r, w;
  Norm n;
  ThreeByThree(int64_t c, int64_t hw, uint32_t seed)
      : x(Floats(2 * c * hw * hw, seed, 1.0, 0, {2, c, hw, hw})),
        r(Floats(2 * c * hw * hw, seed + 1, 1.0, 0, {2, c, hw, hw})),
        w(Floats(c * c * 9, seed + 2, 0.2, 0, {c, c, 3, 3})),
        n(seed + 10, c) {}
};

// Note [Winograd's algorithm for small activations]: a 3x3 stride-1
// convolution of an input of at most kWinogradMaxInputBytes with at least
// kWinogradMinFoldedPositions output positions runs Winograd's algorithm where
// oneDNN has it (AVX-512), with the direct algorithm's values up to the transforms'
// rounding; a larger input, fewer positions, a stride or the flag off keeps the
// direct one.
TEST(JitConvFolding, WinogradTakesSmallThreeByThreeConvolutions) {
  constexpr int64_t c = 32;
  const ThreeByThree t(c, 10, 100);
  const Tensor &x = t.x, &r = t.r, &w = t.w;
  const Norm& n = t.n;
  auto prepare = [&](bool winograd, int64_t stride) {
    const conv_engine::InferenceConvSpec spec{{stride, stride},  {1, 1, 1, 1},  {1, 1},  1,
                                              /*residual=*/true, /*relu=*/true, winograd};
    return std::make_unique<conv_engine::InferenceConv>(w.dense(), n.mean.dense(),
                                                        n.variance.dense(), n.weight.dense(),
                                                        n.bias.dense(), 1e-5, spec);
  };
  const auto wino = prepare(true, 1), direct = prepare(false, 1);
  const bool has = MaxCpuIsa() >= CpuIsa::kAvx512;  // oneDNN has it on AVX-512
  EXPECT_EQ(wino->RunsWinograd(x.dense()), has);
  EXPECT_FALSE(direct->RunsWinograd(x.dense()));
  EXPECT_FALSE(prepare(true, 2)->RunsWinograd(x.dense()));
  // 2 * 32 * 90 * 91 floats are just under the limit, 2 * 32 * 91 * 91 over it; where
  // oneDNN has no Winograd kernel oar's own takes both (Note [Folded convolutions run
  // oar's Winograd kernel where oneDNN has none]), having 384 output positions or more.
  EXPECT_TRUE(wino->RunsWinograd(Floats(2 * c * 90 * 91, 103, 1, 0, {2, c, 90, 91}).dense()));
  EXPECT_EQ(wino->RunsWinograd(Floats(2 * c * 91 * 91, 104, 1, 0, {2, c, 91, 91}).dense()), !has);
  EXPECT_FALSE(direct->RunsWinograd(Floats(2 * c * 91 * 91, 104, 1, 0, {2, c, 91, 91}).dense()));
  // 7x7 outputs: 98 positions at batch 2 and 147 at batch 3, either side of
  // kWinogradMinFoldedPositions; oar's own kernel takes neither (fewer than 384).
  EXPECT_FALSE(wino->RunsWinograd(Floats(2 * c * 49, 106, 1, 0, {2, c, 7, 7}).dense()));
  EXPECT_EQ(wino->RunsWinograd(Floats(3 * c * 49, 107, 1, 0, {3, c, 7, 7}).dense()), has);

  const std::vector<double> ops =
      testing::Values(relu(add(n(conv(x, w, {1, 1}, {1, 1, 1, 1}, {1, 1})), r)));
  const std::vector<double> a = DenseValues(direct->Run(x.dense(), &r.dense(), true));
  const DenseTensor plain = wino->Run(x.dense(), &r.dense(), true);
  const std::vector<double> b = DenseValues(plain);
  EXPECT_TRUE(plain.is_contiguous());
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.size(), ops.size());
  double scale = 0;
  for (double v : a) scale = std::max(scale, std::abs(v));
  ASSERT_GT(scale, 1.0);
  for (size_t j = 0; j < a.size(); ++j) {
    EXPECT_NEAR(a[j], b[j], 1e-5 * scale) << j;
    EXPECT_NEAR(ops[j], b[j], 1e-5 * scale) << j;
  }
  // Not a program output: channels last, from a channels-last input as from a plain one.
  const Tensor x_last = transpose(Floats(2 * c * 100, 105, 1.0, 0, {2, 10, 10, c}), {0, 3, 1, 2});
  const Tensor x_plain = Make(testing::Values(x_last), {2, c, 10, 10}, DType::kFloat32);
  const DenseTensor kept = wino->Run(x_last.dense(), &r.dense(), false);
  EXPECT_EQ(kept.strides(), (DDim{100 * c, 1, 10 * c, c}));
  EXPECT_EQ(DenseValues(kept), DenseValues(wino->Run(x_plain.dense(), &r.dense(), true)));

  // A loaded program's folded convolution follows FLAGS_conv_winograd.
  Tensor out;
  const jit::Captured cap = CaptureConvNormRelu(x, w, n, 1, &out);
  const std::vector<Tensor> params{w, n.mean, n.variance, n.weight, n.bias};
  const jit::FoldedConvs on(cap.program, params, cap.consts);
  SetFlag("conv_winograd", 0);
  const jit::FoldedConvs off(cap.program, params, cap.consts);
  SetFlag("conv_winograd", 1);
  ASSERT_NE(on.At(0), nullptr);
  EXPECT_EQ(on.Conv(*on.At(0))->RunsWinograd(x.dense()), has);
  EXPECT_FALSE(off.Conv(*off.At(0))->RunsWinograd(x.dense()));
}

// Note [Folded convolutions run oar's Winograd kernel where oneDNN has none]: a folded
// convolution of 1,152 output positions runs Winograd's algorithm on every CPU (oneDNN's
// on AVX-512 up to its input limit, oar's own elsewhere), with the ops' values up to the
// transforms' rounding, from a plain and a channels-last input, with and without the
// residual and relu.
TEST(JitConvFolding, WinogradFoldsBiasResidualAndRelu) {
  constexpr int64_t c = 32;
  const ThreeByThree t(c, 24, 120);
  const Tensor &x = t.x, &r = t.r, &w = t.w;
  const Norm& n = t.n;
  const Tensor x_last = transpose(Floats(2 * c * 576, 124, 1.0, 0, {2, 24, 24, c}), {0, 3, 1, 2});
  for (const bool fused : {true, false}) {
    SCOPED_TRACE(fused);
    const conv_engine::InferenceConvSpec spec{{1, 1}, {1, 1, 1, 1}, {1, 1}, 1, fused, fused, true};
    const conv_engine::InferenceConv folded(w.dense(), n.mean.dense(), n.variance.dense(),
                                            n.weight.dense(), n.bias.dense(), 1e-5, spec);
    ASSERT_TRUE(folded.RunsWinograd(x.dense()));
    for (const Tensor& in : {x, x_last}) {
      Tensor expect = n(conv(in, w, {1, 1}, {1, 1, 1, 1}, {1, 1}));
      if (fused) expect = relu(add(expect, r));
      const std::vector<double> ops = testing::Values(expect);
      const std::vector<double> got =
          DenseValues(folded.Run(in.dense(), fused ? &r.dense() : nullptr, true));
      ASSERT_EQ(got.size(), ops.size());
      double scale = 0;
      for (double v : ops) scale = std::max(scale, std::abs(v));
      ASSERT_GT(scale, 1.0);
      for (size_t j = 0; j < ops.size(); ++j) EXPECT_NEAR(ops[j], got[j], 1e-5 * scale) << j;
    }
  }
}

// Note [Folded convolutions sum in blocks where the ops do]: a folded convolution's
// norm-wise relative error against float64 stays near one block's, as the ops' does
// (ConvForwardSum in test_kernels_conv.cc), on every ISA: 264 input channels (16 full
// blocks and one of 8), a residual and relu, from a plain and a channels-last input.
// With the folded convolution summing every channel in one accumulator on the Zen 3
// (AVX2), the error was 8.5e-7.
TEST(JitConvFolding, FoldedErrorStaysNearOneBlocksOnEveryIsa) {
  constexpr int64_t c_in = 264, c_out = 32;
  const Tensor x = Floats(2 * c_in * 100, 120, 1.0, 0, {2, c_in, 10, 10});
  const Tensor r = Floats(2 * c_out * 100, 121, 1.0, 0, {2, c_out, 10, 10});
  const Tensor w = Floats(c_out * c_in * 9, 122, 1.0, 0, {c_out, c_in, 3, 3});
  // The identity batch norm (s = 1 exactly with epsilon 0): the folded weight is w.
  const Tensor zeros = Make(std::vector<double>(c_out, 0.0), {c_out}, DType::kFloat32);
  const Tensor ones = Make(std::vector<double>(c_out, 1.0), {c_out}, DType::kFloat32);
  const conv_engine::InferenceConvSpec spec{{1, 1}, {1, 1, 1, 1},      {1, 1},
                                            1,      /*residual=*/true, /*relu=*/true};
  const conv_engine::InferenceConv folded(w.dense(), zeros.dense(), ones.dense(), ones.dense(),
                                          zeros.dense(), 0.0, spec);
  ASSERT_TRUE(folded.Supports(x.dense()));
  const auto f64 = [](const Tensor& t) { return cast(t, DType::kFloat64); };
  const std::vector<double> ref =
      testing::Values(relu(add(conv(f64(x), f64(w), {1, 1}, {1, 1, 1, 1}, {1, 1}), f64(r))));
  const auto error = [&](const DenseTensor& y) {
    const std::vector<double> v = DenseValues(y);
    EXPECT_EQ(v.size(), ref.size());
    double err = 0, norm = 0;
    for (size_t i = 0; i < v.size() && i < ref.size(); ++i) {
      err += (v[i] - ref[i]) * (v[i] - ref[i]);
      norm += ref[i] * ref[i];
    }
    return std::sqrt(err / norm);
  };
  const DenseTensor y = folded.Run(x.dense(), &r.dense(), true);
  EXPECT_LT(error(y), 2.6e-7);
  EXPECT_EQ(DenseValues(folded.Run(x.dense(), &r.dense(), true)), DenseValues(y));
  const Tensor x_last =
      Make(testing::Values(transpose(x, {0, 2, 3, 1})), {2, 10, 10, c_in}, DType::kFloat32);
  const DenseTensor kept = folded.Run(transpose(x_last, {0, 3, 1, 2}).dense(), &r.dense(), false);
  EXPECT_EQ(kept.strides(), (DDim{100 * c_out, 1, 10 * c_out, c_out}));
  EXPECT_LT(error(kept), 2.6e-7);
  // A batch of one (Note [A batch of one reorders its input once for all blocks] in
  // conv_onednn.h) has the bits of the same sample in the batch of two.
  const auto first = [](const Tensor& t, int64_t c) {
    const std::vector<double> v = testing::Values(t);
    return Make(std::vector<double>(v.begin(), v.begin() + c * 100), {1, c, 10, 10},
                DType::kFloat32);
  };
  const std::vector<double> both = DenseValues(y);
  EXPECT_EQ(DenseValues(folded.Run(first(x, c_in).dense(), &first(r, c_out).dense(), true)),
            std::vector<double>(both.begin(), both.begin() + c_out * 100));
}

// Note [A convolution's only reader takes its output blocked]: an output handed to the
// convolution that reads it in that reader's channel blocks gives it the bits the
// tensor gives, Plain gives the tensor back bit for bit, and a chain of three passes it
// on blocked. On AVX-512 oneDNN's kernels for 32 channels read blocks (Winograd's and
// the direct one); elsewhere the reader may take a tensor (ReadsBlocked false).
TEST(JitConvFolding, AnOnlyReaderTakesTheOutputBlocked) {
  for (const int64_t c : {kC, int64_t{32}}) {
    for (const bool winograd : {false, true}) {
      SCOPED_TRACE(std::to_string(c) + (winograd ? " winograd" : " direct"));
      const ThreeByThree t(c, 10, 300);
      const Tensor w2 = Floats(c * c * 9, 310, 0.2, 0, {c, c, 3, 3});
      const Norm n2(320, c);
      auto make = [&](const Tensor& w, const Norm& n, bool residual) {
        const conv_engine::InferenceConvSpec spec{{1, 1},   {1, 1, 1, 1}, {1, 1},  1,
                                                  residual, true,         winograd};
        return std::make_unique<conv_engine::InferenceConv>(w.dense(), n.mean.dense(),
                                                            n.variance.dense(), n.weight.dense(),
                                                            n.bias.dense(), 1e-5, spec);
      };
      const auto a = make(t.w, t.n, false), b = make(w2, n2, true), d = make(t.w, n2, false);
      const DDim mid = a->OutputDims(t.x.dense());
      if (!b->ReadsBlocked(mid)) {
        EXPECT_TRUE(c == kC || MaxCpuIsa() < CpuIsa::kAvx512);
        continue;
      }
      const conv_engine::BlockedActivation h = a->RunBlocked(t.x.dense(), nullptr, *b);
      EXPECT_EQ(h.dims, mid);
      const DenseTensor hp = a->Run(t.x.dense(), nullptr, true);
      EXPECT_EQ(DenseValues(b->Plain(h)), DenseValues(hp));
      const DenseTensor y = b->Run(hp, &t.r.dense(), true);
      EXPECT_EQ(DenseValues(b->Run(h, &t.r.dense(), true)), DenseValues(y));
      if (d->ReadsBlocked(mid)) {  // a -> b -> d, both handed over blocked
        const conv_engine::BlockedActivation k = b->RunBlocked(h, &t.r.dense(), *d);
        EXPECT_EQ(DenseValues(d->Run(k, nullptr, true)), DenseValues(d->Run(y, nullptr, true)));
      }
    }
  }
  // A writer running oar's own Winograd kernel (without AVX-512: 32 channels, 392
  // positions) hands its plain output over reordered, to a 1x1 reader that reads blocks.
  constexpr int64_t c = 32;
  const ThreeByThree t(c, 14, 340);
  const Tensor& x = t.x;
  const Tensor w1x1 = Floats(c * c, 350, 0.2, 0, {c, c, 1, 1});
  const conv_engine::InferenceConvSpec three{{1, 1}, {1, 1, 1, 1}, {1, 1}, 1, false, true, true};
  const conv_engine::InferenceConvSpec one{{1, 1}, {0, 0, 0, 0}, {1, 1}, 1, false, false, true};
  const conv_engine::InferenceConv a(t.w.dense(), t.n.mean.dense(), t.n.variance.dense(),
                                     t.n.weight.dense(), t.n.bias.dense(), 1e-5, three);
  const conv_engine::InferenceConv e(w1x1.dense(), t.n.mean.dense(), t.n.variance.dense(),
                                     t.n.weight.dense(), t.n.bias.dense(), 1e-5, one);
  EXPECT_TRUE(a.RunsWinograd(x.dense()));
  if (e.ReadsBlocked(a.OutputDims(x.dense()))) {
    const conv_engine::BlockedActivation h = a.RunBlocked(x.dense(), nullptr, e);
    const DenseTensor hp = a.Run(x.dense(), nullptr, true);
    EXPECT_EQ(DenseValues(e.Plain(h)), DenseValues(hp));
    EXPECT_EQ(DenseValues(e.Run(h, nullptr, true)), DenseValues(e.Run(hp, nullptr, true)));
  }
}

// A reader that cannot fold after all (its residual broadcasts) gets the blocked output
// back as a tensor and runs the ops on it: the values of the run without folding, up
// to rounding.
TEST(JitConvFolding, AReaderThatCannotFoldGetsTheTensorBack) {
  constexpr int64_t c = 32;
  const ThreeByThree t(c, 10, 400);
  const Tensor w2 = Floats(c * c * 9, 410, 0.2, 0, {c, c, 3, 3});
  const Tensor r = Floats(c, 420, 1.0, 0, {1, c, 1, 1});
  const Norm n2(430, c);
  jit::Tracer tracer(false);
  tracer.AddInput(t.x);
  tracer.AddInput(r);
  tracer.AddParam("w1", t.w);
  tracer.AddParam("w2", w2);
  t.n.Add(tracer, "n1");
  n2.Add(tracer, "n2");
  Tensor out;
  {
    jit::Tracer::ActiveGuard active(&tracer);
    const std::vector<int64_t> one{1, 1}, pad{1, 1, 1, 1};
    const Tensor h = relu(t.n(conv(t.x, t.w, one, pad, one)));
    out = relu(add(n2(conv(h, w2, one, pad, one)), r));
  }
  ASSERT_FALSE(tracer.broken());
  const jit::Captured cap = jit::FromTracer(tracer, {out});
  const std::vector<Tensor> params{t.w,      w2,      t.n.mean,    t.n.variance, t.n.weight,
                                   t.n.bias, n2.mean, n2.variance, n2.weight,    n2.bias};
  NoGradGuard no_grad;
  const jit::FoldedConvs folded(cap.program, params, cap.consts);
  ASSERT_EQ(folded.size(), 2u);
  ExpectNearScaled(jit::Run(cap.program, {t.x, r}, params, cap.consts)[0],
                   jit::Run(cap.program, {t.x, r}, params, cap.consts, &folded)[0], 1e-5, 1.0);
}

// Note [A block's output stays in blocks for both its readers]: a residual held in the
// writer's output layout is added onto in place, giving the bits of the tensor route,
// and its bytes become the output's where the output is held in that layout; an output
// held in the writer's own layout gives the tensor back bit for bit. On AVX-512 the
// direct kernels for 32 channels read and write one blocked layout; elsewhere nothing
// is held (WritesBlocked false).
TEST(JitConvFolding, AResidualHeldInBlocksIsAddedOntoInPlace) {
  constexpr int64_t c = 32;
  const ThreeByThree t(c, 10, 600);
  const Tensor w2 = Floats(c * c * 9, 610, 0.2, 0, {c, c, 3, 3});
  const Norm n2(620, c);
  const conv_engine::InferenceConvSpec plain{{1, 1}, {1, 1, 1, 1}, {1, 1}, 1, false, true, false};
  const conv_engine::InferenceConvSpec sum{{1, 1}, {1, 1, 1, 1}, {1, 1}, 1, true, true, false};
  const conv_engine::InferenceConv s(t.w.dense(), t.n.mean.dense(), t.n.variance.dense(),
                                     t.n.weight.dense(), t.n.bias.dense(), 1e-5, plain);
  const conv_engine::InferenceConv b(w2.dense(), n2.mean.dense(), n2.variance.dense(),
                                     n2.weight.dense(), n2.bias.dense(), 1e-5, sum);
  const DDim dims = s.OutputDims(t.x.dense());
  if (!s.WritesBlocked(t.x.dense().dims())) {
    EXPECT_LT(MaxCpuIsa(), CpuIsa::kAvx512);
    return;
  }
  // s's output held in its own layout, then as b's residual: b(r) + s(x).
  const DenseTensor sp = s.Run(t.x.dense(), nullptr, true);
  conv_engine::BlockedActivation own = s.RunBlocked({.x = &t.x.dense()}, nullptr);
  EXPECT_EQ(own.dims, dims);
  EXPECT_EQ(DenseValues(conv_engine::InferenceConv::Plain(own)), DenseValues(sp));
  const DenseTensor want = b.Run(t.r.dense(), &sp, true);
  ASSERT_TRUE(b.AddsOnto(own, t.r.dense().dims()));
  EXPECT_FALSE(s.AddsOnto(own, t.x.dense().dims()));  // no residual in its spec
  EXPECT_EQ(DenseValues(b.Run({.x = &t.r.dense(), .onto = &own}, true)), DenseValues(want));
  EXPECT_FALSE(own.bytes.initialized());  // taken
  // Held for a reader of that layout, the sum's destination is the output's bytes.
  ASSERT_TRUE(b.ReadsBlocked(dims));
  conv_engine::BlockedActivation again = s.RunBlocked({.x = &t.x.dense()}, nullptr);
  const void* bytes = again.bytes.data();
  const conv_engine::BlockedActivation y = b.RunBlocked({.x = &t.r.dense(), .onto = &again}, &b);
  EXPECT_TRUE(b.ReadsAsIs(y));
  EXPECT_TRUE(b.SameInputLayout(b, dims));
  if (y.layout != nullptr && b.AddsOnto(y, dims)) EXPECT_EQ(y.bytes.data(), bytes);
  EXPECT_EQ(DenseValues(conv_engine::InferenceConv::Plain(y)), DenseValues(want));
}

// Note [A batch of one runs in parts of its output channels]: a batch of one with
// kPartMinChannels output channels per thread and a channel-blocked output or running
// sum runs one part per thread, and gives the bits of the whole convolution: on AVX-512
// one primitive each, Winograd's algorithm (3x3, stride 1) and the direct one (1x1,
// stride 2), on AVX2 the 3x3 one's blocks of input channels, adding a residual given as
// a tensor or held in blocks, then relu.
TEST(JitConvFolding, ABatchOfOneRunsInPartsWithTheWholePrimitivesBits) {
  const int64_t threads = detail::IntraOpThreads();
  const int64_t c = conv_engine::kPartMinChannels * std::max<int64_t>(threads, 2);
  const Tensor x = Floats(c * 12 * 12, 900, 1.0, 0, {1, c, 12, 12});
  const Norm n(910, c);
  for (const int64_t k : {3, 1}) {
    const int64_t stride = k == 3 ? 1 : 2, pad = k / 2;
    const Tensor w = Floats(c * c * k * k, 920 + static_cast<uint32_t>(k), 0.1, 0, {c, c, k, k});
    conv_engine::InferenceConvSpec spec{
        {stride, stride}, {pad, pad, pad, pad}, {1, 1}, 1, true, true, true, true};
    const conv_engine::InferenceConv parts(w.dense(), n.mean.dense(), n.variance.dense(),
                                           n.weight.dense(), n.bias.dense(), 1e-5, spec);
    spec.split_output_channels = false;
    const conv_engine::InferenceConv whole(w.dense(), n.mean.dense(), n.variance.dense(),
                                           n.weight.dense(), n.bias.dense(), 1e-5, spec);
    const DDim& dims = x.dense().dims();
    const DDim out = whole.OutputDims(dims);
    const Tensor r =
        Floats(Product(out), 930, 1.0, 0, std::vector<int64_t>(out.begin(), out.end()));
    EXPECT_EQ(whole.Parts(dims), 0);
    if (threads >= 2 && MaxCpuIsa() >= CpuIsa::kAvx2) EXPECT_EQ(parts.Parts(dims), threads) << k;
    if (threads >= 2 && MaxCpuIsa() >= CpuIsa::kAvx512) ASSERT_TRUE(parts.WritesBlocked(dims)) << k;
    const std::vector<double> want = DenseValues(whole.Run(x.dense(), &r.dense(), true));
    EXPECT_EQ(DenseValues(parts.Run(x.dense(), &r.dense(), true)), want) << k;
    if (k != 3 || !parts.WritesBlocked(dims)) continue;
    // A residual held in the output's blocks (written by a convolution of r): the parts
    // add onto their bytes of it.
    spec.residual = false;
    const conv_engine::InferenceConv writer(w.dense(), n.mean.dense(), n.variance.dense(),
                                            n.weight.dense(), n.bias.dense(), 1e-5, spec);
    conv_engine::BlockedActivation held = writer.RunBlocked({.x = &r.dense()}, nullptr);
    const DenseTensor residual = conv_engine::InferenceConv::Plain(held);
    ASSERT_TRUE(parts.AddsOnto(held, dims));
    EXPECT_EQ(DenseValues(parts.Run({.x = &x.dense(), .onto = &held}, true)),
              DenseValues(whole.Run(x.dense(), &residual, true)));
  }
}

// Note [A batch of one runs in parts of its output channels], from several threads at
// once (the Threads suite runs under TSan too): a call that finds oar's pool busy runs
// its parts on its own thread, and every call gives the whole convolution's bits.
TEST(Threads, FoldedConvolutionsInPartsRunFromSeveralThreads) {
  const int64_t c = conv_engine::kPartMinChannels * std::max<int64_t>(detail::IntraOpThreads(), 2);
  const Tensor x = Floats(c * 8 * 8, 940, 1.0, 0, {1, c, 8, 8});
  const Tensor r = Floats(c * 8 * 8, 941, 1.0, 0, {1, c, 8, 8});
  const Tensor w = Floats(c * c * 9, 942, 0.1, 0, {c, c, 3, 3});
  const Norm n(950, c);
  conv_engine::InferenceConvSpec spec{{1, 1}, {1, 1, 1, 1}, {1, 1}, 1, true, true, false};
  const conv_engine::InferenceConv parts(w.dense(), n.mean.dense(), n.variance.dense(),
                                         n.weight.dense(), n.bias.dense(), 1e-5, spec);
  spec.split_output_channels = false;
  const conv_engine::InferenceConv whole(w.dense(), n.mean.dense(), n.variance.dense(),
                                         n.weight.dense(), n.bias.dense(), 1e-5, spec);
  const int64_t pool = detail::IntraOpThreads();
  if (pool >= 2 && MaxCpuIsa() >= CpuIsa::kAvx2) EXPECT_EQ(parts.Parts(x.dense().dims()), pool);
  const std::vector<double> want = DenseValues(whole.Run(x.dense(), &r.dense(), true));
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      for (int rep = 0; rep < 20; ++rep) {
        if (DenseValues(parts.Run(x.dense(), &r.dense(), true)) != want) wrong.fetch_add(1);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

// A held activation without its layout (not one RunBlocked gave) is read by nothing:
// the queries say no and the calls raise a typed error.
TEST(JitConvFolding, AHeldActivationWithoutItsLayoutIsRefused) {
  const ThreeByThree t(kC, 6, 800);
  const conv_engine::InferenceConvSpec sum{{1, 1}, {1, 1, 1, 1}, {1, 1}, 1, true, true, false};
  const conv_engine::InferenceConv b(t.w.dense(), t.n.mean.dense(), t.n.variance.dense(),
                                     t.n.weight.dense(), t.n.bias.dense(), 1e-5, sum);
  conv_engine::BlockedActivation bare{DenseTensor(DType::kUInt8, DDim{4}), t.x.dims(), nullptr};
  EXPECT_FALSE(b.ReadsAsIs(bare));
  EXPECT_FALSE(b.AddsOnto(bare, t.x.dims()));
  EXPECT_FALSE(conv_engine::InferenceConv::DenseChannelBlocks(bare, 16));
  testing::Catch([&] { conv_engine::InferenceConv::Plain(bare); }, ErrorCode::kInvalidArgument,
                 {"without its layout"});
  testing::Catch([&] { b.Run({.blocked_x = &bare, .residual = &t.r.dense()}, true); },
                 ErrorCode::kInvalidArgument, {"input's blocks"});
  testing::Catch([&] { b.Run({.x = &t.x.dense(), .onto = &bare}, true); },
                 ErrorCode::kInvalidArgument, {"residual's blocks"});
}

// A ResNet-like program: a stem of three input channels and a max pool, a block whose
// input two groups read (the first convolution and the residual add), and a
// downsampling block whose input two convolutions read. Folded with its outputs held in blocks: the
// values of the ops up to rounding, the same bits in a second call, the plan's readers, and the
// blocked preference of the convolutions sharing an input.
TEST(JitConvFolding, ABlocksOutputStaysInBlocksForItsReaders) {
  constexpr int64_t c = 32;
  const Tensor x = Floats(2 * 3 * 24 * 24, 700, 1.0, 0, {2, 3, 24, 24});
  std::vector<Tensor> ws;
  std::vector<Norm> ns;
  for (int i = 0; i < 6; ++i) {
    const int64_t k = i == 5 ? 1 : 3, co = i >= 3 ? 2 * c : c;
    const int64_t ci = i == 0 ? 3 : i == 4 ? 2 * c : c;
    ws.push_back(Floats(co * ci * k * k, 710 + i, 0.15, 0, {co, ci, k, k}));
    ns.emplace_back(720 + 10 * i, co);
  }
  jit::Tracer tracer(false);
  tracer.AddInput(x);
  for (int i = 0; i < 6; ++i) tracer.AddParam("w" + std::to_string(i), ws[i]);
  for (int i = 0; i < 6; ++i) ns[i].Add(tracer, "n" + std::to_string(i));
  Tensor out;
  {
    jit::Tracer::ActiveGuard active(&tracer);
    const std::vector<int64_t> one{1, 1}, two{2, 2}, pad{1, 1, 1, 1}, none{0, 0, 0, 0};
    const Tensor s =
        max_pool(relu(ns[0](conv(x, ws[0], one, pad, one))), {3, 3}, two, pad);  // stem
    const Tensor h = relu(ns[1](conv(s, ws[1], one, pad, one)));                 // block 1
    const Tensor y = relu(add(ns[2](conv(h, ws[2], one, pad, one)), s));
    const Tensor d1 = relu(ns[3](conv(y, ws[3], two, pad, one)));  // block 2, stride 2
    const Tensor d2 = ns[4](conv(d1, ws[4], one, pad, one));
    out = relu(add(ns[5](conv(y, ws[5], two, none, one)), d2));  // 1x1 downsampling
  }
  ASSERT_FALSE(tracer.broken());
  const jit::Captured cap = jit::FromTracer(tracer, {out});
  std::vector<Tensor> params = ws;
  for (const Norm& n : ns) params.insert(params.end(), {n.mean, n.variance, n.weight, n.bias});
  NoGradGuard no_grad;
  const jit::FoldedConvs folded(cap.program, params, cap.consts);
  ASSERT_EQ(folded.size(), 7u);
  std::vector<const jit::ConvGroup*> g;
  for (size_t k = 0; k < cap.program.ops.size(); ++k) {
    if (const jit::ConvGroup* group = folded.At(k)) g.push_back(group);
  }
  ASSERT_EQ(g.size(), 7u);
  // The stem's output: the max pool's input alone; s (pooled): group 2's input and group
  // 3's residual; y: groups 4 and 6's input; d2: group 6's residual alone; the output:
  // the program's.
  EXPECT_TRUE(g[1]->max_pool);
  EXPECT_EQ(g[0]->readers, std::vector<int64_t>{1});
  EXPECT_EQ(g[0]->reads, 1);
  EXPECT_EQ(g[1]->readers, std::vector<int64_t>{2});
  EXPECT_EQ(g[1]->reads, 2);
  EXPECT_EQ(g[3]->readers, (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(g[3]->reads, 2);
  EXPECT_TRUE(g[5]->readers.empty());
  EXPECT_EQ(g[5]->reads, 1);
  EXPECT_EQ(g[6]->reads, 0);
  EXPECT_TRUE(g[4]->spec.prefer_blocked && g[6]->spec.prefer_blocked);
  EXPECT_FALSE(g[2]->spec.prefer_blocked || g[5]->spec.prefer_blocked);
  const Tensor got = jit::Run(cap.program, {x}, params, cap.consts, &folded)[0];
  ExpectNearScaled(jit::Run(cap.program, {x}, params, cap.consts)[0], got, 2e-5, 1.0);
  EXPECT_EQ(testing::Values(jit::Run(cap.program, {x}, params, cap.consts, &folded)[0]),
            testing::Values(got));
}

}  // namespace
}  // namespace oar
