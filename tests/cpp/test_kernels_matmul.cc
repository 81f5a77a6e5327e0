// matmul against a naive triple loop: transpose flags, vector operands,
// broadcast batches, non-contiguous views, both sides of the small-GEMM
// threshold (m * n * k <= 4096 is a plain loop, larger goes to BLAS), float32
// products large enough for oneDNN (Note [float32 GEMMs on oneDNN]) and those it runs
// on oar's pool, products with one output row or column (a GEMV), K = 0.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <type_traits>
#include <vector>

#include "oar/core/cpu_isa.h"
#include "oar/core/flags.h"
#include "oar/kernels/cpu/gemm.h"
#include "test_util.h"

namespace oar {
namespace {

using testing::ExpectClose;
using testing::Make;
using testing::Random;

// C[m, n] = A[m, k] @ B[k, n]; a(i, p) and b(p, j) read the operands.
template <typename A, typename B>
std::vector<double> Naive(int64_t m, int64_t n, int64_t k, A a, B b) {
  std::vector<double> c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p) c[i * n + j] += a(i, p) * b(p, j);
  return c;
}

double Tol(DType dtype) { return dtype == DType::kFloat32 ? 5e-5 : 1e-12; }

struct Shape {
  int64_t m, n, k;
};

// [I, 1, m, k] @ [J, k, n] -> [I, J, m, n], both stored as given.
std::vector<double> BroadcastNaive(int64_t batch_i, int64_t batch_j, Shape s,
                                   const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> out;
  for (int64_t i = 0; i < batch_i; ++i) {
    for (int64_t j = 0; j < batch_j; ++j) {
      const auto c = Naive(
          s.m, s.n, s.k, [&](int64_t r, int64_t p) { return a[(i * s.m + r) * s.k + p]; },
          [&](int64_t p, int64_t col) { return b[(j * s.k + p) * s.n + col]; });
      out.insert(out.end(), c.begin(), c.end());
    }
  }
  return out;
}

// Note [OpenBLAS's core on a CPU it does not know]: with liboar loaded, OpenBLAS never
// runs its SSE3 fallback on a CPU with AVX2 or more, unless the environment asks for it.
TEST(Matmul, OpenBlasRunsTheCpusKernels) {
  using NameFn = char* (*)();
  auto name = reinterpret_cast<NameFn>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  if (!name || std::getenv("OPENBLAS_CORETYPE") != nullptr) GTEST_SKIP();
  if (DetectedCpuIsa() >= CpuIsa::kAvx2) EXPECT_NE(std::string_view(name()), "Prescott");
}

TEST(Matmul, TwoDimensionalWithTransposeFlags) {
  // 3x5x4 = 60 takes the loop, 64^3 and 20x70x9 = 12600 take BLAS.
  for (Shape s : {Shape{3, 5, 4}, Shape{64, 64, 64}, Shape{20, 70, 9}, Shape{1, 1, 1}}) {
    for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
      for (bool tx : {false, true}) {
        for (bool ty : {false, true}) {
          SCOPED_TRACE(::testing::Message() << s.m << "x" << s.n << "x" << s.k << " " << dtype
                                            << " tx=" << tx << " ty=" << ty);
          const auto a = Random(s.m * s.k, 1), b = Random(s.k * s.n, 2);
          // Stored as given: x is [m, k] or, with tx, [k, m]; likewise y.
          const Tensor x = tx ? Make(a, {s.k, s.m}, dtype) : Make(a, {s.m, s.k}, dtype);
          const Tensor y = ty ? Make(b, {s.n, s.k}, dtype) : Make(b, {s.k, s.n}, dtype);
          const auto expected = Naive(
              s.m, s.n, s.k,
              [&](int64_t i, int64_t p) { return tx ? a[p * s.m + i] : a[i * s.k + p]; },
              [&](int64_t p, int64_t j) { return ty ? b[j * s.k + p] : b[p * s.n + j]; });
          const Tensor out = matmul(x, y, tx, ty);
          EXPECT_EQ(out.dtype(), dtype);
          ExpectClose(out, expected, {s.m, s.n}, Tol(dtype), Tol(dtype));
        }
      }
    }
  }
}

