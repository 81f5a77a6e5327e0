// The AVX2 tile of the panel product (panel_tile.h), for CPUs without AVX-512: two 8-wide
// accumulators a row (a whole panel), up to 6 rows, so that the 12 accumulators, the
// panel row's two vectors and the broadcast element fit the 16 registers; and the AVX2
// packer of the panels.
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "oar/kernels/cpu/panel_tile.h"

namespace oar::cpu::panel {
namespace {

#define OAR_PANEL_ISA __attribute__((target("avx2,fma")))

// Half a panel a call with up to 12 rows, one accumulator a row, was the other shape that
// fits: on an AVX2-only Zen 3 (benchmarks/blas/panel_gemm.cc's shapes, the two builds run
// in turn) it took 1.09-1.17x this one's time with 16 to 32 rows and 0.80-0.81x with 8.
constexpr int kVecs = 2;
constexpr int64_t kMaxRows = 6;

// The lanes of vector v (of 8) below `cols`, as AVX2's masked loads and stores take them.
OAR_PANEL_ISA inline __m256i Lanes(int64_t cols, int v) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(cols) - 8 * v),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

struct Tiles {
  template <int Rows>
  OAR_PANEL_ISA static void Tile(const float* ab, int64_t block_floats, const float* b,
                                 int64_t depth, float* c, int64_t ldc, Start start, float beta,
                                 int64_t cols) {
    const bool whole = cols == kPanelCols;
    __m256i mask[kVecs];
    for (int v = 0; v < kVecs; ++v) mask[v] = Lanes(cols, v);
    __m256 acc[Rows][kVecs];
#pragma GCC unroll 16
    for (int r = 0; r < Rows; ++r) {
#pragma GCC unroll 2
      for (int v = 0; v < kVecs; ++v) {
        if (start == Start::kZero) {
          acc[r][v] = _mm256_setzero_ps();
        } else {
          const float* cr = c + r * ldc + 8 * v;
          acc[r][v] = whole ? _mm256_loadu_ps(cr) : _mm256_maskload_ps(cr, mask[v]);
          if (start == Start::kScale) acc[r][v] = _mm256_mul_ps(acc[r][v], _mm256_set1_ps(beta));
        }
      }
    }
    for (int64_t k0 = 0; k0 < depth; k0 += kBlockDepth, ab += block_floats) {
      const int64_t k1 = std::min(depth - k0, kBlockDepth);
      const float* bb = b + k0 * kPanelCols;
      for (int64_t k = 0; k < k1; ++k) {
        __m256 bk[kVecs];
#pragma GCC unroll 2
        for (int v = 0; v < kVecs; ++v) bk[v] = _mm256_load_ps(bb + k * kPanelCols + 8 * v);
#pragma GCC unroll 16
        for (int r = 0; r < Rows; ++r) {
          const __m256 ar = _mm256_broadcast_ss(ab + r * kBlockStride + k);
#pragma GCC unroll 2
          for (int v = 0; v < kVecs; ++v) acc[r][v] = _mm256_fmadd_ps(ar, bk[v], acc[r][v]);
        }
      }
    }
#pragma GCC unroll 16
    for (int r = 0; r < Rows; ++r) {
#pragma GCC unroll 2
      for (int v = 0; v < kVecs; ++v) {
        float* cr = c + r * ldc + 8 * v;
        if (whole) {
          _mm256_storeu_ps(cr, acc[r][v]);
        } else {
          _mm256_maskstore_ps(cr, mask[v], acc[r][v]);
        }
      }
    }
  }
};

// r[i] holds row i of an 8 x 8 block; on return r[j] holds its column j.
OAR_PANEL_ISA void Transpose8(__m256 r[8]) {
  __m256 t[8], u[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  // u[4i + j], 128-bit lane L: column 4L + j of rows 4i .. 4i + 3.
  for (int i = 0; i < 2; ++i) {
    u[4 * i] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    u[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
    u[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    u[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
  }
  for (int j = 0; j < 4; ++j) {
    r[j] = _mm256_permute2f128_ps(u[j], u[4 + j], 0x20);
    r[4 + j] = _mm256_permute2f128_ps(u[j], u[4 + j], 0x31);
  }
}

// Panel p of a B whose columns are contiguous (sr == 1, column c at b + c * sc): blocks
// of 8 rows by 8 columns, each 8 loads, a transpose and 8 stores; the blocks past k or n
// element by element.
OAR_PANEL_ISA void PackColumnsPanel(const float* b, int64_t k, int64_t n, int64_t sc, int64_t p,
                                    int64_t padded_k, float* o) {
  const int64_t c0 = p * kPanelCols;
  for (int64_t r0 = 0; r0 < padded_k; r0 += 8) {
    for (int64_t h = 0; h < kPanelCols; h += 8) {
      float* out = o + r0 * kPanelCols + h;
      if (r0 + 8 <= k && c0 + h + 8 <= n) {
        __m256 v[8];
        for (int i = 0; i < 8; ++i) v[i] = _mm256_loadu_ps(b + (c0 + h + i) * sc + r0);
        Transpose8(v);
        for (int i = 0; i < 8; ++i) _mm256_storeu_ps(out + i * kPanelCols, v[i]);
        continue;
      }
      for (int64_t i = 0; i < 8; ++i) {
        for (int64_t j = 0; j < 8; ++j) {
          const int64_t r = r0 + i, c = c0 + h + j;
          out[i * kPanelCols + j] = r < k && c < n ? b[c * sc + r] : 0.0f;
        }
      }
    }
  }
}

// Panel p of a B whose rows are contiguous (sc == 1, row r at b + r * sr): each row's 16
// columns copied.
void PackRowsPanel(const float* b, int64_t k, int64_t n, int64_t sr, int64_t p, int64_t padded_k,
                   float* o) {
  const int64_t c0 = p * kPanelCols, cols = std::min(kPanelCols, n - c0);
  for (int64_t r = 0; r < padded_k; ++r) {
    float* out = o + r * kPanelCols;
    if (r < k) {
      std::memcpy(out, b + r * sr + c0, sizeof(float) * cols);
      std::fill(out + cols, out + kPanelCols, 0.0f);
    } else {
      std::fill(out, out + kPanelCols, 0.0f);
    }
  }
}

}  // namespace

TileKernel Avx2Tile() { return {&RunTile<Tiles, kMaxRows>, kMaxRows}; }

void PackPanelsAvx2(const float* b, int64_t k, int64_t n, int64_t sr, int64_t sc, float* out) {
  const int64_t padded_k = (k + 15) / 16 * 16, panels = (n + kPanelCols - 1) / kPanelCols;
  // On OpenMP's team, as the products that read the panels (panel_gemm.cc).
#pragma omp parallel for schedule(static) if (panels >= 16)
  for (int64_t p = 0; p < panels; ++p) {
    float* o = out + p * padded_k * kPanelCols;
    if (sc == 1) {
      PackRowsPanel(b, k, n, sr, p, padded_k, o);
    } else {
      PackColumnsPanel(b, k, n, sc, p, padded_k, o);
    }
  }
}

}  // namespace oar::cpu::panel
