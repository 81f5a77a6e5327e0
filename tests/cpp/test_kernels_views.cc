// Shape manipulation: which ops return views (sharing the allocation), that
// copies are correct, concat, and strided_slice against Python slicing.
#include <limits>

#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;
using testing::ExpectClose;
using testing::Make;
using testing::Values;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

std::vector<double> Seq(int64_t n) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>(i);
  return v;
}

bool SharesMemory(const Tensor& a, const Tensor& b) {
  return a.dense().Holder() == b.dense().Holder();
}

TEST(Views, ReshapeOfContiguousIsAView) {
  const Tensor x = Make(Seq(24), {2, 3, 4});
  for (const auto& shape : std::vector<std::vector<int64_t>>{{6, 4}, {24}, {4, -1}, {0, 12}}) {
    const Tensor r = reshape(x, shape);
    EXPECT_TRUE(SharesMemory(r, x)) << StrCat(shape);
    EXPECT_EQ(Values(r), Seq(24));
  }
  EXPECT_EQ(reshape(x, {4, -1}).shape(), (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(reshape(x, {0, 12}).shape(), (std::vector<int64_t>{2, 12}));  // 0 copies x's dim
  // A slice of whole rows is still viewable.
  const Tensor rows = slice(Make(Seq(24), {6, 4}), {0}, {2}, {4});
  EXPECT_TRUE(SharesMemory(reshape(rows, {8}), rows));
  ExpectClose(reshape(rows, {8}), {8, 9, 10, 11, 12, 13, 14, 15}, {8});
}

TEST(Views, ReshapeOfNonContiguousCopiesInLogicalOrder) {
  const Tensor x = Make(Seq(6), {2, 3});
  const Tensor t = transpose(x, {1, 0});  // [[0, 3], [1, 4], [2, 5]]
  const Tensor r = reshape(t, {6});
  EXPECT_FALSE(SharesMemory(r, x));
  ExpectClose(r, {0, 3, 1, 4, 2, 5}, {6});
  ExpectClose(reshape(t, {2, 3}), {0, 3, 1, 4, 2, 5}, {2, 3});
  // Reversed rows cannot be flattened by a view either.
  const Tensor rev = strided_slice(x, {0}, {-1}, {kMin}, {-1});
  ExpectClose(reshape(rev, {-1}), {3, 4, 5, 0, 1, 2}, {6});
  // Splitting one dim of a transposed view is still a view.
  const Tensor base = Make(Seq(24), {4, 6});
  const Tensor split = reshape(transpose(base, {1, 0}), {2, 3, 4});
  EXPECT_TRUE(SharesMemory(split, base));
  std::vector<double> expected;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j) expected.push_back(j * 6 + i);
  ExpectClose(split, expected, {2, 3, 4});
}

TEST(Views, ManipulationOpsShareMemory) {
  const Tensor x = Make(Seq(12), {3, 1, 4});
  const Tensor t = transpose(x, {2, 0, 1});
  const Tensor u = unsqueeze(x, {0, -1});
  const Tensor s = squeeze(x);
  const Tensor e = expand(x, {2, 3, 5, 4});
  const Tensor sl = slice(x, {2}, {1}, {3});
  const Tensor ss = strided_slice(x, {0, 2}, {2, 3}, {kMin, kMin}, {-1, -2});
  for (const Tensor* v : {&t, &u, &s, &e, &sl, &ss}) EXPECT_TRUE(SharesMemory(*v, x));

  EXPECT_EQ(u.shape(), (std::vector<int64_t>{1, 3, 1, 4, 1}));
  EXPECT_EQ(s.shape(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(squeeze(x, {0}).shape(), (std::vector<int64_t>{3, 1, 4}));  // size 3: kept
  EXPECT_EQ(squeeze(x, {-2}).shape(), (std::vector<int64_t>{3, 4}));
  ExpectClose(t, {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}, {4, 3, 1});
  ExpectClose(sl, {1, 2, 5, 6, 9, 10}, {3, 1, 2});
  ExpectClose(ss, {11, 9, 7, 5, 3, 1}, {3, 1, 2});
  std::vector<double> expanded;
  for (int a = 0; a < 2; ++a)
    for (int i = 0; i < 3; ++i)
      for (int b = 0; b < 5; ++b)
        for (int j = 0; j < 4; ++j) expanded.push_back(i * 4 + j);
  ExpectClose(e, expanded, {2, 3, 5, 4});

  // A write through the base shows through every view.
  Tensor base = x;
  scale_(base, 10.0);
  ExpectClose(sl, {10, 20, 50, 60, 90, 100}, {3, 1, 2});
  EXPECT_EQ(Values(e)[5], 10);
}

TEST(Views, InplaceOnAnExpandedViewIsRejected) {
  Tensor e = expand(Make({1, 2}, {1, 2}), {3, 2});
  const Error err = Catch(
      [&] {
        add_(e, ones({3, 2}, DType::kFloat64));
      },
      ErrorCode::kInvalidArgument);
  EXPECT_EQ(err.message().rfind("add_(): ", 0), 0u) << err.what();
}

TEST(Views, Concat) {
  const Tensor a = Make({1, 2, 3, 4}, {2, 2});
  const Tensor b = Make({5, 6}, {1, 2});
  const Tensor c = Make({7, 8, 9, 10, 11, 12}, {2, 3});
  ExpectClose(concat({a, b}, 0), {1, 2, 3, 4, 5, 6}, {3, 2});
  ExpectClose(concat({a, c}, 1), {1, 2, 7, 8, 9, 3, 4, 10, 11, 12}, {2, 5});
  ExpectClose(concat({c, a}, -1), {7, 8, 9, 1, 2, 10, 11, 12, 3, 4}, {2, 5});
  // Non-contiguous and empty inputs; floating dtypes promote, others must match.
  ExpectClose(concat({transpose(a, {1, 0}), Make({}, {2, 0}), a}, 1), {1, 3, 1, 2, 2, 4, 3, 4},
              {2, 4});
  const Tensor mixed = concat({a, Make({9, 9}, {1, 2}, DType::kFloat32)}, 0);
  EXPECT_EQ(mixed.dtype(), DType::kFloat64);
  ExpectClose(mixed, {1, 2, 3, 4, 9, 9}, {3, 2});
  Catch([&] { concat({a, Make({9, 9}, {1, 2}, DType::kInt32)}, 0); });
  EXPECT_FALSE(SharesMemory(concat({a}, 0), a));  // always a new tensor
}

// x[start:stop:step] on x = [0, 1, ..., 9], expected values written out by hand
// from Python.
TEST(Views, StridedSliceMatchesPythonSlicing) {
  const Tensor x = Make(Seq(10), {10});
  struct Case {
    const char* python;
    int64_t start, stop, step;
    std::vector<double> expected;
  };
  const Case cases[] = {
      {"x[::-2]", kMax, kMin, -2, {9, 7, 5, 3, 1}},
      {"x[5:1:-1]", 5, 1, -1, {5, 4, 3, 2}},
      {"x[-100:100]", -100, 100, 1, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
      {"x[::-1]", -1, kMin, -1, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
      {"x[3::-1]", 3, -11, -1, {3, 2, 1, 0}},
      {"x[1:-1:3]", 1, -1, 3, {1, 4, 7}},
      {"x[-3:]", -3, kMax, 1, {7, 8, 9}},
      {"x[100:-100:-3]", 100, -100, -3, {9, 6, 3, 0}},
      {"x[-1:-11:-4]", -1, -11, -4, {9, 5, 1}},
      {"x[8:2]", 8, 2, 1, {}},
      {"x[2:8:-1]", 2, 8, -1, {}},
      {"x[100:]", 100, kMax, 1, {}},
      {"x[-100:-50:-1]", -100, -50, -1, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.python);
    ExpectClose(strided_slice(x, {0}, {c.start}, {c.stop}, {c.step}), c.expected,
                {static_cast<int64_t>(c.expected.size())});
  }
}

TEST(Views, StridedSliceOnTwoAxesAndOfAView) {
  const Tensor x = Make(Seq(20), {4, 5});
  // x[3:0:-2, ::2]
  ExpectClose(strided_slice(x, {0, 1}, {3, 0}, {0, kMax}, {-2, 2}), {15, 17, 19, 5, 7, 9}, {2, 3});
  // x.T[::-1, 1:3] (slicing a transposed view)
  ExpectClose(strided_slice(transpose(x, {1, 0}), {-2, 1}, {-1, 1}, {kMin, 3}, {-1, 1}),
              {9, 14, 8, 13, 7, 12, 6, 11, 5, 10}, {5, 2});
  // A zero step.
  const Error e = Catch([&] { strided_slice(x, {0}, {0}, {4}, {0}); }, ErrorCode::kInvalidArgument);
  EXPECT_EQ(e.message().rfind("strided_slice(): ", 0), 0u) << e.what();
}

}  // namespace
}  // namespace oar
