// The strided elementwise machinery (funcs/elementwise.h, strided_loop.h)
// through add/multiply: broadcasting, non-contiguous operands, empty tensors
// and tensors large enough to be split across threads. Expected values come
// from plain loops over the inputs.
#include <atomic>
#include <cmath>
#include <limits>
#include <vector>

#include "oar/kernels/funcs/byte_extent.h"
#include "oar/kernels/funcs/elementwise.h"
#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;
using testing::ExpectClose;
using testing::Make;
using testing::Values;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// n values start, start + step, ...
std::vector<double> Seq(int64_t n, double start = 0, double step = 1) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = start + step * static_cast<double>(i);
  return v;
}

// Sets FLAGS_parallel_threshold for one scope.
class ParallelThresholdGuard {
 public:
  explicit ParallelThresholdGuard(double value) : saved_(GetFlag("parallel_threshold")) {
    SetFlag("parallel_threshold", value);
  }
  ~ParallelThresholdGuard() { SetFlag("parallel_threshold", saved_); }

 private:
  double saved_;
};

TEST(Elementwise, ColumnPlusRow) {
  const auto a = Seq(3, 1, 10), b = Seq(4, 0.5, 0.25);
  const Tensor ta = Make(a, {3, 1}), tb = Make(b, {1, 4});
  std::vector<double> sum, prod;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) {
      sum.push_back(a[i] + b[j]);
      prod.push_back(a[i] * b[j]);
    }
  }
  ExpectClose(add(ta, tb), sum, {3, 4});
  ExpectClose(add(tb, ta), sum, {3, 4});
  ExpectClose(multiply(ta, tb), prod, {3, 4});
}

TEST(Elementwise, TrailingAndMiddleBroadcast) {
  const auto a = Seq(24, -5, 0.5), b = Seq(4, 1, 2), c = Seq(3, 100, 100);
  std::vector<double> sum, prod, mid;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 4; ++k) {
        sum.push_back(a[(i * 3 + j) * 4 + k] + b[k]);
        prod.push_back(b[k] * a[(i * 3 + j) * 4 + k]);
        mid.push_back(a[i * 4 + k] + c[j]);  // [2,1,4] + [3,1]
      }
    }
  }
  ExpectClose(add(Make(a, {2, 3, 4}), Make(b, {4})), sum, {2, 3, 4});
  ExpectClose(multiply(Make(b, {4}), Make(a, {2, 3, 4})), prod, {2, 3, 4});
  ExpectClose(add(Make(Seq(8, -5, 0.5), {2, 1, 4}), Make(c, {3, 1})), mid, {2, 3, 4});
}

TEST(Elementwise, ZeroDimOperands) {
  const Tensor s = scalar_tensor<double>(2.5);
  const Tensor v = Make({1, 2, 3, 4, 5}, {5});
  ExpectClose(add(s, v), {3.5, 4.5, 5.5, 6.5, 7.5}, {5});
  ExpectClose(multiply(v, s), {2.5, 5, 7.5, 10, 12.5}, {5});
  ExpectClose(multiply(s, s), {6.25}, {});
  ExpectClose(add(Make({7}, {1, 1}), v), {8, 9, 10, 11, 12}, {1, 5});
}

TEST(Elementwise, TransposedOperands) {
  const auto a = Seq(12, 1, 1), b = Seq(12, 0, -3);
  const Tensor t = transpose(Make(a, {3, 4}), {1, 0});  // [4, 3], strides [1, 4]
  ASSERT_FALSE(t.is_contiguous());
  std::vector<double> sum, square, both;
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 3; ++j) {
      sum.push_back(a[j * 4 + i] + b[i * 3 + j]);
      square.push_back(a[j * 4 + i] * a[j * 4 + i]);
      both.push_back(a[j * 4 + i] + b[j * 4 + i]);
    }
  }
  ExpectClose(add(t, Make(b, {4, 3})), sum, {4, 3});
  ExpectClose(multiply(t, t), square, {4, 3});
  ExpectClose(add(t, transpose(Make(b, {3, 4}), {1, 0})), both, {4, 3});
}