TEST(Matmul, VectorOperands) {
  const auto v = Random(4, 3), w = Random(4, 4), m = Random(12, 5);
  const Tensor tv = Make(v, {4}), tw = Make(w, {4});
  // [4] @ [4, 3] -> [3]
  ExpectClose(matmul(tv, Make(m, {4, 3})),
              Naive(
                  1, 3, 4, [&](int64_t, int64_t p) { return v[p]; },
                  [&](int64_t p, int64_t j) { return m[p * 3 + j]; }),
              {3});
  // [3, 4] @ [4] -> [3]
  ExpectClose(matmul(Make(m, {3, 4}), tv),
              Naive(
                  3, 1, 4, [&](int64_t i, int64_t p) { return m[i * 4 + p]; },
                  [&](int64_t p, int64_t) { return v[p]; }),
              {3});
  // [4] @ [4] -> 0-d
  double dot = 0;
  for (int i = 0; i < 4; ++i) dot += v[i] * w[i];
  ExpectClose(matmul(tv, tw), {dot}, {});
  // A vector operand ignores its transpose flag; [4, 3]^T @ [4] -> [3].
  ExpectClose(matmul(Make(m, {4, 3}), tv, true, true),
              Naive(
                  3, 1, 4, [&](int64_t i, int64_t p) { return m[p * 3 + i]; },
                  [&](int64_t p, int64_t) { return v[p]; }),
              {3});
  // A batch of matrices times a vector: [2, 3, 4] @ [4] -> [2, 3].
  const auto bm = Random(24, 6);
  ExpectClose(matmul(Make(bm, {2, 3, 4}), tv),
              Naive(
                  6, 1, 4, [&](int64_t i, int64_t p) { return bm[i * 4 + p]; },
                  [&](int64_t p, int64_t) { return v[p]; }),
              {2, 3});
}

TEST(Matmul, BroadcastBatchDims) {
  // [2, 1, 3, 4] @ [5, 4, 2] -> [2, 5, 3, 2]
  const auto a = Random(2 * 3 * 4, 7), b = Random(5 * 4 * 2, 8);
  const std::vector<double> expected = BroadcastNaive(2, 5, {3, 2, 4}, a, b);
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    ExpectClose(matmul(Make(a, {2, 1, 3, 4}, dtype), Make(b, {5, 4, 2}, dtype)), expected,
                {2, 5, 3, 2}, Tol(dtype), Tol(dtype));
  }
}

// A batch against one shared matrix: small (loop) and large (BLAS) sizes,
// with y plain and transposed.
TEST(Matmul, BatchAgainstSharedMatrix) {
  for (Shape s : {Shape{3, 5, 4}, Shape{32, 32, 32}}) {
    for (bool ty : {false, true}) {
      const int64_t batch = 4;
      const auto a = Random(batch * s.m * s.k, 9), b = Random(s.k * s.n, 10);
      const Tensor y = ty ? Make(b, {s.n, s.k}) : Make(b, {s.k, s.n});
      std::vector<double> expected;
      for (int64_t bi = 0; bi < batch; ++bi) {
        const auto c = Naive(
            s.m, s.n, s.k, [&](int64_t i, int64_t p) { return a[(bi * s.m + i) * s.k + p]; },
            [&](int64_t p, int64_t j) { return ty ? b[j * s.k + p] : b[p * s.n + j]; });
        expected.insert(expected.end(), c.begin(), c.end());
      }
      ExpectClose(matmul(Make(a, {batch, s.m, s.k}), y, false, ty), expected, {batch, s.m, s.n},
                  1e-12, 1e-12);
    }
  }
}

