// Memory: the allocator's statistics prove that backward frees what the graph
// saved and that dropping a graph frees everything, however deep.
#include "test_util.h"

namespace oar {
namespace {

using testing::BytesInUse;

int64_t Bytes(const Tensor& t) { return t.numel() * static_cast<int64_t>(SizeOf(t.dtype())); }

TEST(Memory, BackwardFreesSavedTensors) {
  const int64_t base = BytesInUse();
  Tensor x = randn({64, 64});
  Tensor w = randn({64, 64});
  x.set_stop_gradient(false);
  w.set_stop_gradient(false);
  const int64_t inputs = BytesInUse() - base;
  // multiply saves x (already live); matmul saves x*x, tanh its output: two new blocks.
  Tensor loss = mean(tanh(matmul(multiply(x, x), w)));
  EXPECT_EQ(BytesInUse() - base, inputs + 2 * Bytes(x) + Bytes(loss));
  loss.backward();
  // Live now: x, w, their grads and the loss. Nothing the graph saved.
  EXPECT_EQ(BytesInUse() - base, inputs + Bytes(x.grad()) + Bytes(w.grad()) + Bytes(loss));
  loss = Tensor();
  x = w = Tensor();
  EXPECT_EQ(BytesInUse(), base);
}

TEST(Memory, RetainGraphKeepsSavedTensorsUntilTheGraphIsDropped) {
  const int64_t base = BytesInUse();
  Tensor x = randn({32, 32});
  x.set_stop_gradient(false);
  Tensor loss = sum(exp(multiply(x, x)));
  loss.backward(Tensor(), /*retain_graph=*/true);
  const int64_t live = Bytes(x) + Bytes(x.grad()) + Bytes(loss);
  EXPECT_GT(BytesInUse() - base, live);  // the saved tensors are still there
  loss = Tensor();                       // dropping the graph frees them
  EXPECT_EQ(BytesInUse() - base, Bytes(x) + Bytes(x.grad()));
  x = Tensor();
  EXPECT_EQ(BytesInUse(), base);
}

TEST(Memory, DroppingAVeryDeepChainFreesEverythingWithoutRecursion) {
  const int64_t base = BytesInUse();
  {
    Tensor x = ones({4});
    x.set_stop_gradient(false);
    Tensor y = x;
    for (int i = 0; i < 100000; ++i) y = tanh(y);  // each node saves its output
    EXPECT_GE(BytesInUse() - base, 100000 * Bytes(x));
  }  // the last reference to the 100,000-node graph goes here
  EXPECT_EQ(BytesInUse(), base);
}

TEST(Memory, BackwardThroughAVeryDeepChain) {
  const int64_t base = BytesInUse();
  {
    Tensor x = ones({4});
    x.set_stop_gradient(false);
    Tensor y = x;
    for (int i = 0; i < 100000; ++i) y = multiply(y, full({4}, 1.0));
    y.backward();
    testing::ExpectClose(x.grad(), {1, 1, 1, 1}, {4});
  }
  EXPECT_EQ(BytesInUse(), base);
}

TEST(Memory, AStoppedBranchIsNotKept) {
  const int64_t base = BytesInUse();
  Tensor x = randn({100});
  {
    Tensor y = exp(x);  // x does not require grad: nothing is recorded
    EXPECT_TRUE(y.stop_gradient());
  }
  EXPECT_EQ(BytesInUse() - base, Bytes(x));
}

}  // namespace
}  // namespace oar