TEST(Elementwise, NegativeStepSlices) {
  const auto x = Seq(30, 0, 1), y = Seq(12, 0.5, 1);
  // x[::-2, 4:0:-1] of a [6, 5] tensor: rows 5, 3, 1 and columns 4..1.
  const Tensor v = strided_slice(Make(x, {6, 5}), {0, 1}, {-1, 4}, {kMin, 0}, {-2, -1});
  ASSERT_EQ(v.shape(), (std::vector<int64_t>{3, 4}));
  std::vector<double> sum, prod;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) {
      const double xv = x[(5 - 2 * i) * 5 + (4 - j)];
      sum.push_back(xv + y[i * 4 + j]);
      prod.push_back(xv * xv);
    }
  }
  ExpectClose(add(v, Make(y, {3, 4})), sum, {3, 4});
  ExpectClose(multiply(v, v), prod, {3, 4});
}

TEST(Elementwise, ExpandedOperands) {
  const auto r = Seq(4, 1, 1), c = Seq(3, 10, 10), b = Seq(12, 0, 0.5);
  const Tensor er = expand(Make(r, {1, 4}), {3, 4});  // stride 0 on rows
  const Tensor ec = expand(Make(c, {3, 1}), {3, 4});  // stride 0 on columns
  std::vector<double> sum, prod;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) {
      sum.push_back(r[j] + b[i * 4 + j]);
      prod.push_back(r[j] * c[i]);
    }
  }
  ExpectClose(add(er, Make(b, {3, 4})), sum, {3, 4});
  ExpectClose(multiply(er, ec), prod, {3, 4});
}

TEST(Elementwise, EmptyTensors) {
  ExpectClose(add(Make({}, {0, 3}), Make({1, 2, 3}, {1, 3})), {}, {0, 3});
  ExpectClose(multiply(Make({}, {2, 0}), Make({1, 2}, {2, 1})), {}, {2, 0});
  ExpectClose(add(Make({}, {0}), scalar_tensor<double>(1.0)), {}, {0});
  ExpectClose(add(Make({}, {0, 1}), Make({1, 2, 3, 4}, {1, 4})), {}, {0, 4});
  ExpectClose(add(transpose(Make({}, {3, 0}), {1, 0}), Make({}, {0, 3})), {}, {0, 3});
}

TEST(Elementwise, DTypesAndPromotion) {
  const Tensor i = Make({1, -2, 2147483000}, {3}, DType::kInt32);
  const Tensor sum = add(i, Make({2, 3, 600}, {3}, DType::kInt32));
  EXPECT_EQ(sum.dtype(), DType::kInt32);
  EXPECT_EQ(Values(sum), (std::vector<double>{3, 1, 2147483600}));

  // Paddle's rule: only floating dtypes promote; an int/float mix is a type error.
  const Tensor mixed =
      multiply(Make({1, -2, 3}, {3}, DType::kFloat16), Make({0.5, 0.5, 1}, {3}, DType::kFloat32));
  EXPECT_EQ(mixed.dtype(), DType::kFloat32);
  ExpectClose(mixed, {0.5, -1, 3}, {3});
  // An int32 * float32 product must be refused.
  Catch(
      [&] {
        multiply(i, Make({0.5, 0.5, 1}, {3}, DType::kFloat32));
      },
      ErrorCode::kInvalidType, {"multiply(): "});

  const Tensor h = add(Make({1, 2.5, 2000, 2001}, {4}, DType::kFloat16),
                       Make({0.25, -4, 0.5, 0.5}, {4}, DType::kFloat16));
  EXPECT_EQ(h.dtype(), DType::kFloat16);
  // Half spacing is 1 in [1024, 2048): 2000.5 and 2001.5 round to the even neighbour.
  EXPECT_EQ(Values(h), (std::vector<double>{1.25, -1.5, 2000, 2002}));

  const Tensor b = multiply(Make({1, 0, 1}, {3}, DType::kBool), Make({1, 1, 0}, {3}, DType::kBool));
  EXPECT_EQ(b.dtype(), DType::kBool);
  EXPECT_EQ(Values(b), (std::vector<double>{1, 0, 0}));
}