TEST(Matmul, NonContiguousViews) {
  for (Shape s : {Shape{5, 3, 4}, Shape{40, 30, 20}}) {
    const auto a = Random(s.k * s.m, 11), b = Random(s.k * 2 * s.n, 12);
    // x = A^T for a stored A[k, m]: unit stride on rows, passed to BLAS as a flag.
    const Tensor x = transpose(Make(a, {s.k, s.m}), {1, 0});
    ASSERT_FALSE(x.is_contiguous());
    // y = every other column of B[k, 2n]: needs a copy.
    const Tensor y = strided_slice(Make(b, {s.k, 2 * s.n}), {1}, {0}, {2 * s.n}, {2});
    // y2 = the first n columns of B: leading dimension 2n.
    const Tensor y2 = slice(Make(b, {s.k, 2 * s.n}), {1}, {0}, {s.n});
    const auto xa = [&](int64_t i, int64_t p) { return a[p * s.m + i]; };
    ExpectClose(
        matmul(x, y),
        Naive(s.m, s.n, s.k, xa, [&](int64_t p, int64_t j) { return b[p * 2 * s.n + 2 * j]; }),
        {s.m, s.n}, 1e-12, 1e-12);
    ExpectClose(matmul(x, y2),
                Naive(s.m, s.n, s.k, xa, [&](int64_t p, int64_t j) { return b[p * 2 * s.n + j]; }),
                {s.m, s.n}, 1e-12, 1e-12);
    // Both operands transposed views, one with the transpose flag: x @ x^T.
    ExpectClose(matmul(x, x, false, true),
                Naive(s.m, s.m, s.k, xa, [&](int64_t p, int64_t j) { return xa(j, p); }),
                {s.m, s.m}, 1e-12, 1e-12);
  }
  // A reversed vector (negative stride).
  const auto v = Random(6, 13), m = Random(18, 14);
  const Tensor rev = strided_slice(Make(v, {6}), {0}, {-1}, {-7}, {-1});
  ExpectClose(matmul(rev, Make(m, {6, 3})),
              Naive(
                  1, 3, 6, [&](int64_t, int64_t p) { return v[5 - p]; },
                  [&](int64_t p, int64_t j) { return m[p * 3 + j]; }),
              {3});
  ExpectClose(matmul(Make(m, {3, 6}), rev),
              Naive(
                  3, 1, 6, [&](int64_t i, int64_t p) { return m[i * 6 + p]; },
                  [&](int64_t p, int64_t) { return v[5 - p]; }),
              {3});
}

// The GEMM the convolution and RNN kernels drive on raw buffers, with a transposed A
// of more than 8192 columns (copied transposed first) and padded leading dimensions:
// c = op(a) @ b + beta * c.
TEST(Matmul, RawGemmWithAWideTransposedA) {
  const int64_t m = 16, n = 8200, k = 9, lda = m + 3, ldc = n + 5;
  const auto a = Random(k * lda, 32), b = Random(k * n, 33), c0 = Random(m * ldc, 34);
  std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end()), c(c0.begin(), c0.end());
  cpu::Gemm<float>(true, false, m, n, k, af.data(), lda, bf.data(), n, 0.5f, c.data(), ldc);
  const auto product = Naive(
      m, n, k, [&](int64_t i, int64_t p) { return af[p * lda + i]; },
      [&](int64_t p, int64_t j) { return bf[p * n + j]; });
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < ldc; ++j) {
      // Columns past n are outside the product and keep their values.
      const double want = j < n ? product[i * n + j] + 0.5 * static_cast<float>(c0[i * ldc + j])
                                : static_cast<float>(c0[i * ldc + j]);
      ASSERT_NEAR(c[i * ldc + j], want, 1e-4) << "at " << i << ", " << j;
    }
  }
}

// Products with one output row or column run as a GEMV on the BLAS (Note [A product
// with one row or column is a GEMV] in gemm.h): every transpose flag, padded leading
// dimensions, beta 0 over an output holding NaN (overwritten) and beta 0.5 (scaled and
// added), float and double. Elements of c outside the product keep their values.
template <typename T>
void CheckGemv(int64_t m, int64_t n, int64_t k, bool ta, bool tb, T beta) {
  SCOPED_TRACE(::testing::Message() << "m " << m << " n " << n << " k " << k << " ta " << ta
                                    << " tb " << tb << " beta " << beta);
  const int64_t lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 2, ldc = n + 4;
  const auto ad = Random((ta ? k : m) * lda, 41), bd = Random((tb ? n : k) * ldb, 42);
  const std::vector<T> a(ad.begin(), ad.end()), b(bd.begin(), bd.end());
  const auto cd = Random(m * ldc, 43);
  std::vector<T> c(cd.begin(), cd.end());
  if (beta == T(0)) std::fill(c.begin(), c.end(), std::numeric_limits<T>::quiet_NaN());
  const std::vector<T> c0 = c;
  cpu::Gemm<T>(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
  const auto product = Naive(
      m, n, k, [&](int64_t i, int64_t p) { return ta ? a[p * lda + i] : a[i * lda + p]; },
      [&](int64_t p, int64_t j) { return tb ? b[j * ldb + p] : b[p * ldb + j]; });
  const double tol = std::is_same_v<T, float> ? 1e-4 : 1e-12;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < ldc; ++j) {
      const T got = c[i * ldc + j], old = c0[i * ldc + j];
      if (j >= n) {  // NaN == NaN fails, so compare the bits' meaning
        ASSERT_TRUE(std::isnan(old) ? std::isnan(got) : got == old) << "at " << i << ", " << j;
        continue;
      }
      const double want = product[i * n + j] + (beta == T(0) ? 0.0 : beta * old);
      ASSERT_NEAR(got, want, tol) << "at " << i << ", " << j;
    }
  }
}

