// The C++ training building blocks: modules (Conv2D and MaxPool2D against their
// ops and hand-computed values), the fused optimizers (against
// hand-written reference updates), checkpoints (round trips and every kind of
// broken file) and the IDX reader.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "oar/oar.h"
#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;
using testing::ExpectClose;
using testing::TempPath;
using testing::Values;

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string LengthPrefixed(const std::string& header, const std::string& data = "") {
  std::string s(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return s + header + data;
}

TEST(Train, LinearHasPaddleLayoutAndStructuredNames) {
  nn::Sequential net;
  net.Add(std::make_shared<nn::Linear>(3, 4)).Add(std::make_shared<nn::ReLU>());
  net.Add(std::make_shared<nn::Linear>(4, 2, /*bias=*/false));
  const NamedTensors p = net.NamedParameters();
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].first, "0.weight");
  EXPECT_EQ(p[1].first, "0.bias");
  EXPECT_EQ(p[2].first, "2.weight");
  EXPECT_EQ(p[0].second.shape(), (std::vector<int64_t>{3, 4}));
  EXPECT_FALSE(p[0].second.stop_gradient());
  EXPECT_EQ(net(ones({5, 3})).shape(), (std::vector<int64_t>{5, 2}));
}

TEST(Train, Conv2DForwardEqualsTheOp) {
  DefaultCPUGenerator().Seed(0);
  // groups 2, a non-square kernel, per-dim stride and dilation, uneven padding.
  nn::Conv2D conv2d(4, 6, {3, 2}, {2, 1}, {1, 0, 2, 1}, {1, 2}, /*groups=*/2);
  EXPECT_EQ(conv2d.weight().shape(), (std::vector<int64_t>{6, 2, 3, 2}));
  ASSERT_NE(conv2d.bias(), nullptr);
  for (double b : Values(*conv2d.bias())) EXPECT_EQ(b, 0.0);  // Paddle's bias default
  NamedTensors state = conv2d.StateDict();
  state[1].second = cast(arange(1, 7, 1, DType::kInt64), DType::kFloat32);
  conv2d.LoadStateDict(state);
  const Tensor x = randn({2, 4, 7, 6});
  const Tensor y = conv2d(x);
  const Tensor ref = add(conv(x, conv2d.weight(), {2, 1}, {1, 0, 2, 1}, {1, 2}, 2),
                         reshape(state[1].second, {1, 6, 1, 1}));
  ExpectClose(y, Values(ref), {2, 6, 3, 7});
  // One output by hand: channel 0 sees input channels 0-1, rows -1..1, cols -2 and 0.
  const std::vector<double> xv = Values(x), wv = Values(conv2d.weight());
  double by_hand = 1.0;
  for (int c = 0; c < 2; ++c) {
    for (int i = 0; i < 3; ++i) {
      const int row = i - 1;
      if (row < 0) continue;
      by_hand += xv[(c * 7 + row) * 6 + 0] * wv[(c * 3 + i) * 2 + 1];  // col -2 is padding
    }
  }
  EXPECT_NEAR(Values(y)[0], by_hand, 1e-5);
  nn::Conv2D no_bias(1, 2, 3, 1, 1, 1, 1, /*bias=*/false);
  EXPECT_EQ(no_bias.bias(), nullptr);
  EXPECT_EQ(no_bias.NamedParameters().size(), 1u);
  EXPECT_EQ(no_bias(ones({1, 1, 5, 5})).shape(), (std::vector<int64_t>{1, 2, 5, 5}));
}

TEST(Train, Conv2DInitializesLikePaddle) {
  DefaultCPUGenerator().Seed(1);
  nn::Conv2D c(32, 64, 3);  // fan_in 32 * 9: weight ~ Normal(0, sqrt(2 / 288))
  const std::vector<double> w = Values(c.weight());
  double mean = 0, sq = 0;
  for (double v : w) mean += v / static_cast<double>(w.size());
  for (double v : w) sq += (v - mean) * (v - mean) / static_cast<double>(w.size());
  EXPECT_NEAR(mean, 0.0, 0.005);
  EXPECT_NEAR(std::sqrt(sq), std::sqrt(2.0 / 288.0), 0.03 * std::sqrt(2.0 / 288.0));
}

