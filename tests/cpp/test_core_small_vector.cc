// SmallVector: inline storage, growth to the heap, copies and moves from both
// storage kinds, insert/erase/resize, aliasing arguments and element lifetimes.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "oar/core/small_vector.h"

// GCC 12 warns that take()'s inline-source branch could copy a heap-sized
// source into inline storage; that branch only runs for inline sources, which
// never hold more than N elements.
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overflow"

namespace oar {
namespace {

template <typename V>
bool IsInline(const V& v) {
  const char* p = reinterpret_cast<const char*>(v.data());
  const char* self = reinterpret_cast<const char*>(&v);
  return p >= self && p < self + sizeof(V);
}

// Long enough to defeat the small-string optimisation.
std::string Long(int i) { return "a string long enough to live on the heap #" + std::to_string(i); }

// Counts live instances so a leaked or doubly destroyed element shows up.
struct Counted {
  static inline int live = 0;
  int v;
  Counted(int x = 0) : v(x) { ++live; }
  Counted(const Counted& o) : v(o.v) { ++live; }
  Counted(Counted&& o) noexcept : v(o.v) { ++live; }
  Counted& operator=(const Counted&) = default;
  Counted& operator=(Counted&&) = default;
  ~Counted() { --live; }
};

TEST(SmallVector, InlineUpToNThenHeap) {
  SmallVector<int, 4> v;
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.capacity(), 4u);
  for (int i = 0; i < 4; ++i) v.push_back(i);
  EXPECT_TRUE(IsInline(v));
  EXPECT_EQ(v.capacity(), 4u);
  v.push_back(4);
  EXPECT_FALSE(IsInline(v));
  EXPECT_GE(v.capacity(), 8u);
  ASSERT_EQ(v.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(v[i], i);
  EXPECT_EQ(v.front(), 0);
  EXPECT_EQ(v.back(), 4);
  EXPECT_THROW(v.at(5), std::out_of_range);
}

TEST(SmallVector, ReserveAndConstructors) {
  SmallVector<int, 2> r;
  r.reserve(10);
  EXPECT_GE(r.capacity(), 10u);
  EXPECT_TRUE(r.empty());
  EXPECT_EQ((SmallVector<int, 2>(3)), (SmallVector<int, 2>{0, 0, 0}));
  EXPECT_EQ((SmallVector<int, 2>(3, 7)), (SmallVector<int, 2>{7, 7, 7}));
  const int raw[] = {1, 2, 3};
  EXPECT_EQ((SmallVector<int, 2>(raw, raw + 3)), (SmallVector<int, 2>{1, 2, 3}));
  EXPECT_NE((SmallVector<int, 2>{1, 2}), (SmallVector<int, 2>{1, 2, 3}));
  EXPECT_NE((SmallVector<int, 2>{1, 2}), (SmallVector<int, 2>{1, 3}));
}

TEST(SmallVector, CopyFromInlineAndHeapSourcesIsDeep) {
  for (int n : {3, 9}) {  // 3 stays inline, 9 lives on the heap
    SmallVector<std::string, 4> src;
    for (int i = 0; i < n; ++i) src.push_back(Long(i));
    SmallVector<std::string, 4> copy(src);
    EXPECT_EQ(copy, src);
    EXPECT_NE(copy.data(), src.data());
    EXPECT_EQ(IsInline(copy), n <= 4);
    copy[0] = "changed";
    EXPECT_EQ(src[0], Long(0));

    SmallVector<std::string, 4> assigned{"x", "y", "z", "w", "v", "u"};
    assigned = src;
    EXPECT_EQ(assigned, src);
    assigned = {"only"};
    EXPECT_EQ(assigned.size(), 1u);
    EXPECT_EQ(assigned[0], "only");
  }
}

// Shapes (int64, six inline) are copied as their whole inline buffer: every size, from
// inline and heap sources, into inline and heap targets, keeps exactly the source's elements.
TEST(SmallVector, TriviallyCopyableCopiesKeepExactlyTheSource) {
  using V = SmallVector<int64_t, 6>;
  for (size_t n = 0; n <= 9; ++n) {
    V src;
    for (size_t i = 0; i < n; ++i) src.push_back(static_cast<int64_t>(10 * i + 1));
    V heap_small;  // a heap buffer holding few elements
    for (int i = 0; i < 8; ++i) heap_small.push_back(-1);
    heap_small.resize(n <= 6 ? n : 6);
    for (size_t i = 0; i < heap_small.size(); ++i) heap_small[i] = static_cast<int64_t>(7 * i);
    for (const V* from : {&src, &heap_small}) {
      V copy(*from);
      EXPECT_EQ(copy, *from);
      EXPECT_EQ(copy.size(), from->size());
      V into_inline{5, 5, 5};
      into_inline = *from;
      EXPECT_EQ(into_inline, *from);
      V into_heap(9, 3);
      into_heap = *from;
      EXPECT_EQ(into_heap, *from);
      copy.push_back(99);  // appends after exactly size() elements
      EXPECT_EQ(copy.size(), from->size() + 1);
      EXPECT_EQ(copy.back(), 99);
      EXPECT_NE(copy, *from);
    }
  }
  EXPECT_NE(V({1, 2, 3}), V({1, 2, 4}));
  EXPECT_NE(V({1, 2}), V({1, 2, 0}));
  EXPECT_EQ(V(), V());
}

TEST(SmallVector, MoveFromInlineSourceMovesElements) {
  SmallVector<std::string, 4> src{Long(0), Long(1)};
  SmallVector<std::string, 4> dst(std::move(src));
  EXPECT_TRUE(IsInline(dst));
  EXPECT_EQ(dst, (SmallVector<std::string, 4>{Long(0), Long(1)}));
  EXPECT_TRUE(src.empty());  // NOLINT(bugprone-use-after-move): the state is specified
  src.push_back("reusable");
  EXPECT_EQ(src[0], "reusable");
}

TEST(SmallVector, MoveFromHeapSourceStealsTheBuffer) {
  SmallVector<std::string, 2> src;
  for (int i = 0; i < 5; ++i) src.push_back(Long(i));
  const std::string* buffer = src.data();
  SmallVector<std::string, 2> dst(std::move(src));
  EXPECT_EQ(dst.data(), buffer);
  ASSERT_EQ(dst.size(), 5u);
  EXPECT_EQ(dst[4], Long(4));
  EXPECT_TRUE(src.empty());  // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(IsInline(src));
  EXPECT_EQ(src.capacity(), 2u);

  // Move-assign a heap source over a heap destination, then an inline one.
  SmallVector<std::string, 2> other{Long(10), Long(11), Long(12)};
  other = std::move(dst);
  EXPECT_EQ(other.data(), buffer);
  EXPECT_EQ(other.size(), 5u);
  SmallVector<std::string, 2> small{"s"};
  other = std::move(small);
  EXPECT_TRUE(IsInline(other));
  EXPECT_EQ(other, (SmallVector<std::string, 2>{"s"}));
}

TEST(SmallVector, InsertAndErase) {
  SmallVector<std::string, 4> v{"b", "d"};
  auto it = v.insert(v.begin(), "a");
  EXPECT_EQ(*it, "a");
  it = v.insert(v.begin() + 2, "c");
  EXPECT_EQ(*it, "c");
  v.insert(v.end(), "e");  // the fifth element: grows while inserting
  EXPECT_EQ(v, (SmallVector<std::string, 4>{"a", "b", "c", "d", "e"}));

  it = v.erase(v.begin() + 1);
  EXPECT_EQ(*it, "c");
  it = v.erase(v.begin());
  EXPECT_EQ(*it, "c");
  it = v.erase(v.end() - 1);
  EXPECT_EQ(it, v.end());
  EXPECT_EQ(v, (SmallVector<std::string, 4>{"c", "d"}));
}

TEST(SmallVector, InsertOwnElementWhileGrowing) {
  SmallVector<std::string, 3> v{Long(0), Long(1), Long(2)};
  v.insert(v.begin(), v[2]);  // full: the insert reallocates
  EXPECT_EQ(v, (SmallVector<std::string, 3>{Long(2), Long(0), Long(1), Long(2)}));
}

TEST(SmallVector, ResizeWithValues) {
  SmallVector<int, 3> v{1, 2};
  v.resize(6, 9);  // inline -> heap
  EXPECT_EQ(v, (SmallVector<int, 3>{1, 2, 9, 9, 9, 9}));
  v.resize(3);
  EXPECT_EQ(v, (SmallVector<int, 3>{1, 2, 9}));
  v.resize(5);  // value-initialised
  EXPECT_EQ(v, (SmallVector<int, 3>{1, 2, 9, 0, 0}));
  v.assign(2, 4);
  EXPECT_EQ(v, (SmallVector<int, 3>{4, 4}));

  v.pop_back();
  EXPECT_EQ(v, (SmallVector<int, 3>{4}));
}

// resize(n, v[i]) and assign(n, v[i]): the value may alias an element, which
// must survive the reallocation or the clear() that comes first.
TEST(SmallVector, ResizeAndAssignWithOwnElement) {
  SmallVector<std::string, 2> v{Long(0), Long(1)};
  v.resize(5, v[0]);
  ASSERT_EQ(v.size(), 5u);
  for (size_t i = 2; i < 5; ++i) EXPECT_EQ(v[i], Long(0)) << "at " << i;
  v[1] = Long(1);
  v.assign(7, v[1]);  // the value is one of the elements assign() destroys first
  EXPECT_EQ(v, (SmallVector<std::string, 2>(7, Long(1))));
}

TEST(SmallVector, EmplaceBackOwnElementWhileGrowing) {
  SmallVector<std::string, 2> v{Long(0), Long(1)};
  v.emplace_back(v[0]);  // inline -> heap
  v.push_back(v[1]);
  v.push_back(v.back());  // heap -> bigger heap (capacity 4 is full)
  EXPECT_EQ(v, (SmallVector<std::string, 2>{Long(0), Long(1), Long(0), Long(1), Long(1)}));
}

TEST(SmallVector, SharedPtrElementsReleaseTheirReferences) {
  auto p = std::make_shared<int>(42);
  {
    SmallVector<std::shared_ptr<int>, 2> v;
    for (int i = 0; i < 10; ++i) v.push_back(p);
    EXPECT_EQ(p.use_count(), 11);
    SmallVector<std::shared_ptr<int>, 2> copy = v;
    EXPECT_EQ(p.use_count(), 21);
    SmallVector<std::shared_ptr<int>, 2> moved = std::move(copy);  // no new references
    EXPECT_EQ(p.use_count(), 21);
    v.erase(v.begin() + 3);
    v.pop_back();
    EXPECT_EQ(p.use_count(), 19);
    v.resize(2);
    EXPECT_EQ(p.use_count(), 13);
    moved.clear();
    EXPECT_EQ(p.use_count(), 3);
    v = SmallVector<std::shared_ptr<int>, 2>{p};  // heap destination, inline source
    EXPECT_EQ(p.use_count(), 2);
  }
  EXPECT_EQ(p.use_count(), 1);
}

TEST(SmallVector, EveryElementIsDestroyedExactlyOnce) {
  Counted::live = 0;
  {
    SmallVector<Counted, 3> a;
    for (int i = 0; i < 7; ++i) a.emplace_back(i);
    SmallVector<Counted, 3> b = a;
    SmallVector<Counted, 3> c{Counted(1)};
    c = b;             // copy onto inline
    b = std::move(a);  // move heap onto heap
    a = c;             // copy into a moved-from vector
    a.insert(a.begin() + 2, Counted(99));
    a.erase(a.begin());
    a.resize(20);
    a.resize(1);
    c.clear();
    EXPECT_EQ(Counted::live, 1 + 7 + 0);
    EXPECT_EQ(b[6].v, 6);
  }
  EXPECT_EQ(Counted::live, 0);
}

}  // namespace
}  // namespace oar
