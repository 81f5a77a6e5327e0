// The AVX-512 tile of the panel product (panel_tile.h): one 16-wide accumulator a row,
// a whole panel per call, up to 24 rows.
#include <immintrin.h>

#include <algorithm>

#include "oar/kernels/cpu/avx512_lanes.h"
#include "oar/kernels/cpu/panel_tile.h"

namespace oar::cpu::panel {
namespace {

#define OAR_PANEL_ISA __attribute__((target("avx512f")))

// GCC 12 warns of the undefined pass-through operand inside its own unmasked
// AVX-512 intrinsics.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

// 24 accumulators, the panel's row and the broadcast element fit the 32 registers.
constexpr int64_t kMaxRows = 24;

struct Tiles {
  template <int Rows>
  OAR_PANEL_ISA static void Tile(const float* ab, int64_t block_floats, const float* b,
                                 int64_t depth, float* c, int64_t ldc, Start start, float beta,
                                 int64_t cols) {
    const __mmask16 mask = avx512::Lanes16(cols);
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
};

}  // namespace

TileKernel Avx512Tile() { return {&RunTile<Tiles, kMaxRows>, kMaxRows}; }

}  // namespace oar::cpu::panel