TEST(Train, Conv2DGradientsFlow) {
  DefaultCPUGenerator().Seed(2);
  nn::Conv2D c(2, 3, 3, 1, 1);
  Tensor x = randn({2, 2, 4, 4});
  x.set_stop_gradient(false);
  sum(c(x)).backward();
  // d(sum)/d(bias) counts the outputs per channel: N * H_out * W_out.
  ExpectClose(c.bias()->grad(), {32, 32, 32}, {3});
  // d(sum)/d(weight[o, i, a, b]) is the sum of x[:, i] over the window offset (a, b).
  const std::vector<double> xv = Values(x), gw = Values(c.weight().grad());
  for (int i = 0; i < 2; ++i) {
    for (int a = 0; a < 3; ++a) {
      for (int b = 0; b < 3; ++b) {
        double want = 0;
        for (int n = 0; n < 2; ++n) {
          for (int h = 0; h < 4; ++h) {
            for (int w = 0; w < 4; ++w) {
              const int r = h + a - 1, q = w + b - 1;
              if (r >= 0 && r < 4 && q >= 0 && q < 4) want += xv[((n * 2 + i) * 4 + r) * 4 + q];
            }
          }
        }
        for (int o = 0; o < 3; ++o) EXPECT_NEAR(gw[((o * 2 + i) * 3 + a) * 3 + b], want, 1e-4);
      }
    }
  }
  EXPECT_EQ(x.grad().shape(), x.shape());
}

TEST(Train, MaxPool2DForwardAndGradient) {
  Tensor x = cast(reshape(arange(0, 16, 1, DType::kInt64), {1, 1, 4, 4}), DType::kFloat32);
  x.set_stop_gradient(false);
  nn::MaxPool2D pool(2);  // stride defaults to the kernel
  const Tensor y = pool(x);
  ExpectClose(y, {5, 7, 13, 15}, {1, 1, 2, 2});
  sum(y).backward();
  ExpectClose(x.grad(), {0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 1}, {1, 1, 4, 4});
  // Padding never wins, even against negative values; ceil_mode keeps the partial window.
  const Tensor neg = scale(x, -1.0, 0.0, true);
  ExpectClose(nn::MaxPool2D(3, 2, 1)(neg), {0, -1, -4, -5}, {1, 1, 2, 2});
  ExpectClose(nn::MaxPool2D(3, 2, 0, /*ceil_mode=*/true)(x), {10, 11, 14, 15}, {1, 1, 2, 2});
  const Tensor r = randn({2, 3, 6, 5});
  ExpectClose(nn::MaxPool2D({3, 2}, nn::IntOrList{1, 2}, {1, 0})(r),
              Values(pool_gather(r, max_pool_index(r, {3, 2}, {1, 2}, {1, 1, 0, 0}))),
              {2, 3, 6, 2});
  EXPECT_TRUE(pool.NamedParameters().empty());
}

std::shared_ptr<nn::Sequential> TinyCnn() {
  auto net = std::make_shared<nn::Sequential>();
  net->Add(std::make_shared<nn::Conv2D>(1, 4, 3, 1, 1))
      .Add(std::make_shared<nn::ReLU>())
      .Add(std::make_shared<nn::MaxPool2D>(2))
      .Add(std::make_shared<nn::Flatten>())
      .Add(std::make_shared<nn::Linear>(4 * 4 * 4, 2));
  return net;
}

TEST(Train, TinyCnnLearnsWhereTheBrightSquareIs) {
  DefaultCPUGenerator().Seed(3);
  // Class 0: a bright 3x3 square in the top-left quadrant, class 1: bottom-right; plus noise.
  const int64_t n = 32;
  std::vector<float> img(n * 64);
  std::vector<int64_t> label(n);
  const std::vector<double> noise = Values(scale(randn({n * 64}), 0.3, 0.0, true));
  for (int64_t s = 0; s < n; ++s) {
    label[s] = s % 2;
    const int off = label[s] ? 4 : 1;
    for (int64_t p = 0; p < 64; ++p) img[s * 64 + p] = static_cast<float>(noise[s * 64 + p]);
    for (int r = 0; r < 3; ++r) {
      for (int q = 0; q < 3; ++q) img[s * 64 + (off + r) * 8 + off + q] += 1.0f;
    }
  }
  const Tensor x = to_tensor<float>(img, {n, 1, 8, 8});
  const Tensor y = to_tensor<int64_t>(label, {n});
  auto net = TinyCnn();
  optim::Adam opt(net->Parameters(), 0.02);
  double first = 0, last = 0;
  for (int step = 0; step < 15; ++step) {
    Tensor loss = nn::CrossEntropy((*net)(x), y);
    loss.backward();
    for (const auto& [name, p] : net->NamedParameters()) {
      EXPECT_TRUE(p.grad().defined()) << name;
    }
    opt.StepAll();
    opt.ClearGrad();
    last = loss.item<double>();
    if (step == 0) first = last;
  }
  EXPECT_LT(last, 0.5 * first);
  EXPECT_EQ(nn::Accuracy((*net)(x), y), 1.0);
}

