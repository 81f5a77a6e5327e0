// grad(): Paddle's general-grad cases, pruning to the needed sub-graph,
// no_grad_vars, allow_unused, only_inputs and create_graph.
#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;
using testing::ExpectClose;
using testing::Leaf;
using testing::Make;
using testing::Values;

TEST(GeneralGrad, LeafInput) {
  Tensor x = Leaf({1, 2, 3});
  Tensor y = sum(multiply(x, x));
  const auto g = Grad({y}, {x});
  ExpectClose(g[0], {2, 4, 6}, {3});
  EXPECT_TRUE(g[0].stop_gradient());
  EXPECT_FALSE(x.grad().defined());  // grad() never writes .grad
}

TEST(GeneralGrad, IntermediateInputIsCapturedNotAccumulated) {
  Tensor x = Leaf({1, 2, 3});
  Tensor h = scale(x, 2.0);
  h.retain_grads();
  Tensor y = sum(multiply(h, h));
  ExpectClose(Grad({y}, {h})[0], {4, 8, 12}, {3});
  EXPECT_FALSE(h.grad().defined());
  EXPECT_FALSE(x.grad().defined());
  // Both an intermediate and the leaf below it.
  GradOptions keep;
  keep.retain_graph = true;
  Tensor y2 = sum(multiply(h, h));
  const auto g = Grad({y2}, {h, x}, {}, keep);
  ExpectClose(g[0], {4, 8, 12}, {3});
  ExpectClose(g[1], {8, 16, 24}, {3});
}

TEST(GeneralGrad, UnusedInputIsAnErrorNamingItsPosition) {
  Tensor x = Leaf({0, 1, 2, 3}), z = Leaf({1, 2, 3, 4});
  Tensor y = sum(scale(x, 2.0));
  GradOptions keep;
  keep.retain_graph = true;
  Catch(
      [&] {
        Grad({y}, {x, z}, {}, keep);
      },
      ErrorCode::kInvalidArgument, {"1-th input does not appear in the backward graph"});
  GradOptions unused;
  unused.allow_unused = true;
  const auto g = Grad({y}, {x, z}, {}, unused);
  ExpectClose(g[0], {2, 2, 2, 2}, {4});
  EXPECT_FALSE(g[1].defined());
}

TEST(GeneralGrad, DuplicateInputsOrOutputsAreErrors) {
  Tensor x = Leaf({1, 2});
  Tensor y = sum(multiply(x, x));
  Catch([&] { Grad({y}, {x, x}); });
  Catch([&] { Grad({y, y}, {x}); });
}

TEST(GeneralGrad, NoGradVarsCutTheirEdges) {
  Tensor x = Leaf({1, 1});
  Tensor a = scale(x, 2.0);
  Tensor b = scale(x, 3.0);
  Tensor y = sum(add(a, b));
  GradOptions opts;
  opts.no_grad_vars = {a};
  ExpectClose(Grad({y}, {x}, {}, opts)[0], {3, 3}, {2});
}

TEST(GeneralGrad, OnlyInputsFalseAlsoAccumulatesOtherLeaves) {
  Tensor x = Leaf({1, 2}), w = Leaf({3, 4});
  Tensor y = sum(multiply(x, w));
  GradOptions opts;
  opts.only_inputs = false;
  ExpectClose(Grad({y}, {x}, {}, opts)[0], {3, 4}, {2});
  EXPECT_FALSE(x.grad().defined());
  ExpectClose(w.grad(), {1, 2}, {2});
}

TEST(GeneralGrad, RetainGraphDefaultsToCreateGraph) {
  Tensor x = Leaf({1, 2});
  Tensor y = sum(multiply(x, x));
  Grad({y}, {x});
  Catch([&] { Grad({y}, {x}); });  // freed: retain_graph defaulted to false
  Tensor y2 = sum(multiply(x, x));
  GradOptions cg;
  cg.create_graph = true;
  const auto g = Grad({y2}, {x}, {}, cg);
  EXPECT_FALSE(g[0].stop_gradient());
  Grad({y2}, {x});  // still there: retain_graph defaulted to true
}

