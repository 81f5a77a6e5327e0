// In-place ops: version counters, the saved-tensor check, and what is allowed.
#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;
using testing::ExpectClose;
using testing::Leaf;
using testing::Make;

TEST(Inplace, BumpsVersionSharedWithViews) {
  Tensor a = Make({1, 2, 3, 4}, {4});
  Tensor v = reshape(a, {2, 2});
  EXPECT_EQ(a.current_inplace_version(), 0u);
  add_(a, full({4}, 1.0));
  scale_(v, 2.0);
  EXPECT_EQ(a.current_inplace_version(), 2u);
  EXPECT_EQ(v.current_inplace_version(), 2u);
  ExpectClose(a, {4, 6, 8, 10}, {4});
}

// Paddle's case: b = a^2, c = b^2, b[1:2] = 3.3, d = b^2, relu(c + d).backward()
// must fail, because c's backward needs the b it saved, which was overwritten.
TEST(Inplace, ModifiedSavedTensorFailsNamingTheVersions) {
  Tensor a = Leaf({1, 2, 3, 4});
  Tensor b = pow(a, 2.0);
  b.set_name("b");
  Tensor c = pow(b, 2.0);
  set_value_(b, {0}, {1}, {2}, {1}, 3.3);
  Tensor d = pow(b, 2.0);
  Tensor loss = sum(relu(add(c, d)));
  Catch([&] { loss.backward(); }, ErrorCode::kPreconditionNotMet,
        {"'b'", "version 1", "saved at version 0", "pow"});
}

// Allowed: the overwritten value is not needed by any backward.
TEST(Inplace, AllowedWhenBackwardDoesNotNeedTheOldValue) {
  Tensor a = Leaf({1, 2, 3, 4});
  Tensor b = scale(a, 2.0);                // scale saves nothing
  set_value_(b, {0}, {1}, {2}, {1}, 3.3);  // b[1:2] = 3.3
  Tensor loss = sum(multiply(b, b));
  loss.backward();
  // d loss / d a = 2 b * 2 where b still depends on a; 0 at the overwritten element.
  ExpectClose(a.grad(), {8, 0, 24, 32}, {4}, 1e-5);
}

// Allowed: relu_ saves its output (the new value), not its input.
TEST(Inplace, ReluInplaceSavesItsOutput) {
  Tensor a = Leaf({-1, 2, -3, 4});
  Tensor b = scale(a, 1.0);
  relu_(b);
  sum(multiply(b, full({4}, 3.0))).backward();
  ExpectClose(a.grad(), {0, 3, 0, 3}, {4});
}

TEST(Inplace, SliceAssignmentOfATensor) {
  Tensor a = Leaf({1, 2, 3, 4});
  Tensor v = Leaf({10, 20});
  Tensor b = scale(a, 1.0);
  set_value_with_tensor_(b, v, {0}, {0}, {4}, {2});  // b[0:4:2] = v
  ExpectClose(b, {10, 2, 20, 4}, {4});
  sum(multiply(b, Make({1, 2, 3, 4}, {4}, DType::kFloat32))).backward();
  ExpectClose(a.grad(), {0, 2, 0, 4}, {4});
  ExpectClose(v.grad(), {1, 3}, {2});
}

TEST(Inplace, OnALeafThatRequiresGradIsAnError) {
  Tensor a = Leaf({1, 2});
  Catch([&] { add_(a, full({2}, 1.0)); });
  {
    NoGradGuard ng;  // optimizers update parameters like this
    add_(a, full({2}, 1.0));
  }
  ExpectClose(a, {2, 3}, {2});
}

TEST(Inplace, OnAViewOfATensorThatRequiresGradIsAnError) {
  Tensor a = Leaf({1, 2, 3, 4});
  Tensor b = scale(a, 1.0);
  Tensor v = reshape(b, {2, 2});
  Catch([&] { scale_(v, 2.0); });
}

TEST(Inplace, ShapeChangingInplaceIsAnError) {
  Tensor a = Make({1, 2}, {2});
  Catch([&] { add_(a, full({3, 2}, 1.0)); });
  Tensor e = expand(Make({1}, {1}), {4});
  Catch([&] { scale_(e, 2.0); });
}

// Note [In-place ops save a copy of what they overwrite]: the backward w.r.t. w
// needs the old b, which multiply_ saved as a recorded copy before writing.
TEST(Inplace, MultiplyInplaceSavesTheOldValueItsBackwardNeeds) {
  Tensor a = Leaf({1, 2});
  Tensor w = Leaf({3, 4});
  Tensor b = scale(a, 1.0);
  multiply_(b, w);
  sum(b).backward();
  ExpectClose(a.grad(), {3, 4}, {2});
  ExpectClose(w.grad(), {1, 2}, {2});
}