TEST(Train, CnnStateDictRoundTrip) {
  DefaultCPUGenerator().Seed(4);
  auto a = TinyCnn(), b = TinyCnn();
  std::vector<std::string> names;
  for (const auto& [name, t] : a->StateDict()) names.push_back(name);
  // The same keys as the Python nn.Sequential of Conv2D, ReLU, MaxPool2D, Flatten, Linear.
  EXPECT_EQ(names, (std::vector<std::string>{"0.weight", "0.bias", "4.weight", "4.bias"}));
  const std::string path = TempPath("cnn.safetensors");
  Save(a->StateDict(), path);
  b->LoadStateDict(Load(path));
  const Tensor x = randn({3, 1, 8, 8});
  EXPECT_EQ(Values((*a)(x)), Values((*b)(x)));
  nn::Conv2D wider(1, 5, 3, 1, 1);
  NamedTensors conv_only;
  for (const auto& [name, t] : Load(path)) {
    if (name.rfind("0.", 0) == 0) conv_only.emplace_back(name.substr(2), t);
  }
  Catch([&] { wider.LoadStateDict(conv_only); }, ErrorCode::kInvalidArgument,
        {"'weight'", "[4, 1, 3, 3]", "[5, 1, 3, 3]"});
}

TEST(Train, ImageLayerErrorsNameTheLayerAndArgument) {
  nn::Conv2D c(3, 8, 3);
  Catch([&] { c(ones({3, 8, 8})); }, ErrorCode::kInvalidArgument,
        {"Conv2D", "'x'", "4-D", "[3, 8, 8]"});
  Catch([&] { c(ones({1, 1, 8, 8})); }, ErrorCode::kInvalidArgument,
        {"Conv2D", "'x'", "1 channels", "in_channels = 3"});
  Catch([&] { c(ones({1, 3, 2, 2})); }, ErrorCode::kInvalidArgument, {"Conv2D: "});
  Catch([] { nn::Conv2D(3, 8, 3, 1, 0, 1, /*groups=*/2); }, ErrorCode::kInvalidArgument,
        {"Conv2D", "divisible by groups"});
  Catch([] { nn::Conv2D(0, 8, 3); }, ErrorCode::kInvalidArgument, {"Conv2D", "'in_channels'"});
  Catch([] { nn::Conv2D(3, 8, {3, 3, 3}); }, ErrorCode::kInvalidArgument,
        {"Conv2D", "'kernel_size'", "2 ints"});
  Catch([] { nn::Conv2D(3, 8, 3, 0); }, ErrorCode::kInvalidArgument, {"Conv2D", "'stride'"});
  Catch([] { nn::Conv2D(3, 8, 3, 1, {1, 2, 3}); }, ErrorCode::kInvalidArgument,
        {"Conv2D", "'padding'"});
  nn::MaxPool2D pool(2);
  Catch([&] { pool(ones({8, 8})); }, ErrorCode::kInvalidArgument, {"MaxPool2D", "'x'", "4-D"});
  Catch([] { nn::MaxPool2D(0); }, ErrorCode::kInvalidArgument, {"MaxPool2D", "'kernel_size'"});
  Catch([] { nn::MaxPool2D(2, 1, -1); }, ErrorCode::kInvalidArgument,
        {"MaxPool2D", "'padding'", ">= 0"});
}

