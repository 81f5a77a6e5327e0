// The shape section (src/oar/ops/shape.yaml): which ops are views, values on strided and
// empty inputs, and the typed errors of every InferMeta (values and gradients against
// PyTorch are in the op registry, tests/op_cases/shape.yaml).
#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;
using testing::ExpectClose;
using testing::Make;

std::vector<double> Seq(int64_t n) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>(i);
  return v;
}

bool SharesMemory(const Tensor& a, const Tensor& b) {
  return a.dense().Holder() == b.dense().Holder();
}

TEST(ShapeOps, DiagonalIsAViewOfAnyPlane) {
  const Tensor x = Make(Seq(12), {3, 4});
  const Tensor d = diagonal(x, 1, 0, 1);
  EXPECT_TRUE(SharesMemory(d, x));
  ExpectClose(d, {1, 6, 11}, {3});
  ExpectClose(diagonal(x, -1, 1, 0), {1, 6, 11}, {3});  // axes swapped: "below" is x's right
  ExpectClose(diagonal(x, 4, 0, 1), {}, {0});           // past the edge: empty
  const Tensor y = Make(Seq(24), {2, 3, 4});
  ExpectClose(diagonal(y, 0, 2, 0), {0, 13, 4, 17, 8, 21}, {3, 2});
}

TEST(ShapeOps, UnfoldWindowsAreAView) {
  const Tensor x = Make(Seq(7), {7});
  const Tensor w = tensor_unfold(x, 0, 3, 2);
  EXPECT_TRUE(SharesMemory(w, x));
  ExpectClose(w, {0, 1, 2, 2, 3, 4, 4, 5, 6}, {3, 3});
  // Overlapping windows add up in the gradient: index 2 and 4 are in two windows each.
  ExpectClose(tensor_unfold_grad(x, ones({3, 3}), 0, 3, 2), {1, 1, 2, 1, 2, 1, 1}, {7});
}

TEST(ShapeOps, FlipRollPadCopyFromStridedInputs) {
  const Tensor x = transpose(Make(Seq(6), {2, 3}), {1, 0});  // [[0, 3], [1, 4], [2, 5]]
  ExpectClose(flip(x, {0, 1}), {5, 2, 4, 1, 3, 0}, {3, 2});
  ExpectClose(roll(x, {1}, {}), {5, 0, 3, 1, 4, 2}, {3, 2});
  ExpectClose(roll(x, {-1, 1}, {0, 1}), {4, 1, 5, 2, 3, 0}, {3, 2});
  ExpectClose(pad(x, {1, 0, 0, 1}, 0, 9), {9, 9, 9, 0, 3, 9, 1, 4, 9, 2, 5, 9}, {4, 3});
  ExpectClose(pad(x, {0, 0, 1, 1}, 1, 0), {3, 0, 3, 0, 4, 1, 4, 1, 5, 2, 5, 2}, {3, 4});
  ExpectClose(pad(x, {2, 0, 0, 0}, 2, 0), {0, 3, 0, 3, 0, 3, 1, 4, 2, 5}, {5, 2});
  ExpectClose(pad(x, {0, 0, 2, 1}, 3, 0), {0, 3, 0, 3, 0, 1, 4, 1, 4, 1, 2, 5, 2, 5, 2}, {3, 5});
  // pad's gradient sums every copy into its source (replicate: the edge gets 3).
  ExpectClose(pad_grad(x, ones({5, 2}), {2, 0, 0, 0}, 2), {3, 3, 1, 1, 1, 1}, {3, 2});
}

TEST(ShapeOps, TrianglesAndDiagEmbed) {
  const Tensor x = Make(Seq(6), {2, 3});
  ExpectClose(tril(x, 0), {0, 0, 0, 3, 4, 0}, {2, 3});
  ExpectClose(triu(x, 1), {0, 1, 2, 0, 0, 5}, {2, 3});
  ExpectClose(diag_embed(Make({1, 2}, {2}), -1, 0, 1), {0, 0, 0, 1, 0, 0, 0, 2, 0}, {3, 3});
  ExpectClose(diagonal_grad(x, Make({7, 8}, {2}), 0, 0, 1), {7, 0, 0, 0, 8, 0}, {2, 3});
}

