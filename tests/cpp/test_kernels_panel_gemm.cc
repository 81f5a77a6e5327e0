// The panel kernel of a product of few rows (Note [A product of few rows streams its
// weight once], kernels/cpu/panel_gemm.h) against a double-precision loop: B as stored
// and read transposed, tiles of one and two sizes, N off the 16-column panels, K across
// several copied blocks of A, beta 0 over a C of NaN, 1 and 0.5, padded leading
// dimensions; and the same bits on one thread as on three. The AVX-512 tile runs where
// dispatch allows it, else the AVX2 tile and packer (ctest runs the suite under each
// ISA cap below the CPU's).
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "oar/core/cpu_isa.h"
#include "oar/kernels/cpu/panel_gemm.h"
#include "test_util.h"

namespace oar {
namespace {

using cpu::PanelGemm;
using testing::Random;

struct Case {
  int64_t m, n, k;
};

std::vector<float> Floats(int64_t n, uint32_t seed) {
  const auto d = Random(n, seed);
  return {d.begin(), d.end()};
}

// Each ISA takes the rows its benchmark set (AVX-512's bounds, else AVX2's).
TEST(PanelGemm, RunsWhereDispatchAllowsAvx2) {
  EXPECT_EQ(PanelGemm::Runs(20), CpuIsaAllowed(CpuIsa::kAvx2));
  const bool avx512 = CpuIsaAllowed(CpuIsa::kAvx512);
  const int64_t lo = avx512 ? cpu::kMinPanelRows : cpu::kMinPanelRowsAvx2;
  const int64_t hi = avx512 ? cpu::kMaxPanelRows : cpu::kMaxPanelRowsAvx2;
  EXPECT_FALSE(PanelGemm::Runs(lo - 1));
  EXPECT_EQ(PanelGemm::Runs(lo), CpuIsaAllowed(CpuIsa::kAvx2));
  EXPECT_EQ(PanelGemm::Runs(hi), CpuIsaAllowed(CpuIsa::kAvx2));
  EXPECT_FALSE(PanelGemm::Runs(hi + 1));
}

// Below AVX2 (OAR_MAX_CPU_ISA=sse2, or a CPU without it) the kernel refuses to be made,
// and StepGemm runs the products elsewhere (Matmul.StepGemmWithBPackedOnce). Under the
// cap of AVX2 on an AVX-512 CPU these tests run the AVX2 tile and packer.
bool RefusedWithoutAvx2() {
  if (CpuIsaAllowed(CpuIsa::kAvx2)) return false;
  const std::vector<float> b(20 * 16, 1.0f);
  EXPECT_THROW(PanelGemm(true, 20, 16, 20, 20, b.data(), 20, 0.0f, 16), Error);
  return true;
}

TEST(PanelGemm, MatchesALoopInDouble) {
  if (RefusedWithoutAvx2()) return;
  // Tiles of 24 rows at most on AVX-512 and 12 on AVX2, so 13, 25, 40 and 48 rows split
  // into tiles of two sizes or several of one; 23 columns end inside an 8-column half
  // of a panel, 24 rows of B inside a packed block of 16.
  const Case cases[] = {{20, 2048, 512}, {20, 512, 2048}, {1, 17, 3},   {8, 100, 513},
                        {24, 16, 1100},  {25, 33, 64},    {40, 48, 40}, {48, 15, 1},
                        {12, 23, 24},    {13, 9, 20}};
  for (const Case s : cases) {
    for (const bool tb : {true, false}) {
      for (const float beta : {0.0f, 1.0f, 0.5f}) {
        const int64_t pad = beta == 1.0f ? 0 : 5;
        const int64_t lda = s.k + pad, ldb = (tb ? s.k : s.n) + pad, ldc = s.n + pad;
        const auto a = Floats(s.m * lda, 51), b = Floats((tb ? s.n : s.k) * ldb, 52);
        auto c0 = Floats(s.m * ldc, 53);
        if (beta == 0.0f) c0.assign(c0.size(), std::numeric_limits<float>::quiet_NaN());
        const PanelGemm g(tb, s.m, s.n, s.k, lda, b.data(), ldb, beta, ldc);
        for (int call = 0; call < 2; ++call) {  // the packed B serves every call
          auto c = c0;
          g.Run(a.data(), c.data());
          for (int64_t i = 0; i < s.m; ++i) {
            for (int64_t j = 0; j < s.n; ++j) {
              double want = beta == 0.0f ? 0.0 : double(beta) * c0[i * ldc + j];
              for (int64_t p = 0; p < s.k; ++p) {
                want += double(a[i * lda + p]) * (tb ? b[j * ldb + p] : b[p * ldb + j]);
              }
              ASSERT_NEAR(c[i * ldc + j], want, 1e-5 * (1.0 + std::sqrt(double(s.k))))
                  << s.m << "x" << s.n << "x" << s.k << " tb " << tb << " beta " << beta << " at "
                  << i << ", " << j;
            }
            for (int64_t j = s.n; j < ldc; ++j) {  // the padding stays untouched
              ASSERT_TRUE(std::isnan(c[i * ldc + j]) || c[i * ldc + j] == c0[i * ldc + j]);
            }
          }
        }
      }
    }
  }
}

TEST(PanelGemm, SameBitsOnAnyThreadCount) {
  if (RefusedWithoutAvx2()) return;
  const int64_t m = 20, n = 1000, k = 700;
  const auto a = Floats(m * k, 61), b = Floats(n * k, 62);
  const PanelGemm g(true, m, n, k, k, b.data(), k, 0.0f, n);
  std::vector<float> one(m * n), three(m * n);
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  g.Run(a.data(), one.data());
  omp_set_num_threads(3);
  g.Run(a.data(), three.data());
  omp_set_num_threads(saved);
  for (int64_t i = 0; i < m * n; ++i) ASSERT_EQ(one[i], three[i]) << "at " << i;
}

TEST(PanelGemm, RefusesWhatItCannotRun) {
  const std::vector<float> b(16, 1.0f);
  EXPECT_THROW(PanelGemm(false, 0, 4, 4, 4, b.data(), 4, 0.0f, 4), Error);
  EXPECT_THROW(PanelGemm(false, 4, 4, 0, 4, b.data(), 4, 0.0f, 4), Error);
}

}  // namespace
}  // namespace oar
