// The activations' own checks (src/oar/kernels/infer_meta_activation.cc): typed
// errors naming the op and the argument. Values and gradients are covered by the
// op registry (tests/op_cases/activation.yaml).
#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;

Tensor X() { return testing::Make({-1.0, 0.5, 2.0, -0.25, 1.0, 3.0}, {2, 3}); }

TEST(ActivationErrors, CeluAlphaZero) {
  Catch([] { celu(X(), 0.0); }, ErrorCode::kInvalidArgument, {"celu(): ", "argument 'alpha'"});
}

TEST(ActivationErrors, SeluRanges) {
  Catch([] { selu(X(), 1.0, 1.6); }, ErrorCode::kInvalidArgument,
        {"selu(): ", "argument 'scale'", "greater than 1.0"});
  Catch([] { selu(X(), 1.05, -0.5); }, ErrorCode::kInvalidArgument,
        {"selu(): ", "argument 'alpha'", "no less than 0"});
}

TEST(ActivationErrors, SoftshrinkNegativeThreshold) {
  Catch([] { softshrink(X(), -0.1); }, ErrorCode::kInvalidArgument,
        {"softshrink(): ", "argument 'threshold'"});
}

TEST(ActivationErrors, PreluWeightMustBroadcastToX) {
  // 2 channels against x's 3 along the last axis
  Catch(
      [] {
        prelu(X(), testing::Make({0.1, 0.2}, {2}));
      },
      ErrorCode::kInvalidArgument, {"prelu(): ", "argument 'weight'", "[2]", "[2, 3]"});
  // weight of higher rank than x
  Catch(
      [] {
        prelu(X(), testing::Make({0.1, 0.2, 0.3}, {1, 1, 3}));
      },
      ErrorCode::kInvalidArgument, {"prelu(): ", "argument 'weight'"});
  // broadcasting that would grow x is refused too: x [3] against weight [2, 1]
  Catch(
      [] {
        prelu(testing::Make({1.0, -1.0, 2.0}, {3}), testing::Make({0.1, 0.2}, {2, 1}));
      },
      ErrorCode::kInvalidArgument, {"prelu(): ", "argument 'weight'"});
}

TEST(ActivationErrors, FloatOnly) {
  // Paddle's activations take floating inputs; an integer tensor is a typed error.
  const Tensor i = testing::Make({1, 2, 3}, {3}, DType::kInt64);
  Catch([&] { gelu(i); }, ErrorCode::kInvalidType, {"gelu(): ", "int64"});
}

TEST(Activation, FirstOrderBackwardIsTheFusedGradOp) {
  const Tensor x = testing::Make({-1.0, 0.5, 2.0}, {3}, DType::kFloat64, false);
  const Tensor y = gelu(x);
  EXPECT_EQ(y.grad_fn()->name(), "GeluGradNode");
}

}  // namespace
}  // namespace oar
