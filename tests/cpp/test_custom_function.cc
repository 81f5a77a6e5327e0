// Custom autograd functions (the C++ base of PyLayer).
#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;
using testing::Contains;
using testing::ExpectClose;
using testing::Make;

// y = x^3 with a hand-written backward in differentiable ops.
struct Cube : Function<Cube> {
  static std::string name() { return "Cube"; }
  static std::vector<Tensor> forward(FunctionContext& ctx, const std::vector<Tensor>& in) {
    ctx.save_for_backward({in[0]});
    return {pow(in[0], 3.0)};
  }
  static std::vector<Tensor> backward(FunctionContext& ctx, const std::vector<Tensor>& g) {
    const Tensor x = ctx.saved_tensors()[0];
    return {multiply(g[0], scale(pow(x, 2.0), 3.0))};
  }
};

TEST(CustomFunction, FirstSecondAndThirdOrder) {
  Tensor x = Make({1.0, 2.0}, {2}, DType::kFloat64, false);
  Tensor y = Cube::apply({x})[0];
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), "Cube");
  GradOptions cg;
  cg.create_graph = true;
  Tensor g1 = Grad({sum(y)}, {x}, {}, cg)[0];
  ExpectClose(g1, {3, 12}, {2});
  Tensor g2 = Grad({sum(g1)}, {x}, {}, cg)[0];
  ExpectClose(g2, {6, 12}, {2});
  Tensor g3 = Grad({sum(g2)}, {x}, {}, cg)[0];
  ExpectClose(g3, {6, 6}, {2});
}

TEST(CustomFunction, SavingTheOutputMakesNoCycle) {
  const int64_t base = testing::BytesInUse();
  {
    Tensor x = Make({1.0, 2.0}, {2}, DType::kFloat64, false);
    auto forward = [](FunctionContext& ctx, const std::vector<Tensor>& in) {
      Tensor out = exp(in[0]);
      ctx.save_for_backward({out});
      return std::vector<Tensor>{out};
    };
    auto backward = [](FunctionContext& ctx, const std::vector<Tensor>& g) {
      return std::vector<Tensor>{multiply(g[0], ctx.saved_tensors()[0])};
    };
    Tensor y = ApplyCustomFunction("MyExp", {x}, forward, backward)[0];
    sum(y).backward();
    ExpectClose(x.grad(), {std::exp(1.0), std::exp(2.0)}, {2});
  }
  EXPECT_EQ(testing::BytesInUse(), base);
}

TEST(CustomFunction, NonDifferentiableOutputAndMissingGrads) {
  Tensor x = Make({3.0, 1.0, 2.0}, {3}, DType::kFloat64, false);
  auto forward = [](FunctionContext& ctx, const std::vector<Tensor>& in) {
    Tensor doubled = scale(in[0], 2.0);
    Tensor mask = greater_than(in[0], full({1}, 1.5, DType::kFloat64));
    Tensor tripled = scale(in[0], 3.0);
    ctx.mark_non_differentiable({mask});
    return std::vector<Tensor>{doubled, mask, tripled};
  };
  auto backward = [](FunctionContext&, const std::vector<Tensor>& g) {
    EXPECT_EQ(g.size(), 3u);  // zeros stand in for outputs that got no gradient
    return std::vector<Tensor>{add(scale(g[0], 2.0), scale(g[2], 3.0))};
  };
  auto outs = ApplyCustomFunction("Split3", {x}, forward, backward);
  EXPECT_FALSE(outs[0].stop_gradient());
  EXPECT_TRUE(outs[1].stop_gradient());
  sum(outs[0]).backward();  // only the first output is used
  ExpectClose(x.grad(), {2, 2, 2}, {3});
}

TEST(CustomFunction, WrongNumberOfGradientsIsAnError) {
  Tensor x = Make({1.0}, {1}, DType::kFloat64, false);
  auto forward = [](FunctionContext&, const std::vector<Tensor>& in) {
    return std::vector<Tensor>{scale(in[0], 2.0)};
  };
  auto backward = [](FunctionContext&, const std::vector<Tensor>& g) {
    return std::vector<Tensor>{g[0], g[0]};
  };
  Tensor y = ApplyCustomFunction("Bad", {x}, forward, backward)[0];
  const Error e = Catch([&] { y.backward(); });
  EXPECT_TRUE(Contains(e.message(), "Bad.backward() returned 2 gradients")) << e.what();
}

TEST(CustomFunction, WrongGradientShapeIsAnError) {
  Tensor x = Make({1.0, 2.0}, {2}, DType::kFloat64, false);
  auto forward = [](FunctionContext&, const std::vector<Tensor>& in) {
    return std::vector<Tensor>{sum(in[0])};
  };
  auto backward = [](FunctionContext&, const std::vector<Tensor>& g) {
    return std::vector<Tensor>{g[0]};  // 0-d, but x is [2]
  };
  Tensor y = ApplyCustomFunction("Shape", {x}, forward, backward)[0];
  Catch([&] { y.backward(); });
}

TEST(CustomFunction, NoGradInputsRecordNothing) {
  Tensor x = Make({1.0}, {1});
  Tensor y = Cube::apply({x})[0];
  EXPECT_TRUE(y.stop_gradient());
  EXPECT_FALSE(y.grad_fn());
}

TEST(CustomFunction, SavedTensorModifiedInPlaceIsDetected) {
  Tensor x = Make({1.0, 2.0}, {2}, DType::kFloat64, false);
  Tensor h = scale(x, 1.0);
  Tensor y = Cube::apply({h})[0];
  {
    NoGradGuard ng;
    scale_(h, 2.0);
  }
  Catch([&] { sum(y).backward(); });
}

}  // namespace
}  // namespace oar
