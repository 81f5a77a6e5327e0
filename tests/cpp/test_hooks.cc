// Hooks of every kind: tensor hooks (chained, removable), leaf accumulation
// hooks, final-backward callbacks, saved-tensor pack/unpack hooks.
#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;
using testing::ExpectClose;
using testing::Leaf;
using testing::Make;

Tensor Double(const Tensor& g) { return scale(g, 2.0); }

// Paddle's test_hook_for_interior_var: a hook on a non-leaf changes what flows
// upstream, but not that tensor's own retained grad.
void RunInteriorHookCase(bool remove_before_backward) {
  Tensor x = Leaf({0, 1, 2, 3}), y = Leaf({4, 5, 6, 7}), z = Leaf({1, 2, 3, 4});
  Tensor w = add(x, y);
  w.retain_grads();
  HookHandle h = w.register_hook(Double);
  Tensor o = matmul(z, w);
  if (remove_before_backward) {
    EXPECT_TRUE(h.remove());
  }
  o.backward();
  ExpectClose(z.grad(), {4, 6, 8, 10}, {4});  // w
  ExpectClose(w.grad(), {1, 2, 3, 4}, {4});   // z, not doubled
  const double f = remove_before_backward ? 1 : 2;
  ExpectClose(x.grad(), {f * 1, f * 2, f * 3, f * 4}, {4});
  ExpectClose(y.grad(), {f * 1, f * 2, f * 3, f * 4}, {4});
}

TEST(Hooks, InteriorHookWithRetainGrads) { RunInteriorHookCase(false); }
TEST(Hooks, RemovedInteriorHook) { RunInteriorHookCase(true); }

TEST(Hooks, HooksChainInOrderAndRemoveIndividually) {
  Tensor x = Leaf({0, 1, 2, 3}), z = Leaf({1, 2, 3, 4});
  Tensor w = scale(x, 1.0);
  HookHandle h1 = w.register_hook(Double);
  w.register_hook(Double);
  w.register_hook(Double);
  Tensor o = matmul(z, w);
  o.backward(Tensor(), true);
  ExpectClose(x.grad(), {8, 16, 24, 32}, {4});  // 8z
  x.clear_grad();
  EXPECT_TRUE(h1.remove());
  EXPECT_FALSE(h1.remove());
  o.backward();
  ExpectClose(x.grad(), {4, 8, 12, 16}, {4});  // 4z
  // Order matters: add then double differs from double then add.
  Tensor a = Leaf({1});
  Tensor b = scale(a, 1.0);
  b.register_hook([](const Tensor& g) { return add(g, full({1}, 1.0)); });
  b.register_hook(Double);
  b.backward();
  ExpectClose(a.grad(), {4}, {1});
}

TEST(Hooks, HookReturningWrongShapeIsAnError) {
  Tensor x = Leaf({1, 2});
  Tensor y = scale(x, 2.0);
  y.register_hook([](const Tensor&) { return full({3}, 1.0); });
  Catch([&] { sum(y).backward(); }, ErrorCode::kInvalidArgument, {"same shape"});
}

TEST(Hooks, HookOnStopGradientTensorIsAnError) {
  Tensor x = Make({1, 2}, {2});
  Catch([&] { x.register_hook(Double); });
}

TEST(Hooks, LeafAccumulationHookRunsAfterGradIsUpdated) {
  Tensor x = Leaf({1, 2});
  std::vector<double> seen;
  const int64_t id = RegisterLeafGradAccumulatedHook(x, [&] { seen = testing::Values(x.grad()); });
  sum(scale(x, 3.0)).backward();
  EXPECT_EQ(seen, (std::vector<double>{3, 3}));
  EXPECT_TRUE(RemoveLeafGradAccumulatedHook(x, id));
  seen.clear();
  sum(x).backward();
  EXPECT_TRUE(seen.empty());
}

TEST(Hooks, FinalBackwardCallbackRunsAfterEverything) {
  Tensor x = Leaf({1});
  bool grad_was_ready = false;
  RegisterBackwardFinalHook([&] { grad_was_ready = x.grad().defined(); });
  scale(x, 2.0).backward();
  EXPECT_TRUE(grad_was_ready);
}

TEST(Hooks, SavedTensorsHooksPackAndUnpack) {
  Tensor x = Leaf({1, 2, 3});
  int packed = 0, unpacked = 0;
  Tensor y;
  {
    // "Offload": pack stores a copy, unpack hands it back.
    SavedTensorsHooksGuard guard(
        [&](const Tensor& t) {
          ++packed;
          NoGradGuard ng;
          return std::static_pointer_cast<void>(std::make_shared<Tensor>(assign(t)));
        },
        [&](const std::shared_ptr<void>& p) {
          ++unpacked;
          return *std::static_pointer_cast<Tensor>(p);
        });
    y = sum(multiply(x, exp(x)));  // multiply saves x and exp(x); exp saves its output
  }
  EXPECT_EQ(packed, 3);
  y.backward();
  EXPECT_EQ(unpacked, 3);
  std::vector<double> expect;
  for (double v : {1.0, 2.0, 3.0}) expect.push_back(std::exp(v) * (1 + v));
  ExpectClose(x.grad(), expect, {3}, 1e-5);
}

TEST(Hooks, SavedTensorsHooksScopeEnds) {
  int packed = 0;
  {
    SavedTensorsHooksGuard guard(
        [&](const Tensor& t) {
          ++packed;
          return std::static_pointer_cast<void>(std::make_shared<Tensor>(t));
        },
        [](const std::shared_ptr<void>& p) { return *std::static_pointer_cast<Tensor>(p); });
  }
  Tensor x = Leaf({1});
  multiply(x, x);
  EXPECT_EQ(packed, 0);
}

}  // namespace
}  // namespace oar
