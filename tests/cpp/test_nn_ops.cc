// The nn.functional ops of src/oar/ops/{norm,loss,nn}.yaml from C++: error paths name
// the op and the argument; the fused kernels agree with their definitions on rows long
// and many enough to take the multi-threaded path. (Values, gradients of every order,
// views and empty inputs: tests/op_cases/{norm,loss,nn}.yaml through test_ops.cc.)
#include <cmath>
#include <cstdint>

#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;
using testing::Make;
using testing::Values;

Tensor Ints(const std::vector<double>& v, const std::vector<int64_t>& shape) {
  return Make(v, shape, DType::kInt64);
}

Tensor Ramp(int64_t rows, int64_t cols) {
  std::vector<double> v(rows * cols);
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.37 * static_cast<double>(i));
  return Make(v, {rows, cols});
}

TEST(NnOps, LayerNormErrorsNameOpAndArgument) {
  const Tensor x = Ramp(2, 4);
  Catch([&] { layer_norm(x, ones({3}, DType::kFloat64), ones({4}, DType::kFloat64)); },
        ErrorCode::kInvalidArgument, {"layer_norm(): ", "argument 'weight' has shape [3]"});
  Catch([&] { layer_norm(x, ones({4}, DType::kFloat64), ones({4}, DType::kFloat64), 1e-5, 2); },
        ErrorCode::kInvalidArgument, {"layer_norm(): ", "argument 'begin_norm_axis' (2)"});
  Catch([&] { rms_norm(x, ones({4}, DType::kFloat64), -1.0); }, ErrorCode::kInvalidArgument,
        {"rms_norm(): ", "argument 'epsilon' (-1) must be >= 0"});
}

TEST(NnOps, CrossEntropyLabelErrors) {
  const Tensor z = Ramp(3, 4);
  Catch(
      [&] {
        cross_entropy_hard(z, Ints({0, 4, 1}, {3, 1}));
      },
      ErrorCode::kOutOfRange, {"cross_entropy_hard(): ", "argument 'label' holds 4", "[0, 4)"});
  Catch(
      [&] {
        cross_entropy_hard(z, Make({0, 1, 1}, {3, 1}));
      },
      ErrorCode::kInvalidType,
      {"cross_entropy_hard(): ", "argument 'label' must be an int32 or int64 tensor"});
  Catch(
      [&] {
        cross_entropy_hard(z, Ints({0, 1, 1}, {3}));
      },
      ErrorCode::kInvalidArgument,
      {"cross_entropy_hard(): ", "argument 'label' has shape [3] but must be [3, 1]"});
  Catch([&] { cross_entropy_soft(z, Ramp(3, 3)); }, ErrorCode::kInvalidArgument,
        {"cross_entropy_soft(): ", "argument 'label' has shape [3, 3]"});
  Catch(
      [&] {
        nll_pick(z, Ints({0, -1, 1}, {3, 1}));
      },
      ErrorCode::kOutOfRange, {"nll_pick(): ", "argument 'label' holds -1"});
}

TEST(NnOps, LinearEmbeddingOneHotErrors) {
  const Tensor x = Ramp(2, 3);
  Catch([&] { linear(x, Ramp(4, 2), ones({2}, DType::kFloat64)); }, ErrorCode::kInvalidArgument,
        {"linear(): ", "argument 'weight' has shape [4, 2]"});
  Catch([&] { linear(x, Ramp(3, 2), ones({3}, DType::kFloat64)); }, ErrorCode::kInvalidArgument,
        {"linear(): ", "argument 'bias' has shape [3]"});
  Catch(
      [&] {
        embedding(Ints({0, 5}, {2}), Ramp(5, 2));
      },
      ErrorCode::kOutOfRange, {"embedding(): ", "argument 'x' holds id 5"});
  Catch(
      [&] {
        embedding(Ints({0, 1}, {2}), Ramp(5, 2), 7);
      },
      ErrorCode::kInvalidArgument, {"embedding(): ", "argument 'padding_idx' (7)"});
  Catch(
      [&] {
        one_hot(Ints({0, 3}, {2}), 3);
      },
      ErrorCode::kOutOfRange, {"one_hot(): ", "argument 'x' holds 3"});
}

// Many long rows: the row loops split over threads and must give the per-row result.
TEST(NnOps, FusedKernelsOnManyRows) {
  const int64_t rows = 300, cols = 257;
  const Tensor z = Ramp(rows, cols);
  std::vector<double> lab(rows);
  for (int64_t i = 0; i < rows; ++i) lab[i] = static_cast<double>((i * 7) % cols);
  const std::vector<double> loss = Values(cross_entropy_hard(z, Ints(lab, {rows, 1})));
  const std::vector<double> ln =
      Values(layer_norm(z, ones({cols}, DType::kFloat64), zeros({cols}, DType::kFloat64), 1e-5, 1));
  const std::vector<double> zv = Values(z);
  for (int64_t i = 0; i < rows; ++i) {
    double mx = -INFINITY, s = 0, mean = 0, var = 0;
    for (int64_t j = 0; j < cols; ++j) mx = std::max(mx, zv[i * cols + j]);
    for (int64_t j = 0; j < cols; ++j) s += std::exp(zv[i * cols + j] - mx);
    EXPECT_NEAR(loss[i], mx + std::log(s) - zv[i * cols + static_cast<int64_t>(lab[i])], 1e-12);
    for (int64_t j = 0; j < cols; ++j) mean += zv[i * cols + j] / cols;
    for (int64_t j = 0; j < cols; ++j) var += std::pow(zv[i * cols + j] - mean, 2) / cols;
    for (int64_t j = 0; j < cols; j += 31) {
      EXPECT_NEAR(ln[i * cols + j], (zv[i * cols + j] - mean) / std::sqrt(var + 1e-5), 1e-12);
    }
  }
}

}  // namespace
}  // namespace oar
