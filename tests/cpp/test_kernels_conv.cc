// The two convolution engines (src/oar/kernels/cpu/conv_impl.h) agree on every
// pass: the op tests reach only the engine conv_engine::Choose picks for their shapes
// (and float64 always runs on GEMM), so this compares oneDNN against the GEMM
// path directly, in float32, over groups, dilation, stride, asymmetric padding
// and 1-D/3-D shapes. Also the typed errors of the conv and pool InferMeta.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

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
        ConvCase{{1, 2, 4, 5, 4}, {4, 1, 2, 3, 2}, {1, 2, 1}, {0, 1, 1, 1, 0, 0}, {1, 1, 2}, 2}));

TEST(ConvInferMeta, TypedErrorsNameTheArgument) {
  DenseTensor x(DType::kFloat32, {1, 4, 5, 5}), out;
  testing::Catch(
      [&] {
        ConvInferMeta(x, DenseTensor(DType::kFloat32, {3, 3, 3, 3}), {}, {}, {}, 1, &out);
      },
      ErrorCode::kInvalidArgument, {"argument 'x' has 4 channels", "expects 3"});
  testing::Catch(
      [&] {
        ConvInferMeta(x, DenseTensor(DType::kFloat32, {3, 2, 3, 3}), {}, {}, {}, 2, &out);
      },
      ErrorCode::kInvalidArgument, {"argument 'groups' (2) must divide"});
  testing::Catch(
      [&] {
        ConvInferMeta(x, DenseTensor(DType::kFloat32, {2, 4, 7, 3}), {}, {}, {}, 1, &out);
      },
      ErrorCode::kInvalidArgument, {"argument 'weight'", "the kernel spans 7"});
  testing::Catch(
      [&] {
        ConvInferMeta(x, DenseTensor(DType::kFloat32, {2, 4, 3, 3}), {1}, {}, {}, 1, &out);
      },
      ErrorCode::kInvalidArgument, {"argument 'strides' [1] must have 2 values"});
  testing::Catch(
      [&] {
        ConvInferMeta(x, DenseTensor(DType::kFloat32, {2, 4, 3}), {}, {}, {}, 1, &out);
      },
      ErrorCode::kInvalidArgument, {"argument 'x' has shape [1, 4, 5, 5]"});
  testing::Catch(
      [&] {
        PoolInferMeta(x, {2, 2}, {2, 2}, {2, 2, 0, 0}, false, true, 0, false, &out);
      },
      ErrorCode::kInvalidArgument, {"argument 'paddings'", "at most half of kernel_size"});
  testing::Catch(
      [&] {
        PoolInferMeta(x, {6, 2}, {1, 1}, {0, 0, 0, 0}, false, true, 0, false, &out);
      },
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
