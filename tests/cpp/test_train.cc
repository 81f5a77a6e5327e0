// The C++ training building blocks: modules, the fused optimizers (against
// hand-written reference updates), checkpoints (round trips and every kind of
// broken file) and the IDX reader.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "oar/oar.h"
#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "oar_test_train_" + name;
}

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
  Catch(
      [&] {
        Save({{"a", ones({1})}, {"a", ones({1})}}, path);
      },
      ErrorCode::kInvalidArgument, {"twice"});
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
