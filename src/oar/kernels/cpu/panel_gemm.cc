// The panel product of panel_gemm.h (Note [A product of few rows streams its weight
// once]): the copy of A, the walk over panels and tiles, and the threads; the tiles
// themselves are in panel_tile_avx512.cc and panel_tile_avx2.cc.
#include "oar/kernels/cpu/panel_gemm.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "oar/core/cpu_isa.h"
#include "oar/core/errors.h"
#include "oar/kernels/cpu/panel_tile.h"
#include "oar/kernels/cpu/weight_pack.h"

namespace oar::cpu {
namespace {

using panel::kBlockStride;
using panel::Start;

struct Product {
  panel::TileKernel kernel;
  int64_t m, n, k, lda, ldc;
  float beta;
  const float* panels;  // PackF32's layout, kPanelCols wide; k padded to a multiple of 16
  const float* a;
  float* c;
};

// Panels [p0, p1) of the product: A copied to `ab` once, in blocks of kBlockDepth
// columns, then each panel streamed once per tile of at most the kernel's max_rows rows,
// the tile's accumulators held over all of k (panel by panel, B is read in order).
void RunPanels(const Product& o, int64_t p0, int64_t p1, float* ab) {
  const int64_t padded_k = (o.k + 15) / 16 * 16;
  const int64_t tiles = (o.m + o.kernel.max_rows - 1) / o.kernel.max_rows;
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
    const int64_t n0 = p * kPanelCols, cols = std::min(kPanelCols, o.n - n0);
    const float* bp = o.panels + p * padded_k * kPanelCols;
    for (int64_t t = 0, r0 = 0; t < tiles; ++t) {
      // Tiles of as even a size as the rows allow (40 rows: two of 20 on AVX-512).
      const int64_t rows = o.m / tiles + (t < o.m % tiles ? 1 : 0);
      o.kernel.tile(rows, ab + r0 * kBlockStride, block_floats, bp, o.k, o.c + r0 * o.ldc + n0,
                    o.ldc, start, o.beta, cols);
      r0 += rows;
    }
  }
}

}  // namespace

bool PanelGemm::Runs(int64_t m) {
  if (CpuIsaAllowed(CpuIsa::kAvx512)) return m >= kMinPanelRows && m <= kMaxPanelRows;
  return CpuIsaAllowed(CpuIsa::kAvx2) && m >= kMinPanelRowsAvx2 && m <= kMaxPanelRowsAvx2;
}

PanelGemm::PanelGemm(bool tb, int64_t m, int64_t n, int64_t k, int64_t lda, const float* b,
                     int64_t ldb, float beta, int64_t ldc)
    : m_(m),
      n_(n),
      k_(k),
      lda_(lda),
      ldc_(ldc),
      beta_(beta),
      avx512_(CpuIsaAllowed(CpuIsa::kAvx512)) {
  OAR_ENFORCE(m > 0 && n > 0 && k > 0 && CpuIsaAllowed(CpuIsa::kAvx2),
              errors::InvalidArgument("PanelGemm: ", m, " x ", n, " x ", k,
                                      " is not a product the panel kernel runs here"));
  const int64_t padded_k = (k + 15) / 16 * 16, padded_n = (n + 15) / 16 * 16;
  panels_ = DenseTensor(DType::kFloat32, DDim{padded_k * padded_n});
  const int64_t sr = tb ? 1 : ldb, sc = tb ? ldb : 1;
  if (avx512_) {
    onednn::PackF32(b, k, n, sr, sc, panels_.mutable_data<float>(), kPanelCols);
  } else {
    panel::PackPanelsAvx2(b, k, n, sr, sc, panels_.mutable_data<float>());
  }
}

void PanelGemm::Run(const float* a, float* c) const {
  const Product o{avx512_ ? panel::Avx512Tile() : panel::Avx2Tile(),
                  m_,
                  n_,
                  k_,
                  lda_,
                  ldc_,
                  beta_,
                  panels_.data<float>(),
                  a,
                  c};
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