TEST(Train, AdamMatchesTheReferenceUpdate) {
  Tensor w = to_tensor<double>({1.0, -2.0, 0.5}, {3});
  w.set_stop_gradient(false);
  optim::Adam opt({w}, 0.1);
  std::vector<double> ref = {1.0, -2.0, 0.5}, m(3), v(3);
  for (int t = 1; t <= 5; ++t) {
    sum(multiply(w, w)).backward();  // grad = 2w
    opt.StepAll();
    opt.ClearGrad();
    for (int i = 0; i < 3; ++i) {
      const double g = 2 * ref[i];
      m[i] = 0.9 * m[i] + 0.1 * g;
      v[i] = 0.999 * v[i] + 0.001 * g * g;
      const double mh = m[i] / (1 - std::pow(0.9, t)), vh = v[i] / (1 - std::pow(0.999, t));
      ref[i] -= 0.1 * mh / (std::sqrt(vh) + 1e-8);
    }
  }
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(w.data<double>()[i], ref[i], 1e-12);
}

TEST(Train, MomentumAndWeightDecayMatchTheReference) {
  Tensor w = to_tensor<double>({1.0, 3.0}, {2});
  w.set_stop_gradient(false);
  optim::Momentum opt({w}, 0.1, 0.9, /*nesterov=*/true, /*weight_decay=*/0.01);
  std::vector<double> ref = {1.0, 3.0}, buf(2);
  for (int t = 0; t < 4; ++t) {
    sum(w).backward();  // grad = 1
    opt.StepAll();
    opt.ClearGrad();
    for (int i = 0; i < 2; ++i) {
      const double g = 1 + 0.01 * ref[i];
      buf[i] = 0.9 * buf[i] + g;
      ref[i] -= 0.1 * (g + 0.9 * buf[i]);
    }
  }
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(w.data<double>()[i], ref[i], 1e-12);
}

// Rules whose state is not all zeros of the parameter's shape: Rprop's step sizes start
// at the learning rate, ASGD keeps [batch_num, *shape] past gradients.
TEST(Train, RpropAndAsgdStatesFromTheOptimizer) {
  Tensor w = to_tensor<double>({1.0, -2.0}, {2});
  w.set_stop_gradient(false);
  optim::Optimizer rprop({w}, 0.1, optim::Rule::kRprop, optim::Hyper{});
  std::vector<double> ref = {1.0, -2.0}, size = {0.1, 0.1};
  for (int t = 0; t < 3; ++t) {
    sum(multiply(w, w)).backward();  // grad = 2w keeps its sign: sizes grow by 1.2
    rprop.StepAll();
    rprop.ClearGrad();
    for (int i = 0; i < 2; ++i) {
      if (t > 0) size[i] *= 1.2;
      ref[i] -= size[i] * (ref[i] > 0 ? 1 : -1);
    }
  }
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(w.data<double>()[i], ref[i], 1e-12);

  Tensor v = to_tensor<double>({1.0, 2.0}, {2});
  v.set_stop_gradient(false);
  optim::Hyper h;
  h.batch_num = 2;
  optim::Optimizer asgd({v}, 0.5, optim::Rule::kASGD, h);
  std::vector<double> x = {1.0, 2.0}, d(2), y0(2), y1(2);
  for (int t = 1; t <= 3; ++t) {
    sum(multiply(v, v)).backward();
    asgd.StepAll();
    asgd.ClearGrad();
    auto& y = (t % 2 == 1) ? y0 : y1;  // the slot this step replaces
    for (int i = 0; i < 2; ++i) {
      const double g = 2 * x[i];
      d[i] += g - y[i];
      y[i] = g;
      x[i] -= 0.5 * d[i] / std::min(t, 2);
    }
  }
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(v.data<double>()[i], x[i], 1e-12);
}

TEST(Train, OptimizerErrorsAreTyped) {
  Catch([] { optim::SGD({}, 0.1); }, ErrorCode::kInvalidArgument, {"no parameters"});
  Tensor w = ones({2});
  w.set_stop_gradient(false);
  Catch([&] { optim::SGD({w}, -1.0); }, ErrorCode::kInvalidArgument, {"learning rate"});
  Tensor i = to_tensor<int64_t>({1, 2}, {2});
  optim::SGD opt({i}, 0.1);
  EXPECT_EQ(opt.StepAll(), 0);  // no gradient yet: nothing to do
}

