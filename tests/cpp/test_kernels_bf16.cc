// bfloat16 GEMM and convolution (oneDNN, docs/amp_kernels.md) against the
// float32 kernels run on the same bfloat16 values and rounded once: what the
// bfloat16 kernels promise (bfloat16 inputs, float32 accumulation, one
// rounding). The two sum in different orders, so an element may differ by a
// float32 rounding of the sum, which can move it across a bfloat16 rounding
// boundary: the tolerance is one bfloat16 ulp plus K float32 ulps of the sum of
// |products|, and most elements must agree exactly.
#include <cmath>
#include <cstdint>

#include "oar/autograd/backward.h"
#include "oar/core/cpu_isa.h"
#include "oar/kernels/cpu/weight_pack.h"
#include "test_util.h"

namespace oar {
namespace {

using testing::Make;
using testing::Random;
using testing::Values;

Tensor Bf16(const std::vector<double>& v, const std::vector<int64_t>& shape, bool grad = false) {
  return Make(v, shape, DType::kBFloat16, !grad);
}

// `got` (bfloat16) against `ref` (float32 on the same inputs, rounded here once
// to bfloat16): each element within one bfloat16 ulp of ref plus `k` float32
// ulps of `scale` (a bound on the sum of |products|), and at least
// `exact_share` of them bitwise equal after the rounding.
void ExpectBf16Close(const Tensor& got, const Tensor& ref, int64_t k, double scale,
                     double exact_share = 0.9) {
  ASSERT_EQ(got.dtype(), DType::kBFloat16);
  ASSERT_EQ(got.shape(), ref.shape());
  const std::vector<double> g = Values(got), r = Values(cast(ref, DType::kBFloat16));
  int64_t exact = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    const double tol = std::ldexp(std::fabs(r[i]), -7) + k * std::ldexp(scale, -23);
    EXPECT_NEAR(g[i], r[i], tol) << "element " << i;
    exact += g[i] == r[i];
  }
  if (!g.empty()) {
    EXPECT_GE(static_cast<double>(exact) / g.size(), exact_share) << exact << " of " << g.size();
  }
}

Tensor F32(const Tensor& t) { return cast(t, DType::kFloat32); }

struct Case {
  std::vector<int64_t> x, y;
  bool tx, ty;
};

TEST(Bf16, MatmulMatchesFloat32RoundedOnce) {
  // 2-D, transposes, vectors, batched with broadcasts, and K large enough to
  // round; most products above onednn::kMinMatmulWork (2^17 multiply-adds: the
  // oneDNN path), a few below (converted to float32).
  const std::vector<Case> cases = {
      {{128, 64}, {64, 32}, false, false},
      {{128, 64}, {32, 64}, false, true},
      {{64, 128}, {64, 32}, true, false},
      {{64, 128}, {32, 64}, true, true},
      {{3, 5}, {5, 4}, false, false},
      {{7}, {7, 3}, false, false},
      {{4, 7}, {7}, false, false},
      {{1024}, {1024, 256}, false, false},
      {{512, 1024}, {1024}, false, false},
      {{5, 64, 48}, {48, 32}, false, false},
      {{2, 1, 32, 40}, {3, 40, 48}, false, false},
      {{3, 64, 40}, {3, 48, 40}, false, true},
      {{100, 1000}, {1000, 60}, false, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "x " << c.x.size() << "-D, y " << c.y.size()
                                      << "-D, tx=" << c.tx << " ty=" << c.ty);
    int64_t nx = 1, ny = 1;
    for (int64_t d : c.x) nx *= d;
    for (int64_t d : c.y) ny *= d;
    const Tensor x = Bf16(Random(nx, 1), c.x), y = Bf16(Random(ny, 2), c.y);
    const int64_t k = c.tx ? c.x[c.x.size() - 2] : c.x.back();
    const Tensor out = matmul(x, y, c.tx, c.ty);
    ExpectBf16Close(out, matmul(F32(x), F32(y), c.tx, c.ty), k, static_cast<double>(k));
  }
}

TEST(Bf16, MatmulOfViews) {
  // Transposed, sliced (row stride larger than the row) and expanded operands,
  // each product above onednn::kMinMatmulWork.
  const Tensor base = Bf16(Random(96 * 80, 3), {96, 80});
  const Tensor w = Bf16(Random(80 * 48, 4), {80, 48});
  const Tensor t = transpose(base, {1, 0});                    // [80, 96], column-major
  const Tensor s = slice(base, {1}, {3}, {67});                // [96, 64], lda 80
  const Tensor st = strided_slice(base, {1}, {0}, {80}, {2});  // [96, 40], no unit stride
  const Tensor e = expand(slice(w, {1}, {0}, {1}), {80, 64});  // stride 0 columns
  const Tensor w96 = Bf16(Random(96 * 48, 5), {96, 48});
  ExpectBf16Close(matmul(t, w96), matmul(F32(t), F32(w96)), 96, 96.0);
  const Tensor w64 = slice(w, {0}, {0}, {64});
  ExpectBf16Close(matmul(s, w64), matmul(F32(s), F32(w64)), 64, 64.0);
  const Tensor w40 = slice(w, {0}, {0}, {40});
  ExpectBf16Close(matmul(st, w40), matmul(F32(st), F32(w40)), 40, 40.0);
  ExpectBf16Close(matmul(base, e), matmul(F32(base), F32(e)), 80, 80.0);
  // Negative strides (flip) and a row broadcast (stride 0), which a oneDNN
  // memory descriptor cannot express: copied first.
  const Tensor f = flip(base, {0, 1});
  ExpectBf16Close(matmul(f, w), matmul(F32(f), F32(w)), 80, 80.0);
  const Tensor rb = expand(slice(base, {0}, {0}, {1}), {40, 80});
  const Tensor bias = reshape(slice(w, {0}, {0}, {1}), {48});
  ExpectBf16Close(linear(rb, w, bias), linear(F32(rb), F32(w), F32(bias)), 80, 81.0);
  // A batch dim expanded from size 1 (stride 0) on one side.
  const Tensor b = expand(reshape(slice(base, {0}, {0}, {16}), {1, 16, 80}), {3, 16, 80});
  ExpectBf16Close(matmul(b, w), matmul(F32(b), F32(w)), 80, 80.0);
}

TEST(Bf16, MatmulEmptyAndZeroK) {
  const Tensor a = Bf16({}, {0, 5}), b = Bf16(Random(15, 5), {5, 3});
  EXPECT_EQ(matmul(a, b).shape(), (std::vector<int64_t>{0, 3}));
  const Tensor z = matmul(Bf16({}, {4, 0}), Bf16({}, {0, 3}));
  EXPECT_EQ(z.dtype(), DType::kBFloat16);
  EXPECT_EQ(Values(z), std::vector<double>(12, 0.0));
  EXPECT_EQ(matmul(Bf16({}, {2, 0, 4, 5}), Bf16(Random(15, 6), {5, 3})).shape(),
            (std::vector<int64_t>{2, 0, 4, 3}));
}

TEST(Bf16, MatmulBadShapesKeepTheirErrors) {
  testing::Catch([&] { matmul(Bf16(Random(6, 1), {2, 3}), Bf16(Random(8, 1), {4, 2})); },
                 ErrorCode::kInvalidArgument, {"matmul"});
}

TEST(Bf16, LinearMatchesFloat32RoundedOnce) {
  const Tensor x = Bf16(Random(4 * 16 * 64, 7), {4, 16, 64});
  const Tensor w = Bf16(Random(64 * 48, 8), {64, 48});
  const Tensor b = Bf16(Random(48, 9), {48});
  ExpectBf16Close(linear(x, w, b), linear(F32(x), F32(w), F32(b)), 64, 65.0);
  const Tensor v = Bf16(Random(64, 10), {64});  // small: the float32 path
  ExpectBf16Close(linear(v, w, b), linear(F32(v), F32(w), F32(b)), 64, 65.0);
}

TEST(Bf16, MatmulGradientsRunInBf16) {
  // d(sum(g * x@y))/dx = g @ y^T and /dy = x^T @ g: bfloat16 GEMMs themselves
  // (above onednn::kMinMatmulWork), against the float32 gradients of the same
  // values.
  for (bool batched : {false, true}) {
    SCOPED_TRACE(batched ? "batched, y broadcast" : "2-D");
    const std::vector<int64_t> xs =
        batched ? std::vector<int64_t>{3, 64, 80} : std::vector<int64_t>{64, 80};
    const int64_t nx = batched ? 3 * 64 * 80 : 64 * 80;
    const Tensor x = Bf16(Random(nx, 11), xs, true), y = Bf16(Random(80 * 48, 12), {80, 48}, true);
    Tensor x32 = F32(x).detach(), y32 = F32(y).detach();
    x32.set_stop_gradient(false);
    y32.set_stop_gradient(false);
    std::vector<int64_t> gs = xs;
    gs.back() = 48;
    const Tensor g = Bf16(Random(nx / 80 * 48, 13), gs);
    const auto d = Grad({matmul(x, y)}, {x, y}, {g});
    const auto d32 = Grad({matmul(x32, y32)}, {x32, y32}, {F32(g)});
    ExpectBf16Close(d[0], d32[0], 48, 48.0);
    if (!batched) {
      ExpectBf16Close(d[1], d32[1], 64, 64.0);
    } else {
      // dy sums the batches' products, each a bfloat16 GEMM rounded on its
      // own: the reference rounds them too, then sums in float32.
      const Tensor per_batch = matmul(F32(x), F32(g), true, false);
      const Tensor ref = sum(F32(cast(per_batch, DType::kBFloat16)), {0});
      ExpectBf16Close(d[1], ref, 64, 64.0, 0.75);
    }
  }
}

TEST(Bf16, Float16MatmulComputesInFloat32) {
  // oneDNN 2.6 has no float16 matmul on CPUs without AVX512-FP16: float16 runs
  // the float32 GEMM on the converted values and rounds once (bitwise that).
  const Tensor x = Make(Random(128 * 64, 14), {128, 64}, DType::kFloat16);
  const Tensor y = Make(Random(64 * 32, 15), {64, 32}, DType::kFloat16);
  const Tensor out = matmul(x, y);
  ASSERT_EQ(out.dtype(), DType::kFloat16);
  EXPECT_EQ(Values(out), Values(cast(matmul(F32(x), F32(y)), DType::kFloat16)));
}

struct ConvCase {
  int64_t n, c_in, c_out, hw, k, stride, pad, groups;
};

TEST(Bf16, ConvForwardAndGradientsMatchFloat32) {
  // The Fashion-MNIST CNN's layers (few taps; 32 input channels), a strided,
  // a 1x1 and a grouped convolution.
  for (const ConvCase& c : {ConvCase{4, 1, 32, 12, 3, 1, 1, 1}, ConvCase{2, 32, 64, 7, 3, 1, 1, 1},
                            ConvCase{2, 8, 16, 9, 3, 2, 1, 1}, ConvCase{2, 8, 16, 5, 1, 1, 0, 1},
                            ConvCase{2, 8, 8, 6, 3, 1, 1, 2}}) {
    SCOPED_TRACE(::testing::Message() << c.c_in << "->" << c.c_out << " k" << c.k << " s"
                                      << c.stride << " g" << c.groups);
    const int64_t nx = c.n * c.c_in * c.hw * c.hw, nw = c.c_out * c.c_in / c.groups * c.k * c.k;
    const Tensor x = Bf16(Random(nx, 21), {c.n, c.c_in, c.hw, c.hw}, true);
    const Tensor w = Bf16(Random(nw, 22), {c.c_out, c.c_in / c.groups, c.k, c.k}, true);
    Tensor x32 = F32(x).detach(), w32 = F32(w).detach();
    x32.set_stop_gradient(false);
    w32.set_stop_gradient(false);
    const std::vector<int64_t> s = {c.stride, c.stride}, p = {c.pad, c.pad, c.pad, c.pad};
    const Tensor y = conv(x, w, s, p, {1, 1}, c.groups);
    const Tensor y32 = conv(x32, w32, s, p, {1, 1}, c.groups);
    const int64_t taps = c.c_in / c.groups * c.k * c.k;
    ExpectBf16Close(y, y32, taps, static_cast<double>(taps));
    const Tensor g = Bf16(Random(y.numel(), 23), y.shape());
    const auto d = Grad({y}, {x, w}, {g});
    const auto d32 = Grad({y32}, {x32, w32}, {F32(g)});
    const int64_t out_taps = c.c_out / c.groups * c.k * c.k;
    ExpectBf16Close(d[0], d32[0], out_taps, static_cast<double>(out_taps));
    const int64_t pixels = c.n * y.shape()[2] * y.shape()[3];
    ExpectBf16Close(d[1], d32[1], pixels, static_cast<double>(pixels), 0.75);
  }
}

TEST(Bf16, ConvBatchOfZero) {
  const Tensor x = Bf16({}, {0, 3, 5, 5}), w = Bf16(Random(4 * 3 * 9, 1), {4, 3, 3, 3});
  const Tensor y = conv(x, w, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1);
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{0, 4, 5, 5}));
  EXPECT_EQ(y.dtype(), DType::kBFloat16);
}