// 300 x 500 = 150000 elements, above the default parallel threshold (32768).
TEST(Elementwise, LargeTensorsAboveTheParallelThreshold) {
  constexpr int R = 300, C = 500;
  const auto a = Seq(R * C, -7, 0.25), b = Seq(R * C, 3, -0.5), row = Seq(C, 1, 1);
  const Tensor ta = Make(a, {R, C});
  const Tensor tt = transpose(Make(b, {C, R}), {1, 0});  // [R, C], non-contiguous
  std::vector<double> sum(R * C), strided(R * C), bcast(R * C);
  for (int i = 0; i < R; ++i) {
    for (int j = 0; j < C; ++j) {
      sum[i * C + j] = a[i * C + j] + b[i * C + j];
      strided[i * C + j] = a[i * C + j] * b[j * R + i];
      bcast[i * C + j] = b[j * R + i] + row[j];
    }
  }
  ExpectClose(add(ta, Make(b, {R, C})), sum, {R, C});
  ExpectClose(multiply(ta, tt), strided, {R, C});
  ExpectClose(add(tt, Make(row, {C})), bcast, {R, C});

  Tensor inplace = Make(a, {R, C}, DType::kFloat32);
  add_(inplace, Make(b, {R, C}, DType::kFloat32));
  ExpectClose(inplace, sum, {R, C}, 1e-6, 1e-3);
}

// A threshold of 1 splits even small loops across threads, so each thread
// starts its odometer in the middle of the outer dimensions.
TEST(Elementwise, ThreadsStartMidwayThroughOddShapes) {
  ParallelThresholdGuard guard(1);
  const auto a = Seq(105, 0, 1), b = Seq(7, 1000, 1000);
  // a: [7, 5, 3] viewed as [3, 7, 5] by a transpose; b broadcast along the middle.
  const Tensor ta = transpose(Make(a, {7, 5, 3}), {2, 0, 1});
  std::vector<double> expected;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 7; ++j) {
      for (int k = 0; k < 5; ++k) expected.push_back(a[(j * 5 + k) * 3 + i] + b[j]);
    }
  }
  ExpectClose(add(ta, Make(b, {7, 1})), expected, {3, 7, 5});
  ExpectClose(add(Make(b, {7, 1}), ta), expected, {3, 7, 5});
}

// An operand read across its rows is walked in tiles (Note [Transposed operands are
// walked in tiles] in funcs/strided_loop.h): groups of rows cut short by the end of a
// dimension and by threads' chunks (threshold 1), runs cut short by the end of a row,
// row strides that are multiples of 4 KiB (short runs) and not (long runs), a batch
// dimension, a broadcast operand, float64, and unary ops (the copy of a transposed
// view, a vectorised function). Every value must be the plain loop's.
TEST(Elementwise, TransposedOperandsInTiles) {
  ParallelThresholdGuard guard(1);
  for (const auto& [R, C] : {std::pair<int64_t, int64_t>{300, 70}, {1024, 40}, {130, 9}}) {
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      const auto a = Seq(2 * R * C, 1, 1), b = Seq(2 * R * C, 0, -3), row = Seq(C, 0.5, 2);
      const auto small = Seq(2 * R * C, -2, 1e-4);
      // ta[n, i, j] = a[n, j, i]: a [2, C, R] tensor viewed as [2, R, C].
      const Tensor ta = transpose(Make(a, {2, C, R}, dt), {0, 2, 1});
      const Tensor ts = transpose(Make(small, {2, C, R}, dt), {0, 2, 1});
      std::vector<double> sum, bsum, copy, ex;
      for (int64_t n = 0; n < 2; ++n) {
        for (int64_t i = 0; i < R; ++i) {
          for (int64_t j = 0; j < C; ++j) {
            const double v = a[(n * C + j) * R + i];
            sum.push_back(v + b[(n * R + i) * C + j]);
            bsum.push_back(v + row[j]);
            copy.push_back(v);
            ex.push_back(std::exp(small[(n * C + j) * R + i]));
          }
        }
      }
      const std::vector<int64_t> shape{2, R, C};
      ExpectClose(add(ta, Make(b, shape, dt)), sum, shape);
      ExpectClose(add(Make(b, shape, dt), ta), sum, shape);
      ExpectClose(add(ta, Make(row, {C}, dt)), bsum, shape);
      ExpectClose(assign(ta), copy, shape);
      ExpectClose(exp(ts), ex, shape, 1e-6, 1e-7);
    }
  }
}