TEST(Train, CheckpointRoundTripsEveryDtype) {
  NamedTensors in = {{"f32", randn({3, 4})},
                     {"f64", randn({2}, DType::kFloat64)},
                     {"bf16", cast(randn({5}), DType::kBFloat16)},
                     {"i64", to_tensor<int64_t>({7, -8}, {2})},
                     {"b", cast(to_tensor<int64_t>({1, 0}, {2}), DType::kBool)},
                     {"view", transpose(randn({2, 3}), {1, 0})}};
  const std::string path = TempPath("round_trip.safetensors");
  Save(in, path);
  const NamedTensors out = Load(path);
  ASSERT_EQ(out.size(), in.size());
  for (size_t k = 0; k < in.size(); ++k) {
    EXPECT_EQ(out[k].first, in[k].first);
    EXPECT_EQ(out[k].second.dtype(), in[k].second.dtype());
    EXPECT_EQ(out[k].second.shape(), in[k].second.shape());
    const Tensor a = assign(cast(in[k].second, DType::kFloat64));
    const Tensor b = cast(out[k].second, DType::kFloat64);
    for (int64_t i = 0; i < a.numel(); ++i) EXPECT_EQ(a.data<double>()[i], b.data<double>()[i]);
  }
  Catch([&] { Save({{"a", ones({1})}, {"a", ones({1})}}, path); }, ErrorCode::kInvalidArgument,
        {"twice"});
}

TEST(Train, ModuleStateDictRoundTrip) {
  nn::Linear a(3, 2), b(3, 2);
  const std::string path = TempPath("linear.safetensors");
  Save(a.StateDict(), path);
  b.LoadStateDict(Load(path));
  Tensor x = randn({4, 3});
  const Tensor ya = a(x), yb = b(x);
  for (int64_t i = 0; i < ya.numel(); ++i) EXPECT_EQ(ya.data<float>()[i], yb.data<float>()[i]);
  nn::Linear c(2, 2);
  Catch([&] { c.LoadStateDict(Load(path)); }, ErrorCode::kInvalidArgument, {"weight", "shape"});
}

TEST(Train, BrokenCheckpointsAreTypedErrors) {
  const std::string p = TempPath("broken");
  const std::string good = R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  struct Case {
    std::string bytes;
    const char* part;
  };
  const Case cases[] = {
      {"", "empty"},
      {"abc", "truncated"},
      {std::string("\xff\xff\xff\xff\xff\xff\x00\x00", 8) + "{}", "claims"},
      {LengthPrefixed("{not json"), "JSON"},
      {LengthPrefixed(good, std::string(4, '\0')), "outside"},
      {LengthPrefixed(R"({"t":{"dtype":"F32","shape":[1099511627776,1099511627776],)"
                      R"("data_offsets":[0,8]}})",
                      std::string(8, '\0')),
       "large"},
      {LengthPrefixed(R"({"t":{"dtype":"Q9","shape":[2],"data_offsets":[0,8]}})",
                      std::string(8, '\0')),
       "dtype"},
      {LengthPrefixed(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                      R"("u":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                      std::string(8, '\0')),
       "overlaps"},
  };
  for (const Case& c : cases) {
    WriteBytes(p, c.bytes);
    Catch([&] { Load(p); }, ErrorCode::kInvalidArgument, {c.part});
  }
  Catch([&] { Load(TempPath("does_not_exist")); }, ErrorCode::kNotFound, {"no checkpoint"});
}

TEST(Train, IdxReaderChecksItsHeader) {
  const std::string p = TempPath("idx");
  WriteBytes(p, std::string("\x00\x00\x08\x01\x00\x00\x00\x03", 8) + "abc");
  const Tensor t = ReadIdx(p);
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{3}));
  EXPECT_EQ(t.data<int32_t>()[2], 'c');
  WriteBytes(p, std::string("\x00\x00\x08\x01\x00\x00\x00\x09", 8) + "abc");
  Catch([&] { ReadIdx(p); }, ErrorCode::kInvalidArgument, {"needs 9"});
  WriteBytes(p, "PK\x03\x04");
  Catch([&] { ReadIdx(p); }, ErrorCode::kInvalidArgument, {"not an IDX"});
  Catch([&] { ReadIdx(std::string(kFashionMnistDir) + "/nope.gz"); }, ErrorCode::kNotFound,
        {"dataset-fashion-mnist"});
}

}  // namespace
}  // namespace oar
