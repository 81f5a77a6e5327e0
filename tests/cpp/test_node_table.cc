// The backward engine's table of node states (Note [The engine's node table]): lookups
// by address, states that stay where they were built while the table grows, each
// destroyed once; and grad() on graphs past its inline room.
#include <vector>

#include "oar/autograd/node_table.h"
#include "test_util.h"

namespace oar {
namespace {

using testing::ExpectClose;
using testing::Make;

// Distinct, never dereferenced keys: addresses inside one buffer, a node's size apart.
std::vector<const GradNodeBase*> Keys(std::vector<char>& storage, size_t n) {
  storage.assign(n * 64, 0);
  std::vector<const GradNodeBase*> keys;
  for (size_t i = 0; i < n; ++i) {
    keys.push_back(reinterpret_cast<const GradNodeBase*>(storage.data() + i * 64));
  }
  return keys;
}

struct Counted {
  static inline int live = 0;
  int value = -1;
  Counted() { ++live; }
  ~Counted() { --live; }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;
};

TEST(NodeTable, FindsEveryStateAtTheAddressItWasBuiltAt) {
  std::vector<char> storage;
  const auto keys = Keys(storage, 10000);  // far past the inline slots and first chunk
  NodeTable<Counted> table;
  std::vector<Counted*> built;
  for (size_t i = 0; i < keys.size(); ++i) {
    auto [state, inserted] = table.FindOrAdd(keys[i]);
    ASSERT_TRUE(inserted);
    state->value = static_cast<int>(i);
    built.push_back(state);
  }
  EXPECT_EQ(table.size(), keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(table.Find(keys[i]), built[i]) << i;
    EXPECT_EQ(built[i]->value, static_cast<int>(i));
    auto [again, inserted] = table.FindOrAdd(keys[i]);
    EXPECT_FALSE(inserted);
    EXPECT_EQ(again, built[i]);
  }
  EXPECT_EQ(table.Find(reinterpret_cast<const GradNodeBase*>(storage.data() + 1)), nullptr);
}

TEST(NodeTable, ReserveKeepsTheStatesAlreadyBuilt) {
  std::vector<char> storage;
  const auto keys = Keys(storage, 300);
  NodeTable<Counted> table;
  Counted* first = table.FindOrAdd(keys[0]).first;
  first->value = 7;
  table.Reserve(300);
  for (size_t i = 1; i < keys.size(); ++i) table.FindOrAdd(keys[i]);
  EXPECT_EQ(table.Find(keys[0]), first);
  EXPECT_EQ(first->value, 7);
}

TEST(NodeTable, DestroysEachStateOnce) {
  std::vector<char> storage;
  const auto keys = Keys(storage, 1000);
  {
    NodeTable<Counted> table;
    for (const GradNodeBase* k : keys) table.FindOrAdd(k);
    for (const GradNodeBase* k : keys) table.FindOrAdd(k);  // found, not built again
    EXPECT_EQ(Counted::live, 1000);
  }
  EXPECT_EQ(Counted::live, 0);
}

// grad() through graphs the engine's inline room does not hold: a deep chain, and many
// paths from one input meeting at the output.
TEST(NodeTable, GradThroughDeepAndWideGraphs) {
  Tensor x = Make({1.0, 2.0}, {2}, DType::kFloat64, false);
  Tensor y = x;
  for (int i = 0; i < 3000; ++i) y = scale(y, 1.0, 1.0);  // y = x + 3000
  std::vector<Tensor> g = Grad({sum(multiply(y, y))}, {x}, {}, GradOptions{});
  ExpectClose(g[0], {2 * 3001.0, 2 * 3002.0}, {2});

  Tensor total = scale(x, 0.0);
  for (int i = 1; i <= 500; ++i) total = add(total, scale(x, static_cast<double>(i)));
  g = Grad({sum(total)}, {x}, {}, GradOptions{});
  ExpectClose(g[0], {125250.0, 125250.0}, {2});  // 1 + 2 + ... + 500
}

}  // namespace
}  // namespace oar