// A strided view that coalesces into one long row (x[:, ::2] of a contiguous matrix) or
// a few rows (columns 0..C-1 of a [3, C + 1] matrix) is split along the row across the
// threads (Note [Few long rows are split along the row] in funcs/strided_loop.h); a
// threshold of 1 cuts many chunks. Binary, unary (a copy, a vectorised function) and
// ternary kernels, float32 and float64: every value must be the plain loop's.
TEST(Elementwise, FewLongRowsAreSplitAlongTheRow) {
  ParallelThresholdGuard guard(1);
  constexpr int64_t R = 4, C = 1001;
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    const auto a = Seq(R * 2 * C, 1, 1), b = Seq(R * 2 * C, 0.5, -2);
    const auto small = Seq(R * 2 * C, -1, 1e-3);
    // Every other column: one row of R * C elements at stride 2.
    const auto every_other = [&](const std::vector<double>& v) {
      return strided_slice(Make(v, {R, 2 * C}, dt), {1}, {0}, {2 * C}, {2});
    };
    const Tensor ea = every_other(a), eb = every_other(b), es = every_other(small);
    std::vector<double> sum, copy, ex, pick;
    for (int64_t i = 0; i < R * C; ++i) {
      const double va = a[2 * i], vb = b[2 * i];
      sum.push_back(va + vb);
      copy.push_back(va);
      ex.push_back(std::exp(small[2 * i]));
      pick.push_back(va > vb ? va : vb);
    }
    const std::vector<int64_t> shape{R, C};
    ExpectClose(add(ea, eb), sum, shape);
    ExpectClose(assign(ea), copy, shape);
    ExpectClose(exp(es), ex, shape, 1e-6, 1e-7);
    ExpectClose(where(greater_than(ea, eb), ea, eb), pick, shape);

    // Three rows that do not coalesce: the first C columns of a [3, C + 1] matrix.
    const std::vector<double> a3(a.begin(), a.begin() + 3 * (C + 1));
    const Tensor head = strided_slice(Make(a3, {3, C + 1}, dt), {1}, {0}, {C}, {1});
    std::vector<double> rows;
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t j = 0; j < C; ++j) rows.push_back(a[i * (C + 1) + j] + b[i * C + j]);
    }
    ExpectClose(add(head, Make(std::vector<double>(b.begin(), b.begin() + 3 * C), {3, C}, dt)),
                rows, {3, C});
  }
}

// x += x^T through the API: the operand that overlaps the target is read from a copy
// (Note [In-place inputs that overlap the written tensor]), so the result is x + x^T
// however the loop is ordered and split.
TEST(Elementwise, OverlappingTransposedInputIsReadBeforeTheWrite) {
  ParallelThresholdGuard guard(1);
  const int64_t n = 100;
  const auto a = Seq(n * n, 0, 1);
  Tensor x = Make(a, {n, n});
  add_(x, transpose(x, {1, 0}));
  std::vector<double> expected(n * n);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) expected[i * n + j] = a[i * n + j] + a[j * n + i];
  }
  EXPECT_EQ(Values(x), expected);
}

// Kernels that call funcs::StridedLoop directly may still pass an input that overlaps
// the output; the loop then keeps the order of rows, since that order decides what is
// read. Here x[1:, :-1] = x[:-1, 1:] + t, t read transposed: each element reads its
// upper-right neighbour, which row order has already written and a tile's order (runs of
// a row before the rest of the row above) would not have.
TEST(Elementwise, ShiftedOverlappingInputKeepsRowOrder) {
  ParallelThresholdGuard guard(1e18);
  const int64_t n = 100, m = n - 1;
  std::vector<double> x(n * n), t(m * m), expected;
  for (int64_t i = 0; i < n * n; ++i) x[i] = static_cast<double>(i % 17);
  for (int64_t i = 0; i < m * m; ++i) t[i] = static_cast<double>(i % 5);
  expected = x;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < m; ++j) {
      expected[(i + 1) * n + j] = expected[i * n + j + 1] + t[j * m + i];
    }
  }
  constexpr int64_t e = sizeof(double);
  char* base = reinterpret_cast<char*>(x.data());
  funcs::LoopOperands<3> ops{{base + n * e, base + e, reinterpret_cast<char*>(t.data())},
                             {DDim{n * e, e}, DDim{n * e, e}, DDim{e, m * e}}};
  funcs::StridedLoop<3>(
      DDim{m, m}, ops, 1,
      [](int64_t cnt, const std::array<char*, 3>& p, const std::array<int64_t, 3>& s) {
        for (int64_t i = 0; i < cnt; ++i) {
          *reinterpret_cast<double*>(p[0] + i * s[0]) =
              *reinterpret_cast<const double*>(p[1] + i * s[1]) +
              *reinterpret_cast<const double*>(p[2] + i * s[2]);
        }
      });
  EXPECT_EQ(x, expected);
}