TEST(Matmul, RawGemmWithOneRowOrColumn) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (auto [m, n, k] : {Shape{1, 1000, 512}, Shape{300, 1, 40}, Shape{1, 1, 33}}) {
        CheckGemv<float>(m, n, k, ta, tb, 0.0f);
        CheckGemv<float>(m, n, k, ta, tb, 0.5f);
        CheckGemv<double>(m, n, k, ta, tb, 0.0);
      }
    }
  }
}

// A B operand packed once and multiplied by new A and C (a recurrent weight over the
// steps of a sequence, Note [A recurrent weight is packed once]): B as stored and read
// transposed, K and N on and off the packed blocks (16 x 64), beta 0 and 1, leading
// dimensions padded or not (oneDNN asks for its blocked layout, which PackF32 writes on
// AVX-512, only for the unpadded ones).
TEST(Matmul, StepGemmWithBPackedOnce) {
  struct Shape {
    int64_t m, n, k;
  };
  for (const Shape s :
       {Shape{20, 2048, 512}, Shape{20, 512, 2048}, Shape{20, 1000, 300}, Shape{7, 100, 37}}) {
    for (const bool tb : {true, false}) {
      for (const int64_t pad : {0, 3}) {
        const float beta = pad == 0 ? 1.0f : 0.0f;
        const int64_t lda = s.k + pad, ldb = (tb ? s.k : s.n) + pad, ldc = s.n + pad;
        const auto a = Random(s.m * lda, 41), b = Random((tb ? s.n : s.k) * ldb, 42),
                   c0 = Random(s.m * ldc, 43);
        std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end());
        const cpu::StepGemm<float> step(tb, s.m, s.n, s.k, lda, bf.data(), ldb, beta, ldc, 3);
        const auto product = Naive(
            s.m, s.n, s.k, [&](int64_t i, int64_t p) { return af[i * lda + p]; },
            [&](int64_t p, int64_t j) { return tb ? bf[j * ldb + p] : bf[p * ldb + j]; });
        for (int call = 0; call < 2; ++call) {  // the packed B serves every call
          std::vector<float> c(c0.begin(), c0.end());
          step(af.data(), c.data());
          for (int64_t i = 0; i < s.m; ++i) {
            for (int64_t j = 0; j < s.n; ++j) {
              const double want = product[i * s.n + j] + beta * static_cast<float>(c0[i * ldc + j]);
              ASSERT_NEAR(c[i * ldc + j], want, 1e-3)
                  << s.m << "x" << s.n << "x" << s.k << " tb " << tb << " pad " << pad << " at "
                  << i << ", " << j;
            }
          }
        }
      }
    }
  }
}