// The copy is recorded, so higher orders go through it: sin_'s second derivative.
TEST(Inplace, SinInplaceHasEveryOrderOfGradient) {
  Tensor a = Leaf({0.3, 0.7});
  Tensor b = scale(a, 1.0);
  sin_(b);
  GradOptions cg;
  cg.create_graph = true;
  const Tensor g = Grad({sum(b)}, {a}, {}, cg)[0];
  ExpectClose(g, {std::cos(0.3), std::cos(0.7)}, {2}, 1e-5);
  const Tensor g2 = Grad({sum(g)}, {a})[0];
  ExpectClose(g2, {-std::sin(0.3), -std::sin(0.7)}, {2}, 1e-5);
}

TEST(Inplace, GradientThroughInplaceChain) {
  Tensor a = Leaf({1, 2});
  Tensor b = scale(a, 3.0);
  add_(b, full({2}, 1.0));
  scale_(b, 2.0);
  exp_(b);  // b = exp(2 (3a + 1))
  sum(b).backward();
  ExpectClose(a.grad(), {6 * std::exp(8.0), 6 * std::exp(14.0)}, {2}, 1e-5);
}

// Note [In-place inputs that overlap the written tensor]: every case computes what the
// op computes out of place, whatever the loop's order.
TEST(Inplace, InputsThatOverlapTheTargetAreReadBeforeTheWrite) {
  constexpr int64_t n = 1000;
  std::vector<double> seq(n);
  for (int64_t i = 0; i < n; ++i) seq[i] = static_cast<double>(i % 97);
  const auto expect = [&](const Tensor& t, const auto& at, const std::vector<int64_t>& shape) {
    std::vector<double> want(t.numel());
    for (size_t i = 0; i < want.size(); ++i) want[i] = at(static_cast<int64_t>(i));
    ExpectClose(t, want, shape);
  };
  {  // x[1:] += x[:-1] and x[:-1] += x[1:]: shifted by one element either way
    Tensor x = Make(seq, {n});
    Tensor hi = slice(x, {0}, {1}, {n});
    add_(hi, slice(x, {0}, {0}, {n - 1}));
    expect(x, [&](int64_t i) { return seq[i] + (i > 0 ? seq[i - 1] : 0.0); }, {n});
    Tensor y = Make(seq, {n});
    Tensor lo = slice(y, {0}, {0}, {n - 1});
    subtract_(lo, slice(y, {0}, {1}, {n}));
    expect(y, [&](int64_t i) { return i + 1 < n ? seq[i] - seq[i + 1] : seq[i]; }, {n});
  }
  {  // x += x[0], the first row broadcast over all rows
    Tensor x = Make(seq, {10, 100});
    add_(x, slice(x, {0}, {0}, {1}));
    expect(x, [&](int64_t i) { return seq[i] + seq[i % 100]; }, {10, 100});
  }
  {  // x *= x.T
    Tensor x = Make(std::vector<double>(seq.begin(), seq.begin() + 900), {30, 30});
    multiply_(x, transpose(x, {1, 0}));
    expect(x, [&](int64_t i) { return seq[i] * seq[(i % 30) * 30 + i / 30]; }, {30, 30});
  }
  {  // strided views of the same rows: m[:, 1:] += m[:, :-1]
    Tensor x = Make(seq, {10, 100});
    Tensor right = slice(x, {1}, {1}, {100});
    add_(right, slice(x, {1}, {0}, {99}));
    expect(x, [&](int64_t i) { return seq[i] + (i % 100 > 0 ? seq[i - 1] : 0.0); }, {10, 100});
  }
  {  // a ternary op with two overlapping inputs: x[1:] = lerp(x[1:], x[:-1], x[:-1] / 100)
    Tensor x = Make(seq, {n});
    Tensor hi = slice(x, {0}, {1}, {n});
    const Tensor lo = slice(x, {0}, {0}, {n - 1});
    lerp_(hi, lo, scale(lo, 0.01));
    expect(x,
           [&](int64_t i) {
             return i == 0 ? seq[0] : seq[i] + seq[i - 1] / 100 * (seq[i - 1] - seq[i]);
           },
           {n});
  }
  {  // x's own view and a disjoint part of its allocation are read where they are
    Tensor x = Make(seq, {n});
    multiply_(x, x);
    Tensor head = slice(x, {0}, {0}, {n / 2});
    add_(head, slice(x, {0}, {n / 2}, {n}));
    expect(x,
           [&](int64_t i) {
             return i < n / 2 ? seq[i] * seq[i] + seq[i + n / 2] * seq[i + n / 2] : seq[i] * seq[i];
           },
           {n});
  }
}

}  // namespace
}  // namespace oar