// The loop hands a body that takes them runs of rows (Note [Runs of rows go to the body
// at once] in funcs/strided_loop.h): each run stays within dimension nd - 2 and every
// element is visited once, whether threads cut the rows (threshold 1) or not; a body of
// one row at a time sees the same elements.
TEST(Elementwise, RunsOfRowsReachTheBodyAtOnce) {
  constexpr int64_t D0 = 3, D1 = 7, D2 = 5, e = sizeof(int32_t);
  for (double threshold : {1.0, 1e18}) {
    ParallelThresholdGuard guard(threshold);
    // out [3, 7, 5] contiguous; the input broadcast along dimension 1, so nothing coalesces.
    std::vector<int32_t> out(D0 * D1 * D2, 0), in(D0 * D2);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int32_t>(i + 1);
    funcs::LoopOperands<2> ops{
        {reinterpret_cast<char*>(out.data()), reinterpret_cast<char*>(in.data())},
        {DDim{D1 * D2 * e, D2 * e, e}, DDim{D2 * e, 0, e}}};
    std::atomic<int64_t> calls{0}, longest{0};
    funcs::StridedLoop<2>(
        DDim{D0, D1, D2}, ops, 1,
        [&](int64_t rows, int64_t n, const std::array<char*, 2>& p, const std::array<int64_t, 2>& s,
            const std::array<int64_t, 2>& step) {
          ++calls;
          int64_t seen = longest.load();
          while (rows > seen && !longest.compare_exchange_weak(seen, rows)) {
          }
          for (int64_t r = 0; r < rows; ++r) {
            for (int64_t i = 0; i < n; ++i) {
              *reinterpret_cast<int32_t*>(p[0] + r * step[0] + i * s[0]) +=
                  *reinterpret_cast<const int32_t*>(p[1] + r * step[1] + i * s[1]);
            }
          }
        });
    std::vector<int32_t> expected;
    for (int64_t i = 0; i < D0; ++i) {
      for (int64_t j = 0; j < D1; ++j) {
        for (int64_t k = 0; k < D2; ++k) expected.push_back(in[i * D2 + k]);
      }
    }
    EXPECT_EQ(out, expected) << "threshold " << threshold;
    EXPECT_LE(longest.load(), D1);
    // Unsplit, one call per run of D1 rows; split, the runs are cut but still cover it.
    if (threshold > 1) {
      EXPECT_EQ(calls.load(), D0);
      EXPECT_EQ(longest.load(), D1);
    }
  }
}

// Broadcast operands over short rows, in place and out of place, in both operand orders
// and through strided views, each of the kinds of row BinaryElementwise decides once per
// run: plain loops give every value.
TEST(Elementwise, BroadcastRowsInPlaceAndOutOfPlace) {
  for (double threshold : {1.0, 1e18}) {
    ParallelThresholdGuard guard(threshold);
    constexpr int64_t N = 4, C = 6, H = 3;
    for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kInt32}) {
      const auto a = Seq(N * C * H, 1, 1), ch = Seq(C, 2, 1), row = Seq(H, -1, 3);
      std::vector<double> by_ch, by_row, row_minus;
      for (int64_t n = 0; n < N; ++n) {
        for (int64_t c = 0; c < C; ++c) {
          for (int64_t h = 0; h < H; ++h) {
            const double v = a[(n * C + c) * H + h];
            by_ch.push_back(v * ch[c]);
            by_row.push_back(v * row[h]);
            row_minus.push_back(row[h] - v);
          }
        }
      }
      const std::vector<int64_t> shape{N, C, H};
      ExpectClose(multiply(Make(a, shape, dt), Make(ch, {C, 1}, dt)), by_ch, shape);
      ExpectClose(multiply(Make(a, shape, dt), Make(row, {H}, dt)), by_row, shape);
      ExpectClose(subtract(Make(row, {H}, dt), Make(a, shape, dt)), row_minus, shape);
      Tensor x = Make(a, shape, dt);
      multiply_(x, Make(ch, {C, 1}, dt));
      ExpectClose(x, by_ch, shape);
      Tensor z = Make(a, shape, dt);
      multiply_(z, Make(row, {H}, dt));
      ExpectClose(z, by_row, shape);
      // Every other element of the rows (element strides); a transposed input (in tiles).
      const Tensor wide = Make(Seq(N * C * 2 * H, 1, 1), {N, C, 2 * H}, dt);
      const Tensor every_other = strided_slice(wide, {2}, {0}, {2 * H}, {2});
      std::vector<double> eo;
      for (int64_t i = 0; i < N * C * H; ++i) eo.push_back((2 * i + 1) * row[i % H]);
      ExpectClose(multiply(every_other, Make(row, {H}, dt)), eo, shape);
      const Tensor t = transpose(Make(a, {N, H, C}, dt), {0, 2, 1});
      std::vector<double> tr;
      for (int64_t n = 0; n < N; ++n) {
        for (int64_t c = 0; c < C; ++c) {
          for (int64_t h = 0; h < H; ++h) tr.push_back(a[(n * H + h) * C + c] * ch[c]);
        }
      }
      ExpectClose(multiply(t, Make(ch, {C, 1}, dt)), tr, shape);
    }
  }
}