// float32 products of at least 2^20 multiply-adds run on oneDNN: a batch as one
// primitive, broadcast batch dims, transposed flags and views, a transposed A with
// more than 8192 columns (copied transposed first, Note [float32 GEMMs on oneDNN]);
// linear adds its bias in the same primitive.
TEST(Matmul, Float32OnOneDnn) {
  const double tol = 2e-4;
  {  // [2, 3, 64, 96] @ [3, 96, 80]^T-flagged: 36 * 64 * 80 * 96 multiply-adds
    const auto a = Random(2 * 3 * 64 * 96, 21), b = Random(3 * 80 * 96, 22);
    std::vector<double> expected;
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) {
        const auto c = Naive(
            64, 80, 96, [&](int64_t r, int64_t p) { return a[((i * 3 + j) * 64 + r) * 96 + p]; },
            [&](int64_t p, int64_t col) { return b[(j * 80 + col) * 96 + p]; });
        expected.insert(expected.end(), c.begin(), c.end());
      }
    }
    ExpectClose(matmul(Make(a, {2, 3, 64, 96}, DType::kFloat32),
                       Make(b, {3, 80, 96}, DType::kFloat32), false, true),
                expected, {2, 3, 64, 80}, tol, tol);
  }
  {  // x a transposed view with the transpose flag, y a column slice: 128^3
    const int64_t n = 128;
    const auto a = Random(n * n, 23), b = Random(n * 2 * n, 24);
    const Tensor x = transpose(Make(a, {n, n}, DType::kFloat32), {1, 0});
    const Tensor y = slice(Make(b, {n, 2 * n}, DType::kFloat32), {1}, {n}, {2 * n});
    ExpectClose(matmul(x, y, true, false),
                Naive(
                    n, n, n, [&](int64_t i, int64_t p) { return a[i * n + p]; },
                    [&](int64_t p, int64_t j) { return b[p * 2 * n + n + j]; }),
                {n, n}, tol, tol);
  }
  {  // A transposed with 8200 columns: copied transposed, the same values
    const int64_t m = 16, n = 8200, k = 8;
    const auto a = Random(k * m, 25), b = Random(k * n, 26);
    ExpectClose(matmul(Make(a, {k, m}, DType::kFloat32), Make(b, {k, n}, DType::kFloat32), true),
                Naive(
                    m, n, k, [&](int64_t i, int64_t p) { return a[p * m + i]; },
                    [&](int64_t p, int64_t j) { return b[p * n + j]; }),
                {m, n}, tol, tol);
  }
  {  // the same for a batch of two, A a column slice (strided) and y broadcast over it
    const int64_t m = 8, n = 8200, k = 9;
    const auto a = Random(2 * k * 2 * m, 30), b = Random(k * n, 31);
    const Tensor x = slice(Make(a, {2, k, 2 * m}, DType::kFloat32), {2}, {m}, {2 * m});
    std::vector<double> expected;
    for (int64_t bi = 0; bi < 2; ++bi) {
      const auto c = Naive(
          m, n, k, [&](int64_t i, int64_t p) { return a[(bi * k + p) * 2 * m + m + i]; },
          [&](int64_t p, int64_t j) { return b[p * n + j]; });
      expected.insert(expected.end(), c.begin(), c.end());
    }
    ExpectClose(matmul(x, Make(b, {k, n}, DType::kFloat32), true), expected, {2, m, n}, tol, tol);
  }
  {  // linear: [4, 64, 128] @ [128, 160] + bias
    const auto a = Random(4 * 64 * 128, 27), w = Random(128 * 160, 28), bias = Random(160, 29);
    auto expected = Naive(
        4 * 64, 160, 128, [&](int64_t i, int64_t p) { return a[i * 128 + p]; },
        [&](int64_t p, int64_t j) { return w[p * 160 + j]; });
    for (size_t i = 0; i < expected.size(); ++i) expected[i] += bias[i % 160];
    ExpectClose(linear(Make(a, {4, 64, 128}, DType::kFloat32), Make(w, {128, 160}, DType::kFloat32),
                       Make(bias, {160}, DType::kFloat32)),
                expected, {4, 64, 160}, tol, tol);
  }
}

// One float32 product shape with each operand transposed or as stored, B a column slice,
// and with a bias, against the naive loop. For the pool's units (below), one shape runs
// with every layout in turn, so a kept primitive (Note [Pooled products keep their
// primitives]) that served other strides would give wrong values.
void CheckFloat32Products(int64_t m, int64_t n, int64_t k) {
  const double tol = 2e-4;
  const auto a = Random(m * k, 41), b = Random(k * 2 * n, 42), bias = Random(n, 43);
  for (bool tx : {false, true}) {
    for (bool ty : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "tx=" << tx << " ty=" << ty);
      const Tensor x = tx ? Make(a, {k, m}, DType::kFloat32) : Make(a, {m, k}, DType::kFloat32);
      // y: the second half of the columns (rows with ty) of a wider matrix
      const Tensor y = ty ? slice(Make(b, {2 * n, k}, DType::kFloat32), {0}, {n}, {2 * n})
                          : slice(Make(b, {k, 2 * n}, DType::kFloat32), {1}, {n}, {2 * n});
      const auto expected = Naive(
          m, n, k, [&](int64_t i, int64_t p) { return tx ? a[p * m + i] : a[i * k + p]; },
          [&](int64_t p, int64_t j) { return ty ? b[(n + j) * k + p] : b[p * 2 * n + n + j]; });
      ExpectClose(matmul(x, y, tx, ty), expected, {m, n}, tol, tol);
    }
  }
  auto with_bias = Naive(
      m, n, k, [&](int64_t i, int64_t p) { return a[i * k + p]; },
      [&](int64_t p, int64_t j) { return b[p * 2 * n + j]; });
  for (size_t i = 0; i < with_bias.size(); ++i) with_bias[i] += bias[i % n];
  const Tensor w =
      Make(std::vector<double>(b.begin(), b.begin() + k * 2 * n), {k, 2 * n}, DType::kFloat32);
  ExpectClose(linear(Make(a, {m, k}, DType::kFloat32), slice(w, {1}, {0}, {n}),
                     Make(bias, {n}, DType::kFloat32)),
              with_bias, {m, n}, tol, tol);
}

