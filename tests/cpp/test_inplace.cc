// In-place ops: version counters, the saved-tensor check, and what is allowed.
#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;
using testing::ExpectClose;
using testing::Leaf;
using testing::Make;

TEST(Inplace, BumpsVersionSharedWithViews) {
  Tensor a = Make({1, 2, 3, 4}, {4});
  Tensor v = reshape(a, {2, 2});
  EXPECT_EQ(a.current_inplace_version(), 0u);
  add_(a, full({4}, 1.0));
  scale_(v, 2.0);
  EXPECT_EQ(a.current_inplace_version(), 2u);
  EXPECT_EQ(v.current_inplace_version(), 2u);
  ExpectClose(a, {4, 6, 8, 10}, {4});
}

// Paddle's case: b = a^2, c = b^2, b[1:2] = 3.3, d = b^2, relu(c + d).backward()
// must fail, because c's backward needs the b it saved, which was overwritten.
TEST(Inplace, ModifiedSavedTensorFailsNamingTheVersions) {
  Tensor a = Leaf({1, 2, 3, 4});
  Tensor b = pow(a, 2.0);
  b.set_name("b");
  Tensor c = pow(b, 2.0);
  set_value_(b, {0}, {1}, {2}, {1}, 3.3);
  Tensor d = pow(b, 2.0);
  Tensor loss = sum(relu(add(c, d)));
  Catch([&] { loss.backward(); }, ErrorCode::kPreconditionNotMet,
        {"'b'", "version 1", "saved at version 0", "pow"});
}

// Allowed: the overwritten value is not needed by any backward.
TEST(Inplace, AllowedWhenBackwardDoesNotNeedTheOldValue) {
  Tensor a = Leaf({1, 2, 3, 4});
  Tensor b = scale(a, 2.0);                // scale saves nothing
  set_value_(b, {0}, {1}, {2}, {1}, 3.3);  // b[1:2] = 3.3
  Tensor loss = sum(multiply(b, b));
  loss.backward();
  // d loss / d a = 2 b * 2 where b still depends on a; 0 at the overwritten element.
  ExpectClose(a.grad(), {8, 0, 24, 32}, {4}, 1e-5);
}

// Allowed: relu_ saves its output (the new value), not its input.
TEST(Inplace, ReluInplaceSavesItsOutput) {
  Tensor a = Leaf({-1, 2, -3, 4});
  Tensor b = scale(a, 1.0);
  relu_(b);
  sum(multiply(b, full({4}, 3.0))).backward();
  ExpectClose(a.grad(), {0, 3, 0, 3}, {4});
}

TEST(Inplace, SliceAssignmentOfATensor) {
  Tensor a = Leaf({1, 2, 3, 4});
  Tensor v = Leaf({10, 20});
  Tensor b = scale(a, 1.0);
  set_value_with_tensor_(b, v, {0}, {0}, {4}, {2});  // b[0:4:2] = v
  ExpectClose(b, {10, 2, 20, 4}, {4});
  sum(multiply(b, Make({1, 2, 3, 4}, {4}, DType::kFloat32))).backward();
  ExpectClose(a.grad(), {0, 2, 0, 4}, {4});
  ExpectClose(v.grad(), {1, 3}, {2});
}

TEST(Inplace, OnALeafThatRequiresGradIsAnError) {
  Tensor a = Leaf({1, 2});
  Catch([&] { add_(a, full({2}, 1.0)); });
  {
    NoGradGuard ng;  // optimizers update parameters like this
    add_(a, full({2}, 1.0));
  }
  ExpectClose(a, {2, 3}, {2});
}

TEST(Inplace, OnAViewOfATensorThatRequiresGradIsAnError) {
  Tensor a = Leaf({1, 2, 3, 4});
  Tensor b = scale(a, 1.0);
  Tensor v = reshape(b, {2, 2});
  Catch([&] { scale_(v, 2.0); });
}

TEST(Inplace, ShapeChangingInplaceIsAnError) {
  Tensor a = Make({1, 2}, {2});
  Catch([&] { add_(a, full({3, 2}, 1.0)); });
  Tensor e = expand(Make({1}, {1}), {4});
  Catch([&] { scale_(e, 2.0); });
}

// Note [In-place ops save a copy of what they overwrite]: the backward w.r.t. w
// needs the old b, which multiply_ saved as a recorded copy before writing.
TEST(Inplace, MultiplyInplaceSavesTheOldValueItsBackwardNeeds) {
  Tensor a = Leaf({1, 2});
  Tensor w = Leaf({3, 4});
  Tensor b = scale(a, 1.0);
  multiply_(b, w);
  sum(b).backward();
  ExpectClose(a.grad(), {3, 4}, {2});
  ExpectClose(w.grad(), {1, 2}, {2});
}

// The copy is recorded, so higher orders go through it: sin_'s second derivative.
TEST(Inplace, SinInplaceHasEveryOrderOfGradient) {
  Tensor a = Leaf({0.3, 0.7});
  Tensor b = scale(a, 1.0);
  sin_(b);
  GradOptions cg;
  cg.create_graph = true;
  const Tensor g = Grad({sum(b)}, {a}, {}, cg)[0];
  ExpectClose(g, {std::cos(0.3), std::cos(0.7)}, {2}, 1e-5);
  const Tensor g2 = Grad({sum(g)}, {a})[0];
  ExpectClose(g2, {-std::sin(0.3), -std::sin(0.7)}, {2}, 1e-5);
}

TEST(Inplace, GradientThroughInplaceChain) {
  Tensor a = Leaf({1, 2});
  Tensor b = scale(a, 3.0);
  add_(b, full({2}, 1.0));
  scale_(b, 2.0);
  exp_(b);  // b = exp(2 (3a + 1))
  sum(b).backward();
  ExpectClose(a.grad(), {6 * std::exp(8.0), 6 * std::exp(14.0)}, {2}, 1e-5);
}

}  // namespace
}  // namespace oar