TEST(GeneralGrad, InputEqualToOutput) {
  Tensor x = Leaf({1, 2});
  Tensor y = scale(x, 3.0);
  ExpectClose(Grad({y}, {y}, {Make({5, 6}, {2}, DType::kFloat32)})[0], {5, 6}, {2});
}

// Paddle's double-grad case: d/dx of mean((relu(x) + 1)^2), then its own gradient,
// with repeated backward(retain_graph=True) accumulating into x.grad.
TEST(GeneralGrad, DoubleGradOfMeanOfSquaredRelu) {
  const std::vector<double> xv = {-1.5, 0.5, 2.0, -0.25, 1.0, 3.0};
  Tensor x = Make(xv, {2, 3}, DType::kFloat64, false);
  Tensor out = mean(pow(add(relu(x), full({1}, 1.0, DType::kFloat64)), 2.0));
  GradOptions cg;
  cg.create_graph = true;
  Tensor dx = Grad({out}, {x}, {}, cg)[0];
  std::vector<double> expect_dx, expect_ddx;
  for (double v : xv) {
    const double r = v > 0 ? v : 0;
    expect_dx.push_back(v > 0 ? 2 * (r + 1) / 6 : 0);
    expect_ddx.push_back(v > 0 ? 2.0 / 6 : 0);  // d/dx sum(dx), relu'' = 0
  }
  ExpectClose(dx, expect_dx, {2, 3});
  Tensor loss = sum(dx);
  loss.backward(Tensor(), /*retain_graph=*/true);
  ExpectClose(x.grad(), expect_ddx, {2, 3});
  loss.backward(Tensor(), true);
  for (auto& v : expect_ddx) v *= 2;
  ExpectClose(x.grad(), expect_ddx, {2, 3});
}

TEST(GeneralGrad, ThirdOrder) {
  Tensor x = Make({0.5, -1.0}, {2}, DType::kFloat64, false);
  GradOptions cg;
  cg.create_graph = true;
  Tensor y = sum(pow(x, 4.0));
  Tensor g1 = Grad({y}, {x}, {}, cg)[0];        // 4x^3
  Tensor g2 = Grad({sum(g1)}, {x}, {}, cg)[0];  // 12x^2
  Tensor g3 = Grad({sum(g2)}, {x}, {}, cg)[0];  // 24x
  ExpectClose(g3, {12, -24}, {2});
}

// A long chain y = f_1000(...f_1(x)) with h near the output: grad(y, h) runs
// only the nodes after h, and does not even walk the rest of the graph.
TEST(GeneralGrad, PrunesToTheNeededSubgraph) {
  Tensor x = Leaf({1, 2});
  Tensor h, y = x;
  for (int i = 0; i < 1000; ++i) {
    y = scale(y, 1.0);
    if (i == 989) h = y;
  }
  GradOptions keep;
  keep.retain_graph = true;
  Grad({y}, {h}, {}, keep);
  EXPECT_EQ(LastBackwardStats().nodes_executed, 10);
  EXPECT_LE(LastBackwardStats().nodes_visited, 11);
  Grad({y}, {x}, {}, keep);
  EXPECT_EQ(LastBackwardStats().nodes_executed, 1000);
}

TEST(GeneralGrad, ManyOutputsAndSeeds) {
  Tensor x = Leaf({1, 2});
  Tensor a = scale(x, 2.0), b = scale(x, 3.0);
  const auto g =
      Grad({a, b}, {x}, {Make({1, 1}, {2}, DType::kFloat32), Make({10, 10}, {2}, DType::kFloat32)});
  ExpectClose(g[0], {32, 32}, {2});
}

}  // namespace
}  // namespace oar