// Note [Float32 products of a model's size run on oar's pool]: blocks of 128 columns,
// and of 256 from 1024 columns on (the last one short).
TEST(Matmul, Float32ProductsOnThePool) {
  for (int64_t n : {300, 1100}) {
    SCOPED_TRACE(n);
    CheckFloat32Products(50, n, 96);
  }
}

// Note [oneDNN's float32 products past 2048 columns]: where oneDNN runs AVX-512 kernels,
// products of more than 2048 columns that are not a power of two run in blocks of columns
// (4500: three of 1536, the last 1428); either way the values are the product's. Every
// transpose flag, B a strided slice, a bias; and the raw GEMM of the convolution and RNN
// kernels with padded leading dimensions and beta, whose columns past n keep their values.
TEST(Matmul, Float32ProductsInColumnBlocks) {
  CheckFloat32Products(24, 4500, 1300);
  const int64_t m = 33, n = 4500, k = 40, lda = k + 3, ldb = n + 7, ldc = n + 5;
  const auto a = Random(m * lda, 51), b = Random(n * ldb, 52), c0 = Random(m * ldc, 53);
  const std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end());
  for (bool tb : {false, true}) {
    SCOPED_TRACE(tb);
    const int64_t ld = tb ? k + 1 : ldb;  // b is [n, k] when tb, [k, n] otherwise
    std::vector<float> c(c0.begin(), c0.end());
    cpu::Gemm<float>(false, tb, m, n, k, af.data(), lda, bf.data(), ld, 0.5f, c.data(), ldc);
    const auto product = Naive(
        m, n, k, [&](int64_t i, int64_t p) { return af[i * lda + p]; },
        [&](int64_t p, int64_t j) { return tb ? bf[j * ld + p] : bf[p * ld + j]; });
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < ldc; ++j) {
        const double want = j < n ? product[i * n + j] + 0.5 * static_cast<float>(c0[i * ldc + j])
                                  : static_cast<float>(c0[i * ldc + j]);
        ASSERT_NEAR(c[i * ldc + j], want, 1e-4) << "at " << i << ", " << j;
      }
    }
  }
}

// The same note: a batch with broadcast dims; the same bits with the pool's loop split
// and inline.
TEST(Matmul, Float32BatchedProductsOnThePool) {
  const double tol = 2e-4;
  // [2, 1, 40, 64] @ [3, 64, 200] -> [2, 3, 40, 200]
  const auto c = Random(2 * 40 * 64, 44), d = Random(3 * 64 * 200, 45);
  const std::vector<double> batched = BroadcastNaive(2, 3, {40, 200, 64}, c, d);
  const Tensor cx = Make(c, {2, 1, 40, 64}, DType::kFloat32);
  const Tensor dy = Make(d, {3, 64, 200}, DType::kFloat32);
  const Tensor split = matmul(cx, dy);
  ExpectClose(split, batched, {2, 3, 40, 200}, tol, tol);
  const int64_t saved = GlobalFlags().parallel_threshold.load();
  GlobalFlags().parallel_threshold.store(int64_t{1} << 62);
  const Tensor inline_loop = matmul(cx, dy);
  GlobalFlags().parallel_threshold.store(saved);
  EXPECT_EQ(testing::Values(inline_loop), testing::Values(split));
}

