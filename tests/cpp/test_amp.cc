// Auto-cast from C++ (oar::amp::AutoCastGuard): list membership decides the
// dtype, gradients come back in their inputs' dtypes, and the backward runs
// without auto-cast (Note [Auto-cast happens in the forward pass]).
#include "oar/autograd/amp_mode.h"
#include "test_util.h"

namespace oar {
namespace {

using testing::Make;

amp::State O(amp::Level level, bool use_promote = true) {
  amp::State s;
  s.level = level;
  s.use_promote = use_promote;
  return s;
}

TEST(Amp, ListsDecideTheDType) {
  Tensor x = Make({1, 2, 3, 4}, {2, 2}, DType::kFloat32, false);
  {
    amp::AutoCastGuard guard(O(amp::Level::kO1));
    Tensor y = matmul(x, x);
    EXPECT_EQ(y.dtype(), DType::kBFloat16);                        // white
    EXPECT_EQ(exp(y).dtype(), DType::kFloat32);                    // black
    EXPECT_EQ(tanh(y).dtype(), DType::kBFloat16);                  // follows its input
    EXPECT_EQ(add(y, x).dtype(), DType::kFloat32);                 // mixed: the widest
    EXPECT_EQ(cast(x, DType::kFloat16).dtype(), DType::kFloat16);  // never auto-cast
    sum(exp(y)).backward();
  }
  ASSERT_TRUE(x.grad().defined());
  EXPECT_EQ(x.grad().dtype(), DType::kFloat32);
  EXPECT_EQ(amp::CurrentLevel(), amp::Level::kO0);
  {
    amp::AutoCastGuard guard(O(amp::Level::kO2, /*use_promote=*/false));
    EXPECT_EQ(tanh(x).dtype(), DType::kBFloat16);
    EXPECT_EQ(sum(x).dtype(), DType::kFloat32);
    amp::AutoCastGuard off(amp::Level::kO0);
    EXPECT_EQ(matmul(x, x).dtype(), DType::kFloat32);
  }
}

TEST(Amp, CustomListsOverrideTheDefaults) {
  Tensor x = Make({1, 2, 3, 4}, {2, 2}, DType::kFloat32);
  amp::State s = O(amp::Level::kO1);
  auto lists = std::make_shared<amp::CustomLists>();
  lists->black.insert("matmul");
  lists->white.insert("exp");
  s.lists = lists;
  amp::AutoCastGuard guard(s);
  EXPECT_EQ(matmul(x, x).dtype(), DType::kFloat32);
  EXPECT_EQ(exp(x).dtype(), DType::kBFloat16);
}

}  // namespace
}  // namespace oar