// The packer behind Note [Packing bfloat16 weights for oneDNN] against the
// layout written out element by element, for both unit strides, with a row
// stride longer than a row, and K and N off the 32 x 64 blocks (zero padding).
TEST(Bf16, PackerWritesTheBlockedPairLayout) {
  // The packer is AVX-512 code, and only the AVX-512 oneDNN kernels read its layout.
  if (!onednn::CanPack()) {
    GTEST_SKIP() << "PackBf16 needs the avx512 level; dispatch here reaches "
                 << CpuIsaName(MaxCpuIsa());
  }
  for (const auto& [k, n] : {std::pair<int64_t, int64_t>{37, 70}, {64, 128}, {1, 5}, {95, 200}}) {
    for (const bool rows : {true, false}) {
      const int64_t ld = (rows ? n : k) + 3;  // a stride past the row (or column) length
      const int64_t sr = rows ? ld : 1, sc = rows ? 1 : ld;
      std::vector<uint16_t> b(static_cast<size_t>((rows ? k : n) * ld));
      for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint16_t>(i * 7919 + 1);
      const int64_t kp = (k + 31) / 32 * 32, np = (n + 63) / 64 * 64;
      std::vector<uint16_t> got(static_cast<size_t>(kp * np), 0xFFFF);
      onednn::PackBf16(b.data(), k, n, sr, sc, got.data());
      for (int64_t r = 0; r < kp; ++r) {
        for (int64_t c = 0; c < np; ++c) {
          const int64_t at =
              (c / 64 * (kp / 32) + r / 32) * 2048 + ((r % 32 / 2) * 64 + c % 64) * 2 + r % 2;
          const uint16_t want = r < k && c < n ? b[static_cast<size_t>(r * sr + c * sc)] : 0;
          ASSERT_EQ(got[static_cast<size_t>(at)], want)
              << "k " << k << " n " << n << " rows " << rows << " at (" << r << ", " << c << ")";
        }
      }
    }
  }
}

}  // namespace
}  // namespace oar