// Note [float32 GEMMs on oneDNN]: a single product reading A transposed with many sums
// (a linear layer's weight gradient) runs on OpenBLAS where oneDNN runs AVX2 kernels, and on
// oneDNN where it runs AVX-512 ones; few sums, a batch, fewer than 256 or more than 8192
// columns (A then copied transposed) or A as stored stay on oneDNN. Either way the values
// are the product's.
TEST(Matmul, Float32TransposedAWithManySums) {
  using onednn::GemmShape;
  const DType f32 = DType::kFloat32;
  const bool fast = onednn::UsesOneDnn(f32, GemmShape{1, 1024, 1024, 1024, false, false});
  const bool wide = CpuIsaAllowed(CpuIsa::kAvx512);  // oneDNN's AVX-512 kernels
  EXPECT_EQ(onednn::UsesOneDnn(f32, GemmShape{1, 256, 1024, 1024, true, false}), fast && wide);
  EXPECT_EQ(onednn::UsesOneDnn(f32, GemmShape{1, 1024, 256, onednn::kMinBlasSumsTa, true, false}),
            fast && wide);
  EXPECT_EQ(
      onednn::UsesOneDnn(f32, GemmShape{1, 1024, 2048, onednn::kMinBlasSumsTa - 1, true, false}),
      fast);
  EXPECT_EQ(onednn::UsesOneDnn(f32, GemmShape{4, 256, 256, 1024, true, false}), fast);
  EXPECT_EQ(onednn::UsesOneDnn(f32, GemmShape{1, 512, 10000, 700, true, false}), fast);
  EXPECT_EQ(onednn::UsesOneDnn(f32, GemmShape{1, 320, 49, 1280, true, false}), fast);
  EXPECT_EQ(
      onednn::UsesOneDnn(f32, GemmShape{1, 320, onednn::kMinBlasColumnsTa, 1280, true, false}),
      fast && wide);
  const int64_t m = 24, n = 260, k = 1024;  // k * m * n above 2^20: oneDNN's size
  const auto a = Random(k * m, 35), b = Random(k * n, 36);
  const auto want = Naive(
      m, n, k, [&](int64_t i, int64_t p) { return a[p * m + i]; },
      [&](int64_t p, int64_t j) { return b[p * n + j]; });
  ExpectClose(matmul(Make(a, {k, m}, DType::kFloat32), Make(b, {k, n}, DType::kFloat32), true),
              want, {m, n}, 1e-4, 5e-4);
  std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end()), c(m * n);
  cpu::Gemm<float>(true, false, m, n, k, af.data(), m, bf.data(), n, 0.0f, c.data(), n);
  for (int64_t i = 0; i < m * n; ++i) ASSERT_NEAR(c[i], want[i], 1e-3) << "at " << i;
}

// Note [float32 GEMMs on oneDNN]: a plain product with few rows and a multiple of 512
// columns (the GPT decoder's batch-1 FFN product), which oneDNN's AVX2 GEMM would run on its
// aligned operands unpacked, runs on OpenBLAS there; more rows, other widths, a transposed
// operand, a batch or a recurrent step's 20 rows stay on oneDNN. The values are the product's.
TEST(Matmul, Float32FewRowsOnTwoKibRows) {
  using onednn::GemmShape;
  const DType f32 = DType::kFloat32;
  const bool fast = onednn::UsesOneDnn(f32, GemmShape{1, 1024, 1024, 256, false, false});
  const bool wide = CpuIsaAllowed(CpuIsa::kAvx512);  // oneDNN's AVX-512 kernels
  EXPECT_EQ(onednn::UsesOneDnn(f32, GemmShape{1, 128, 1024, 256, false, false}), fast && wide);
  EXPECT_EQ(onednn::UsesOneDnn(f32, GemmShape{1, 64, 2048, 1024, false, false}), fast && wide);
  EXPECT_EQ(onednn::UsesOneDnn(f32, GemmShape{1, 128, 1000, 256, false, false}), fast);
  EXPECT_EQ(onednn::UsesOneDnn(f32, GemmShape{1, 128, 1024, 256, false, true}), fast);
  EXPECT_EQ(onednn::UsesOneDnn(f32, GemmShape{2, 128, 1024, 256, false, false}), fast);
  EXPECT_EQ(onednn::UsesOneDnn(f32, GemmShape{1, 20, 512, 2048, false, false}), fast);
  const int64_t m = 96, n = 512, k = 64;  // 96 * 512 * 64 multiply-adds: 3 * 2^20
  const auto a = Random(m * k, 37), b = Random(k * n, 38), bias = Random(n, 39);
  auto want = Naive(
      m, n, k, [&](int64_t i, int64_t p) { return a[i * k + p]; },
      [&](int64_t p, int64_t j) { return b[p * n + j]; });
  ExpectClose(matmul(Make(a, {m, k}, f32), Make(b, {k, n}, f32)), want, {m, n}, 1e-4, 1e-4);
  for (size_t i = 0; i < want.size(); ++i) want[i] += bias[i % n];
  ExpectClose(linear(Make(a, {m, k}, f32), Make(b, {k, n}, f32), Make(bias, {n}, f32)), want,
              {m, n}, 1e-4, 1e-4);
}

