// The engine cases of Paddle's eager backward tests (docs/design.md §8), on scale
// nodes whose gradients are easy to derive by hand.
#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;
using testing::ExpectClose;
using testing::Make;

Tensor Leaf(double v = 1.0) { return Make({v, v, v, v}, {2, 2}, DType::kFloat32, false); }

TEST(Engine, LinearChainOfScaleNodes) {
  Tensor x = Leaf();
  Tensor out = scale(scale(x, 5.0), 10.0);
  out.backward();
  ExpectClose(x.grad(), {50, 50, 50, 50}, {2, 2});
}

TEST(Engine, AccumulationFromTwoPaths) {
  Tensor x = Leaf();
  Tensor a = scale(scale(x, 5.0), 5.0);
  Tensor b = scale(scale(x, 10.0), 10.0);
  Tensor out = scale(add(a, b), 20.0);
  out.backward();
  ExpectClose(x.grad(), {2500, 2500, 2500, 2500}, {2, 2});
}

TEST(Engine, Diamond) {
  // x -> a -> (b, c) -> d: both branches meet again.
  Tensor x = Leaf(2.0);
  Tensor a = scale(x, 3.0);
  Tensor d = add(multiply(a, a), scale(a, 4.0));  // d = 9x^2 + 12x
  d.backward();
  ExpectClose(x.grad(), {18 * 2 + 12, 48, 48, 48}, {2, 2});
  EXPECT_EQ(LastBackwardStats().nodes_executed, 5);  // scale, multiply, scale, add, leaf
}

TEST(Engine, BranchesToSeveralLeaves) {
  Tensor x = Leaf(1.0), y = Leaf(2.0);
  Tensor out = add(scale(x, 3.0), multiply(x, y));
  out.backward();
  ExpectClose(x.grad(), {5, 5, 5, 5}, {2, 2});
  ExpectClose(y.grad(), {1, 1, 1, 1}, {2, 2});
}

TEST(Engine, HookDoublesGradientOfIntermediate) {
  Tensor x = Leaf();
  Tensor a = scale(x, 5.0);
  a.register_hook([](const Tensor& g) { return scale(g, 2.0); });
  Tensor out = scale(a, 10.0);
  out.backward();
  ExpectClose(x.grad(), {100, 100, 100, 100}, {2, 2});
}

TEST(Engine, HookOnLeafChangesItsGrad) {
  Tensor x = Leaf();
  x.register_hook([](const Tensor& g) { return scale(g, 3.0); });
  scale(x, 2.0).backward();
  ExpectClose(x.grad(), {6, 6, 6, 6}, {2, 2});
}

TEST(Engine, RetainGradsOnNonLeaf) {
  Tensor x = Leaf();
  Tensor a = scale(x, 5.0);
  Tensor out = scale(a, 10.0);
  EXPECT_FALSE(a.grad().defined());
  a.retain_grads();
  out.backward();
  ExpectClose(a.grad(), {10, 10, 10, 10}, {2, 2});
  ExpectClose(x.grad(), {50, 50, 50, 50}, {2, 2});
  // Without retain_grads an intermediate keeps no gradient.
  Tensor b = scale(x, 2.0);
  scale(b, 2.0).backward();
  EXPECT_FALSE(b.grad().defined());
}

TEST(Engine, StopGradientCutsBranch) {
  Tensor x = Leaf(), y = Leaf();
  y.set_stop_gradient(true);
  Tensor out = add(scale(x, 2.0), scale(y, 3.0));
  out.backward();
  ExpectClose(x.grad(), {2, 2, 2, 2}, {2, 2});
  EXPECT_FALSE(y.grad().defined());
}

TEST(Engine, SecondBackwardWithoutRetainGraphFails) {
  Tensor x = Leaf(3.0);
  Tensor out = multiply(x, x);  // saves x and x
  out.backward();
  Catch([&] { out.backward(); }, ErrorCode::kPreconditionNotMet,
        {"second time", "retain_graph=True"});
}

TEST(Engine, RetainGraphAllowsSecondBackwardAndAccumulates) {
  Tensor x = Leaf(3.0);
  Tensor out = multiply(x, x);
  out.backward(Tensor(), /*retain_graph=*/true);
  out.backward();
  ExpectClose(x.grad(), {12, 12, 12, 12}, {2, 2});
}

TEST(Engine, CustomSeedGradient) {
  Tensor x = Leaf();
  Tensor out = scale(x, 2.0);
  out.backward(Make({1, 2, 3, 4}, {2, 2}, DType::kFloat32));
  ExpectClose(x.grad(), {2, 4, 6, 8}, {2, 2});
}

TEST(Engine, SeedWithWrongShapeIsAnError) {
  Tensor x = Leaf();
  Tensor out = scale(x, 2.0);
  Catch([&] { out.backward(Make({1, 2}, {2}, DType::kFloat32)); });
}

TEST(Engine, BackwardOnStopGradientTensorIsAnError) {
  Tensor x = Make({1, 2}, {2}, DType::kFloat32);
  Catch([&] { scale(x, 2.0).backward(); });
}

TEST(Engine, LeafBackwardGivesOnes) {
  Tensor x = Leaf();
  x.backward();
  ExpectClose(x.grad(), {1, 1, 1, 1}, {2, 2});
}

TEST(Engine, NoGradGuardRecordsNothing) {
  Tensor x = Leaf();
  Tensor y;
  {
    NoGradGuard guard;
    y = scale(x, 2.0);
  }
  EXPECT_TRUE(y.stop_gradient());
  EXPECT_TRUE(y.is_leaf());
  EXPECT_TRUE(HasGrad());
}

TEST(Engine, FinalBackwardHookRunsOnce) {
  int calls = 0;
  Tensor x = Leaf();
  RegisterBackwardFinalHook([&] { ++calls; });
  scale(x, 2.0).backward();
  EXPECT_EQ(calls, 1);
  scale(x, 2.0).backward();
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace oar
