// The panel kernel of panel_gemm.h (Note [A product of few rows streams its weight
// once]), in AVX-512: a tile of rows of A times one 16-column panel of B.
#include "oar/kernels/cpu/panel_gemm.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "oar/core/cpu_isa.h"
#include "oar/core/errors.h"
#include "oar/kernels/cpu/avx512_lanes.h"
#include "oar/kernels/cpu/weight_pack.h"

namespace oar::cpu {
namespace {

#define OAR_PANEL_ISA __attribute__((target("avx512f")))

// GCC 12 warns of the undefined pass-through operand inside its own unmasked
// AVX-512 intrinsics.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

// The row stride of the copied block of A: a constant, and not a multiple of 4 KiB,
// so the rows of a tile fall in different sets of L1.
constexpr int64_t kBlockStride = kBlockDepth + kPanelCols;

// How a tile's accumulators start: zero, c's values, or beta * c.
enum class Start { kZero, kLoad, kScale };

// c[r, :16 under mask] = start + sum over k < depth of a[r, k] * b[k, :], for the rows r
// < Rows of a tile; ab holds A's copied blocks of kBlockDepth columns, block_floats apart
// (row stride kBlockStride in each), b the panel's rows.
template <int Rows>
OAR_PANEL_ISA void Tile(const float* ab, int64_t block_floats, const float* b, int64_t depth,
                        float* c, int64_t ldc, Start start, float beta, __mmask16 mask) {
  __m512 acc[Rows];
#pragma GCC unroll 32
  for (int r = 0; r < Rows; ++r) {
    if (start == Start::kZero) {
      acc[r] = _mm512_setzero_ps();
    } else {
      acc[r] = _mm512_maskz_loadu_ps(mask, c + r * ldc);
      if (start == Start::kScale) acc[r] = _mm512_mul_ps(acc[r], _mm512_set1_ps(beta));
    }
  }
  for (int64_t k0 = 0; k0 < depth; k0 += kBlockDepth, ab += block_floats) {
    const int64_t k1 = std::min(depth - k0, kBlockDepth);
    const float* bb = b + k0 * kPanelCols;
    for (int64_t k = 0; k < k1; ++k) {
      const __m512 bk = _mm512_load_ps(bb + k * kPanelCols);
#pragma GCC unroll 32
      for (int r = 0; r < Rows; ++r) {
        acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(ab[r * kBlockStride + k]), bk, acc[r]);
      }
    }
  }
#pragma GCC unroll 32
  for (int r = 0; r < Rows; ++r) _mm512_mask_storeu_ps(c + r * ldc, mask, acc[r]);
}

using TileFn = void (*)(const float*, int64_t, const float*, int64_t, float*, int64_t, Start, float,
                        __mmask16);

template <size_t... R>
constexpr std::array<TileFn, sizeof...(R)> TileTable(std::index_sequence<R...>) {
  return {(R == 0 ? nullptr : &Tile<static_cast<int>(R)>)...};
}
// kTiles[r]: the tile of r rows.
constexpr auto kTiles = TileTable(std::make_index_sequence<kMaxTileRows + 1>());

struct Product {
  int64_t m, n, k, lda, ldc;
  float beta;
  const float* panels;  // PackF32's layout, kPanelCols wide; k padded to a multiple of 16
  const float* a;
  float* c;
};

// Panels [p0, p1) of the product: A copied to `ab` once, in blocks of kBlockDepth
// columns, then each panel streamed once per tile of at most kMaxTileRows rows, the tile's
// accumulators held over all of k (panel by panel, B is read in order).
OAR_PANEL_ISA void RunPanels(const Product& o, int64_t p0, int64_t p1, float* ab) {
  const int64_t padded_k = (o.k + 15) / 16 * 16;
  const int64_t tiles = (o.m + kMaxTileRows - 1) / kMaxTileRows;
  const int64_t block_floats = o.m * kBlockStride;
  for (int64_t k0 = 0, kb = 0; k0 < o.k; k0 += kBlockDepth, ++kb) {
    const int64_t depth = std::min(kBlockDepth, o.k - k0);
    for (int64_t r = 0; r < o.m; ++r) {
      std::memcpy(ab + kb * block_floats + r * kBlockStride, o.a + r * o.lda + k0,
                  sizeof(float) * depth);
    }
  }
  const Start start = o.beta == 0.0f ? Start::kZero : o.beta == 1.0f ? Start::kLoad : Start::kScale;
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t n0 = p * kPanelCols;
    const __mmask16 mask = avx512::Lanes16(o.n - n0);
    const float* bp = o.panels + p * padded_k * kPanelCols;
    for (int64_t t = 0, r0 = 0; t < tiles; ++t) {
      // Tiles of as even a size as the rows allow (40 rows: two of 20).
      const int64_t rows = o.m / tiles + (t < o.m % tiles ? 1 : 0);
      kTiles[rows](ab + r0 * kBlockStride, block_floats, bp, o.k, o.c + r0 * o.ldc + n0, o.ldc,
                   start, o.beta, mask);
      r0 += rows;
    }
  }
}

}  // namespace

bool PanelGemm::Runs(int64_t m) {
  return m >= kMinPanelRows && m <= kMaxPanelRows && CpuIsaAllowed(CpuIsa::kAvx512);
}

PanelGemm::PanelGemm(bool tb, int64_t m, int64_t n, int64_t k, int64_t lda, const float* b,
                     int64_t ldb, float beta, int64_t ldc)
    : m_(m), n_(n), k_(k), lda_(lda), ldc_(ldc), beta_(beta) {
  OAR_ENFORCE(m > 0 && n > 0 && k > 0 && CpuIsaAllowed(CpuIsa::kAvx512),
              errors::InvalidArgument("PanelGemm: ", m, " x ", n, " x ", k,
                                      " is not a product the panel kernel runs here"));
  const int64_t padded_k = (k + 15) / 16 * 16, padded_n = (n + 15) / 16 * 16;
  panels_ = DenseTensor(DType::kFloat32, DDim{padded_k * padded_n});
  onednn::PackF32(b, k, n, tb ? 1 : ldb, tb ? ldb : 1, panels_.mutable_data<float>(), kPanelCols);
}

void PanelGemm::Run(const float* a, float* c) const {
  const Product o{m_, n_, k_, lda_, ldc_, beta_, panels_.data<float>(), a, c};
  const int64_t panels = (n_ + kPanelCols - 1) / kPanelCols;
  // Each thread's copy of A: a multiple of 16 floats, so every copy starts 64-byte aligned
  // (oar's allocator aligns blocks to 64 bytes).
  const int64_t block = m_ * kBlockStride * ((k_ + kBlockDepth - 1) / kBlockDepth);
  const bool par = panels >= 2 && m_ * n_ * k_ >= (int64_t{1} << 16);
  DenseTensor blocks(DType::kFloat32, DDim{(par ? omp_get_max_threads() : 1) * block});
  float* ab = blocks.mutable_data<float>();
  // On OpenMP's team, as the row passes between the steps (Note [The rows of a step run
  // in parallel] in rnn_kernels.cc).
#pragma omp parallel if (par)
  {
    const int64_t parts = omp_get_num_threads(), part = omp_get_thread_num();
    const int64_t p0 = panels * part / parts, p1 = panels * (part + 1) / parts;
    if (p0 < p1) RunPanels(o, p0, p1, ab + part * block);
  }
}

}  // namespace oar::cpu