// Note [A batch times a weight is one product]: a [35, 20, k] view of [20, 35, k] memory
// (a recurrent layer's output) times a weight, through linear and matmul. A weight wider
// than twice a batch's 20 rows copies x and runs one product; a narrower one runs the
// batch of products on the view; bfloat16 takes the packed route once folded.
TEST(Matmul, BatchOfAViewTimesAWeight) {
  const int64_t b = 35, t = 20, k = 64;
  const auto a = Random(t * b * k, 41);
  const auto x_at = [&](int64_t r, int64_t p) {  // row r of the view is x[r / t][r % t]
    return a[((r % t) * b + r / t) * k + p];
  };
  for (int64_t n : {1024, 32}) {
    const auto w = Random(k * n, 42), bias = Random(n, 43);
    const Tensor x = transpose(Make(a, {t, b, k}, DType::kFloat32), {1, 0, 2});
    const Tensor wt = Make(w, {k, n}, DType::kFloat32);
    auto expected = Naive(b * t, n, k, x_at, [&](int64_t p, int64_t j) { return w[p * n + j]; });
    ExpectClose(matmul(x, wt), expected, {b, t, n}, 2e-4, 2e-4);
    for (size_t i = 0; i < expected.size(); ++i) expected[i] += bias[i % n];
    ExpectClose(linear(x, wt, Make(bias, {n}, DType::kFloat32)), expected, {b, t, n}, 2e-4, 2e-4);
  }
  {  // bfloat16: 2048 rows and a 128 x 2048 weight, the packed route's smallest
    const int64_t bb = 64, tt = 32, kk = 128, n = 2048;
    const auto ab = Random(tt * bb * kk, 44), w = Random(kk * n, 45);
    const Tensor x = transpose(Make(ab, {tt, bb, kk}, DType::kBFloat16), {1, 0, 2});
    const Tensor wt = Make(w, {kk, n}, DType::kBFloat16);
    // The operands as bfloat16 holds them; the products accumulate in float32.
    const std::vector<double> xa = testing::Values(cast(Make(ab, {tt, bb, kk}), DType::kBFloat16));
    const std::vector<double> wb = testing::Values(wt);
    const auto expected = Naive(
        bb * tt, n, kk, [&](int64_t r, int64_t p) { return xa[((r % tt) * bb + r / tt) * kk + p]; },
        [&](int64_t p, int64_t j) { return wb[p * n + j]; });
    ExpectClose(matmul(x, wt), expected, {bb, tt, n}, 1e-2, 5e-2);
  }
}

TEST(Matmul, EmptyDimensions) {
  // K = 0: a sum over nothing is zero.
  ExpectClose(matmul(Make({}, {3, 0}), Make({}, {0, 4})), std::vector<double>(12, 0.0), {3, 4});
  ExpectClose(
      matmul(Make({}, {0, 3}, DType::kFloat32), Make({}, {2, 0}, DType::kFloat32), true, true),
      std::vector<double>(6, 0.0), {3, 2});
  ExpectClose(matmul(Make({}, {0}), Make({}, {0})), {0}, {});
  // M = 0 or a batch of 0.
  ExpectClose(matmul(Make({}, {0, 3}), Make(Random(12, 1), {3, 4})), {}, {0, 4});
  ExpectClose(matmul(Make({}, {0, 2, 3}), Make(Random(12, 1), {3, 4})), {}, {0, 2, 4});
}

TEST(Matmul, LowPrecisionAndPromotion) {
  const auto a = Random(6, 15), b = Random(6, 16);
  const auto expected = Naive(
      2, 2, 3, [&](int64_t i, int64_t p) { return a[i * 3 + p]; },
      [&](int64_t p, int64_t j) { return b[p * 2 + j]; });
  for (DType dtype : {DType::kFloat16, DType::kBFloat16}) {
    const Tensor out = matmul(Make(a, {2, 3}, dtype), Make(b, {3, 2}, dtype));
    EXPECT_EQ(out.dtype(), dtype);
    ExpectClose(out, expected, {2, 2}, 2e-2, 2e-2);  // inputs are rounded too
  }
  const Tensor mixed = matmul(Make(a, {2, 3}, DType::kFloat32), Make(b, {3, 2}));
  EXPECT_EQ(mixed.dtype(), DType::kFloat64);
  ExpectClose(mixed, expected, {2, 2}, 1e-6, 1e-6);
}

}  // namespace
}  // namespace oar