// Unary kernels over the rows of a view that does not coalesce (the first K columns of a
// [R, C] matrix, contiguous runs of K) and over a transposed one (byte strides): a copy,
// a cast, abs and neg, whether threads cut the rows or not.
TEST(Elementwise, UnaryRowsOfAView) {
  constexpr int64_t R = 37, C = 20, K = 13;
  for (double threshold : {1.0, 1e18}) {
    ParallelThresholdGuard guard(threshold);
    for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kInt32}) {
      const auto a = Seq(R * C, -200, 1);
      const Tensor head = strided_slice(Make(a, {R, C}, dt), {1}, {0}, {K}, {1});
      const Tensor t = transpose(Make(a, {C, R}, dt), {1, 0});
      std::vector<double> hv, tv;
      for (int64_t i = 0; i < R; ++i) {
        for (int64_t j = 0; j < K; ++j) hv.push_back(a[i * C + j]);
        for (int64_t j = 0; j < C; ++j) tv.push_back(a[j * R + i]);
      }
      const auto absolute = [](std::vector<double> v) {
        for (double& x : v) x = std::abs(x);
        return v;
      };
      const auto negated = [](std::vector<double> v) {
        for (double& x : v) x = -x;
        return v;
      };
      ExpectClose(assign(head), hv, {R, K});
      ExpectClose(cast(head, DType::kFloat64), hv, {R, K});
      ExpectClose(abs(head), absolute(hv), {R, K});
      ExpectClose(neg(head), negated(hv), {R, K});
      ExpectClose(assign(t), tv, {R, C});
      ExpectClose(abs(t), absolute(tv), {R, C});
    }
  }
}

// The extent behind both overlap tests (funcs/byte_extent.h): negative strides reach
// below the start, broadcast dimensions reach nothing, and halves that only touch at a
// boundary do not meet.
// greater_than and greater_equal run less_than's and less_equal's loops with the operands
// swapped (cpu/binary_kernels.cc): every pair of special values, both operand orders, each
// operand broadcast along either axis, and a one-element operand on either side.
TEST(Elementwise, GreaterComparisonsMatchTheirDefinitions) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> floats = {std::nan(""), -inf, -1.5, -0.0, 0.0, 1.5, inf};
  const std::vector<double> ints = {-3, -1, 0, 0, 1, 2, 7};
  for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kInt32}) {
    const std::vector<double>& v = dt == DType::kInt32 ? ints : floats;
    const int64_t n = static_cast<int64_t>(v.size());
    const Tensor col = Make(v, {n, 1}, dt), row = Make(v, {n}, dt);
    for (bool ge : {false, true}) {
      const auto cmp = [ge](double a, double b) -> double { return ge ? a >= b : a > b; };
      const auto op = [ge](const Tensor& a, const Tensor& b) {
        return ge ? greater_equal(a, b) : greater_than(a, b);
      };
      std::vector<double> col_row(n * n), row_col(n * n);
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          col_row[i * n + j] = cmp(v[i], v[j]);
          row_col[i * n + j] = cmp(v[j], v[i]);
        }
      }
      EXPECT_EQ(Values(op(col, row)), col_row) << static_cast<int>(dt) << " ge=" << ge;
      EXPECT_EQ(Values(op(row, col)), row_col) << static_cast<int>(dt) << " ge=" << ge;
      for (int64_t k = 0; k < n; ++k) {
        const Tensor one = Make({v[k]}, {1}, dt);
        std::vector<double> left(n), right(n);
        for (int64_t i = 0; i < n; ++i) {
          left[i] = cmp(v[i], v[k]);
          right[i] = cmp(v[k], v[i]);
        }
        EXPECT_EQ(Values(op(row, one)), left) << static_cast<int>(dt) << " k=" << k;
        EXPECT_EQ(Values(op(one, row)), right) << static_cast<int>(dt) << " k=" << k;
      }
    }
  }
}