TEST(ShapeOps, ErrorsNameTheOpAndArgument) {
  const Tensor x = Make(Seq(6), {2, 3});
  const Tensor v = Make(Seq(3), {3});
  Catch([&] { flip(x, {2}); }, ErrorCode::kOutOfRange, {"flip(): argument 'axis' (2)"});
  Catch([&] { flip(x, {1, -1}); }, ErrorCode::kInvalidArgument, {"flip(): ", "repeats axis 1"});
  Catch(
      [&] {
        roll(x, {1, 2}, {});
      },
      ErrorCode::kInvalidArgument, {"roll(): argument 'shifts'", "exactly one shift"});
  Catch(
      [&] {
        roll(x, {1}, {0, 1});
      },
      ErrorCode::kInvalidArgument, {"roll(): arguments 'shifts'", "same length"});
  Catch([&] { tril(v, 0); }, ErrorCode::kInvalidArgument, {"tril(): argument 'x'", "[3]"});
  Catch([&] { triu(v, 0); }, ErrorCode::kInvalidArgument, {"triu(): argument 'x'"});
  Catch([&] { diagonal(x, 0, 1, -1); }, ErrorCode::kInvalidArgument,
        {"diagonal(): arguments 'axis1' (1) and 'axis2' (-1)"});
  Catch([&] { diagonal(v, 0, 0, 1); }, ErrorCode::kInvalidArgument, {"diagonal(): argument 'x'"});
  Catch([&] { diagonal_grad(x, v, 0, 0, 1); }, ErrorCode::kInvalidArgument,
        {"diagonal_grad(): argument 'grad_out' has shape [3]", "[2]"});
  Catch([&] { diag_embed(scalar_tensor(1.0f), 0, -2, -1); }, ErrorCode::kInvalidArgument,
        {"diag_embed(): argument 'input'", "0-D"});
  Catch([&] { diag_embed(v, 0, 0, 2); }, ErrorCode::kOutOfRange,
        {"diag_embed(): argument 'dim2' (2)"});
  Catch([&] { tensor_unfold(v, 0, 4, 1); }, ErrorCode::kOutOfRange,
        {"tensor_unfold(): argument 'size' (4)"});
  Catch([&] { tensor_unfold(v, 0, 2, 0); }, ErrorCode::kInvalidArgument,
        {"tensor_unfold(): argument 'step' (0)"});
  Catch([&] { tensor_unfold(v, 1, 2, 1); }, ErrorCode::kOutOfRange,
        {"tensor_unfold(): argument 'axis' (1)"});
  Catch([&] { tensor_unfold_grad(v, ones({3}), 0, 2, 1); }, ErrorCode::kInvalidArgument,
        {"tensor_unfold_grad(): argument 'grad_out'"});
  Catch(
      [&] {
        pad(x, {1, 1}, 0, 0);
      },
      ErrorCode::kInvalidArgument, {"pad(): argument 'paddings'", "2 * 2"});
  Catch(
      [&] {
        pad(x, {0, 0, -1, 0}, 0, 0);
      },
      ErrorCode::kInvalidArgument, {"pad(): argument 'paddings'", "negative"});
  Catch(
      [&] {
        pad(x, {0, 0, 0, 0}, 4, 0);
      },
      ErrorCode::kInvalidArgument, {"pad(): argument 'mode' (4)"});
  Catch(
      [&] {
        pad(x, {0, 0, 3, 0}, 1, 0);
      },
      ErrorCode::kInvalidArgument,
      {"pad(): reflect padding 3 of axis 1 must be less than its size 3"});
  Catch(
      [&] {
        pad(x, {0, 0, 4, 0}, 3, 0);
      },
      ErrorCode::kInvalidArgument, {"pad(): circular padding 4"});
  Catch(
      [&] {
        pad(Make({}, {0, 2}), {1, 0, 0, 0}, 2, 0);
      },
      ErrorCode::kInvalidArgument, {"pad(): axis 0 is empty"});
  Catch(
      [&] {
        pad(Make({1, 2}, {2}, DType::kInt32), {1, 0}, 0, 1e20);
      },
      ErrorCode::kInvalidArgument, {"pad(): ", "cannot be represented"});
  Catch(
      [&] {
        pad_grad(x, ones({2, 3}), {0, 0, 1, 0}, 0);
      },
      ErrorCode::kInvalidArgument, {"pad_grad(): argument 'grad_out' has shape [2, 3]"});
}

}  // namespace
}  // namespace oar
