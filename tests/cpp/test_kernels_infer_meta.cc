// InferMeta validation as users see it through the ops: the error code, the
// "<op>(): " prefix the API adds, and the values the message names.
#include "oar/kernels/infer_meta.h"
#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;
using testing::Make;

Tensor Zeros(const std::vector<int64_t>& shape) { return zeros(shape, DType::kFloat64); }

// Runs f, expects an Error with `code` whose message starts with `prefix` and
// contains each of `parts`.
template <typename F>
void ExpectError(F&& f, ErrorCode code, const std::string& prefix,
                 std::initializer_list<std::string_view> parts = {}) {
  const Error e = Catch(std::forward<F>(f), code, parts);
  EXPECT_EQ(e.message().rfind(prefix, 0), 0u) << e.what();
  EXPECT_EQ(e.message().find(prefix, prefix.size()), std::string::npos)
      << "prefix repeated: " << e.what();
}

constexpr auto kArg = ErrorCode::kInvalidArgument;
constexpr auto kRange = ErrorCode::kOutOfRange;

TEST(InferMeta, BroadcastMismatch) {
  ExpectError(
      [] {
        add(Zeros({2, 3}), Zeros({4, 3}));
      },
      kArg, "add(): ", {"[2, 3]", "[4, 3]", "2 vs 4"});
  ExpectError([] { multiply(Zeros({5}), Zeros({2, 4})); }, kArg, "multiply(): ", {"5 vs 4"});
  ExpectError([] { where(Make({1}, {1}, DType::kBool), Zeros({3}), Zeros({2})); }, kArg,
              "where(): ");
}

TEST(InferMeta, Matmul) {
  ExpectError(
      [] {
        matmul(Zeros({2, 3}), Zeros({4, 5}));
      },
      kArg, "matmul(): ", {"contracted", "3 vs 4"});
  ExpectError(
      [] {
        matmul(Zeros({2, 3}), Zeros({2, 5}), false, true);
      },
      kArg, "matmul(): ", {"(transposed)", "3 vs 5"});
  ExpectError(
      [] {
        matmul(Zeros({2, 3, 4}), Zeros({3, 4, 5}));
      },
      kArg, "matmul(): ", {"batch dims"});
  ExpectError([] { matmul(Zeros({}), Zeros({3})); }, kArg, "matmul(): ", {"0-d"});
  // Shapes that do work.
  EXPECT_EQ(matmul(Zeros({2, 3}), Zeros({5, 3}), false, true).shape(),
            (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(matmul(Zeros({7, 1, 2, 3}), Zeros({4, 3, 6})).shape(),
            (std::vector<int64_t>{7, 4, 2, 6}));
}

TEST(InferMeta, Reshape) {
  ExpectError(
      [] {
        reshape(Zeros({2, 3}), {4, 2});
      },
      kArg, "reshape(): ", {"[2, 3]", "6 elements", "[4, 2]"});
  ExpectError([] { reshape(Zeros({2, 3}), {-1, -1}); }, kArg, "reshape(): ", {"at most one -1"});
  ExpectError([] { reshape(Zeros({2, 3}), {-1, 4}); }, kArg, "reshape(): ");
  ExpectError([] { reshape(Zeros({2, 3}), {3, -2}); }, kArg, "reshape(): ", {"negative"});
  ExpectError([] { reshape(Zeros({6}), {3, 0}); }, kArg, "reshape(): ", {"0 at position 1"});
}

TEST(InferMeta, TransposeSqueezeExpandConcat) {
  ExpectError([] { transpose(Zeros({2, 3}), {0, 0}); }, kArg, "transpose(): ", {"repeats axis 0"});
  ExpectError([] { transpose(Zeros({2, 3}), {0, -2}); }, kArg, "transpose(): ", {"repeats axis 0"});
  ExpectError([] { transpose(Zeros({2, 3}), {1, 0, 2}); }, kArg, "transpose(): ", {"rank 2"});
  ExpectError([] { expand(Zeros({2, 3}), {4, 3}); }, kArg, "expand(): ", {"[2, 3]"});
  ExpectError([] { expand(Zeros({2, 3}), {3}); }, kArg, "expand(): ");
  ExpectError(
      [] {
        concat({Zeros({2, 3}), Zeros({2, 4})}, 0);
      },
      kArg, "concat(): ", {"x[1]", "[2, 4]"});
  ExpectError([] { concat({Zeros({2, 3}), Zeros({6})}, 0); }, kArg, "concat(): ", {"rank"});
}

TEST(InferMeta, ConcatOfNoTensors) {
  ExpectError([] { concat({}, 0); }, kArg, "concat(): ", {"at least one tensor"});
}

TEST(InferMeta, OutOfRangeAxes) {
  const Tensor x = Zeros({2, 3});
  ExpectError([&] { sum(x, {2}); }, kRange, "sum(): ", {"(2)", "rank 2"});
  ExpectError([&] { max(x, {-3}); }, kRange, "max(): ", {"(-3)"});
  ExpectError([&] { mean(x, {0, 5}); }, kRange, "mean(): ");
  ExpectError([&] { transpose(x, {0, 2}); }, kRange, "transpose(): ", {"'perm'"});
  ExpectError([&] { unsqueeze(x, {4}); }, kRange, "unsqueeze(): ");
  ExpectError([&] { squeeze(x, {-3}); }, kRange, "squeeze(): ");
  ExpectError([&] { concat({x, x}, 2); }, kRange, "concat(): ");
  ExpectError([&] { softmax(x, 2); }, kRange, "softmax(): ");
  ExpectError([&] { slice(x, {3}, {0}, {1}); }, kRange, "slice(): ", {"'axes'"});
  // In-range negative axes are fine; a 0-d tensor accepts 0 and -1.
  EXPECT_EQ(sum(x, {-1, -2}).shape(), std::vector<int64_t>{});
  EXPECT_EQ(sum(scalar_tensor<double>(1.0), {-1}).shape(), std::vector<int64_t>{});
  EXPECT_EQ(unsqueeze(x, {-3}).shape(), (std::vector<int64_t>{1, 2, 3}));
}

TEST(InferMeta, SliceArguments) {
  const Tensor x = Zeros({4, 5});
  ExpectError([&] { slice(x, {0, 1}, {0}, {1, 2}); }, kArg, "slice(): ", {"same length"});
  ExpectError([&] { slice(x, {1, -1}, {0, 0}, {1, 1}); }, kArg, "slice(): ", {"repeats axis 1"});
}

// The InferMeta functions themselves leave the op name to the API layer.
TEST(InferMeta, DirectCallsHaveNoOpPrefix) {
  DenseTensor x(DType::kFloat32, {2, 3}), y(DType::kFloat32, {4, 5}), out;
  const Error e = Catch([&] { MatmulInferMeta(x, y, false, false, &out); }, kArg);
  EXPECT_EQ(e.message().rfind("the contracted dimensions", 0), 0u) << e.what();
  // InferMeta reads only meta: x has no memory.
  ElementwiseInferMeta(x, DenseTensor(DType::kFloat32, {3}), &out);
  EXPECT_EQ(out.dims(), (DDim{2, 3}));
  EXPECT_EQ(out.dtype(), DType::kFloat32);
  EXPECT_EQ(BroadcastShape({5, 1, 3}, {4, 1}), (DDim{5, 4, 3}));
  EXPECT_EQ(NormalizeAxis(-1, 3), 2);
  EXPECT_EQ(NormalizeReduceAxes({2, -3, 0}, 3), (std::vector<int64_t>{0, 2}));
}

}  // namespace
}  // namespace oar