// Note [A one-element op skips the loop machinery]: one-element operands that are views
// at an offset into larger tensors, of rank 0 to 3, in place, unary, with bool outputs and
// half-precision values, give what the same ops give on whole tensors.
TEST(Elementwise, OneElementOperandsAtAnOffset) {
  for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kInt32}) {
    const Tensor base = Make({1, 2, 3, 4, 5, 6}, {6}, dt);
    const Tensor x = strided_slice(base, {0}, {4}, {5}, {1});                      // [5], element 4
    const Tensor y = reshape(strided_slice(base, {0}, {1}, {2}, {1}), {1, 1, 1});  // [[[2]]]
    const Tensor s = reshape(strided_slice(base, {0}, {2}, {3}, {1}), {});         // 3, rank 0
    EXPECT_EQ(Values(add(x, y)), std::vector<double>{7}) << static_cast<int>(dt);
    EXPECT_EQ(add(x, y).dims(), (DDim{1, 1, 1}));
    EXPECT_EQ(Values(multiply(s, x)), std::vector<double>{15}) << static_cast<int>(dt);
    EXPECT_EQ(multiply(s, x).dims(), (DDim{1}));
    EXPECT_EQ(Values(subtract(s, s)), std::vector<double>{0});
    EXPECT_EQ(subtract(s, s).dims(), (DDim{}));
    EXPECT_EQ(Values(less_than(y, x)), std::vector<double>{1});
    EXPECT_EQ(less_than(y, x).dtype(), DType::kBool);
    EXPECT_EQ(Values(abs(scale(x, -1.0, 0.0, true))), std::vector<double>{5});
    Tensor whole = Make({1, 2, 3, 4, 5, 6}, {6}, dt);
    Tensor in_place = strided_slice(whole, {0}, {4}, {5}, {1});
    add_(in_place, s);  // writes through the view, into element 4 of `whole`
    EXPECT_EQ(Values(whole), (std::vector<double>{1, 2, 3, 4, 8, 6})) << static_cast<int>(dt);
  }
  const Tensor f = strided_slice(Make({0.5, 1.0, 2.0}, {3}), {0}, {2}, {3}, {1});
  ExpectClose(exp(f), {std::exp(2.0)}, {1});
}

TEST(Elementwise, ByteExtentsOfStridedViews) {
  using funcs::ExtentOf;
  const auto x = ExtentOf(0, DDim{4, 10}, DDim{10, 1}, 4, 4);  // [4, 10] float32
  EXPECT_EQ(x.first, 0);
  EXPECT_EQ(x.last, 160);
  const auto flipped = ExtentOf(36, DDim{10}, DDim{-1}, 4, 4);  // x[0, ::-1]
  EXPECT_EQ(flipped.first, 0);
  EXPECT_EQ(flipped.last, 40);
  const auto row = ExtentOf(40, DDim{4, 10}, DDim{0, 1}, 4, 4);  // x[1] over 4 rows
  EXPECT_EQ(row.first, 40);
  EXPECT_EQ(row.last, 80);
  const auto top = ExtentOf(0, DDim{2, 10}, DDim{10, 1}, 4, 4);
  const auto bottom = ExtentOf(80, DDim{2, 10}, DDim{10, 1}, 4, 4);
  EXPECT_FALSE(top.Meets(bottom));
  EXPECT_FALSE(bottom.Meets(top));
  EXPECT_TRUE(x.Meets(row));
  EXPECT_FALSE(row.Meets(flipped));  // [40, 80) and [0, 40)
  EXPECT_TRUE(flipped.Meets(top));
  // x[:, ::2] and x[:, 1::2] share no byte, but their extents meet: the tests are
  // conservative there (a copy or an untiled loop, never a wrong order).
  EXPECT_TRUE(
      ExtentOf(0, DDim{4, 5}, DDim{10, 2}, 4, 4).Meets(ExtentOf(4, DDim{4, 5}, DDim{10, 2}, 4, 4)));
}

// Note [Contiguous chunks start on cache lines]: the contiguous loops' chunks start at
// multiples of 64 elements (10^6 in ParallelFor's 8 chunks would start every other one
// at an odd multiple of 125,000), and every element is run once, split or not.
TEST(Elementwise, ContiguousChunksStartOnCacheLines) {
  for (const double threshold : {double(GetFlag("parallel_threshold")), 1.0}) {
    ParallelThresholdGuard guard(threshold);
    for (int64_t n : {int64_t{1000000}, int64_t{999999}, int64_t{5000}, int64_t{10}}) {
      std::vector<std::atomic<int>> hits(n);
      for (auto& h : hits) h = 0;
      std::atomic<int64_t> off_line{0}, chunks{0};
      funcs::ParallelForInLines(n, 1, [&](int64_t b, int64_t e) {
        chunks.fetch_add(1);
        if (b % funcs::kLineGrain != 0) off_line.fetch_add(1);
        for (int64_t i = b; i < e; ++i) hits[i].fetch_add(1);
      });
      EXPECT_EQ(off_line.load(), 0) << "n=" << n;
      if (threshold == 1.0 && n >= 1000 && detail::IntraOpThreads() > 1) {
        EXPECT_GT(chunks.load(), 1) << "n=" << n;
      }
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "n=" << n << " i=" << i;
    }
  }
}

// Operands beyond the last-level cache are written with streaming stores (Note
// [Streaming stores beyond the last-level cache] in funcs/elementwise.h): each thread's
// chunk starts at an arbitrary element, so the stores before the first 32-byte boundary
// and after the last whole vector are ordinary ones; every element must still be right,
// for 1-, 4- and 8-byte outputs, broadcast operands, where, and casts. An odd length
// leaves a partial vector at the end; threshold 1 cuts many chunks.
TEST(Elementwise, OutputsBeyondTheCacheUseStreamingStores) {
  ParallelThresholdGuard guard(1);
  const int64_t n = funcs::LastLevelCacheBytes() / 8 + 37, C = 1000;
  const auto a = testing::Random(n, 1), b = testing::Random(n, 2), row = testing::Random(C, 3);
  const Tensor fa = Make(a, {n}, DType::kFloat32), fb = Make(b, {n}, DType::kFloat32);
  const std::vector<double> va = Values(fa), vb = Values(fb);
  std::vector<double> sum(n), greater(n), pick(n);
  for (int64_t i = 0; i < n; ++i) {
    sum[i] = static_cast<double>(static_cast<float>(va[i]) + static_cast<float>(vb[i]));
    greater[i] = va[i] > vb[i];
    pick[i] = va[i] > vb[i] ? va[i] : vb[i];
  }
  EXPECT_EQ(Values(add(fa, fb)), sum);
  EXPECT_EQ(Values(greater_than(fa, fb)), greater);  // bool: 1-byte stores
  EXPECT_EQ(Values(where(greater_than(fa, fb), fa, fb)), pick);
  EXPECT_EQ(Values(add(Make(a, {n}), Make(b, {n}))), [&] {  // float64
    std::vector<double> s(n);
    for (int64_t i = 0; i < n; ++i) s[i] = a[i] + b[i];
    return s;
  }());
  EXPECT_EQ(Values(cast(fa, DType::kFloat64)), va);
  // [r, C] * [C]: rows of C elements through the strided loop, the row broadcast.
  const int64_t r = funcs::LastLevelCacheBytes() / (4 * C) + 1;
  const auto m = testing::Random(r * C, 4);
  const Tensor fm = Make(m, {r, C}, DType::kFloat32), fr = Make(row, {C}, DType::kFloat32);
  const std::vector<double> vm = Values(fm), vr = Values(fr), vp = Values(multiply(fm, fr));
  ASSERT_EQ(static_cast<int64_t>(vp.size()), r * C);
  int64_t wrong = 0;
  for (int64_t i = 0; i < r * C; ++i) {
    wrong +=
        vp[i] != static_cast<double>(static_cast<float>(vm[i]) * static_cast<float>(vr[i % C]));
  }
  EXPECT_EQ(wrong, 0);
  // In place: the output is an input, ordinary stores.
  Tensor inplace = Make(a, {n}, DType::kFloat32);
  add_(inplace, fb);
  EXPECT_EQ(Values(inplace), sum);
}

}  // namespace
}  // namespace oar
