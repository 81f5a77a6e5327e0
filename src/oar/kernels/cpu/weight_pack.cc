// The packers of weight_pack.h, in AVX512BW. bfloat16: a row-major B interleaves
// two rows of 32 columns with one permute per 16 pairs; a column-major B already
// holds each pair as one 32-bit word, so a block is four 16 x 16 transposes of
// words. float32: a row-major B copies each block row's 64 columns as four vectors;
// a column-major B holds each column's 16 rows of a block as one vector, so a block
// is four 16 x 16 transposes too.
#include "oar/kernels/cpu/weight_pack.h"

#include <immintrin.h>

#include "oar/core/cpu_isa.h"
#include "oar/kernels/cpu/avx512_lanes.h"
#include "oar/kernels/cpu/avx512_transpose.h"

namespace oar::onednn {
namespace {

#define OAR_PACK_ISA __attribute__((target("avx512f,avx512bw")))

// GCC 12 warns of the undefined pass-through operand inside its own unmasked
// AVX-512 intrinsics.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

using avx512::Lanes;
using avx512::Lanes16;

// Row-major B: the block (kb, nb), pair by pair. For each pair of rows, the
// 64 columns as two halves of 32; vpermt2w interleaves one half of the two
// rows into 2 x 16 pairs. The indices come by reference: the caller (a lambda
// run by ForEachBlock) is not compiled for AVX-512, and a 64-byte vector passed
// by value would go in memory on its side and in a register on this one.
OAR_PACK_ISA void PackRowsBlock(const uint16_t* b, int64_t k, int64_t n, int64_t ld, int64_t kb,
                                int64_t nb, const __m512i& first, const __m512i& second,
                                uint16_t* o) {
  const int64_t c0 = nb * kPackCols;
  const __mmask32 m0 = Lanes(n - c0), m1 = Lanes(n - c0 - 32);
  for (int64_t p = 0; p < kPackRows / 2; ++p) {
    const int64_t r = kb * kPackRows + 2 * p;
    __m512i e0 = _mm512_setzero_si512(), e1 = e0, d0 = e0, d1 = e0;  // even / odd row
    if (r < k) {
      e0 = _mm512_maskz_loadu_epi16(m0, b + r * ld + c0);
      e1 = _mm512_maskz_loadu_epi16(m1, b + r * ld + c0 + 32);
    }
    if (r + 1 < k) {
      d0 = _mm512_maskz_loadu_epi16(m0, b + (r + 1) * ld + c0);
      d1 = _mm512_maskz_loadu_epi16(m1, b + (r + 1) * ld + c0 + 32);
    }
    uint16_t* d = o + p * 2 * kPackCols;
    _mm512_storeu_si512(d, _mm512_permutex2var_epi16(e0, first, d0));
    _mm512_storeu_si512(d + 32, _mm512_permutex2var_epi16(e0, second, d0));
    _mm512_storeu_si512(d + 64, _mm512_permutex2var_epi16(e1, first, d1));
    _mm512_storeu_si512(d + 96, _mm512_permutex2var_epi16(e1, second, d1));
  }
}

// Column-major B: 16 columns of the block at a time. A column's part of the block is
// one vector of 16 32-bit words (16 pairs of bfloat16 rows, or 16 float32 rows), so a
// transpose gives the block's 16 rows (of pairs) for those columns: words p * 64 + q *
// 16 on in both layouts.
// `cols`: the block's width, a multiple of 16 (kPackCols for bfloat16).
template <typename T>
OAR_PACK_ISA void PackColsBlock(const T* b, int64_t k, int64_t n, int64_t ld, int64_t kb,
                                int64_t nb, int64_t cols, T* out) {
  constexpr bool kBf16 = sizeof(T) == 2;
  constexpr int64_t kRows = kBf16 ? kPackRows : kF32PackRows;
  const int64_t r0 = kb * kRows;
  auto* o = reinterpret_cast<uint32_t*>(out);
  for (int64_t q = 0; q < cols / 16; ++q) {
    __m512i v[16];
    for (int64_t i = 0; i < 16; ++i) {
      const int64_t c = nb * cols + q * 16 + i;
      if (c >= n) {
        v[i] = _mm512_setzero_si512();
      } else if constexpr (kBf16) {
        v[i] = _mm512_maskz_loadu_epi16(Lanes(k - r0), b + c * ld + r0);
      } else {
        v[i] = _mm512_castps_si512(_mm512_maskz_loadu_ps(Lanes16(k - r0), b + c * ld + r0));
      }
    }
    avx512::Transpose16(v);
    for (int64_t p = 0; p < 16; ++p) _mm512_storeu_si512(o + p * cols + q * 16, v[p]);
  }
}

// block(kb, nb, o) for every block of a [k, n] B in blocks of rows x cols, o its
// first element in the packed output.
template <typename T, typename Block>
void ForEachBlock(int64_t k, int64_t n, int64_t rows, int64_t cols, T* out, Block block) {
  const int64_t kbs = (k + rows - 1) / rows, nbs = (n + cols - 1) / cols;
  const int64_t blocks = kbs * nbs;
  // On OpenMP, not oar's pool: the oneDNN call that reads the result runs on
  // OpenMP's team right after, and the pool's workers, spinning after a job,
  // took the cores from that team as it started (128 x 784 x 512: the pack plus
  // the packed product ran at 0.92-0.95x the plain call's speed on the pool,
  // 1.13-1.14x on OpenMP; benchmarks/blas/weight_pack.cc).
#pragma omp parallel for schedule(static) if (blocks >= 16)
  for (int64_t i = 0; i < blocks; ++i) {
    block(i % kbs, i / kbs, out + i * rows * cols);  // (nb * kbs + kb) blocks in
  }
}

OAR_PACK_ISA void Pack(const uint16_t* b, int64_t k, int64_t n, int64_t sr, int64_t sc,
                       uint16_t* out) {
  // vpermt2w indices: the pairs of columns 0-15 (`first`) and 16-31 (`second`)
  // of a row of 32 from the even row (0-31) and the odd one (32-63).
  alignas(64) uint16_t first_idx[32], second_idx[32];
  for (int i = 0; i < 16; ++i) {
    first_idx[2 * i] = static_cast<uint16_t>(i);
    first_idx[2 * i + 1] = static_cast<uint16_t>(32 + i);
    second_idx[2 * i] = static_cast<uint16_t>(16 + i);
    second_idx[2 * i + 1] = static_cast<uint16_t>(48 + i);
  }
  const __m512i first = _mm512_load_si512(first_idx), second = _mm512_load_si512(second_idx);
  ForEachBlock(k, n, kPackRows, kPackCols, out, [&](int64_t kb, int64_t nb, uint16_t* o) {
    if (sc == 1) {
      PackRowsBlock(b, k, n, sr, kb, nb, first, second, o);
    } else {
      PackColsBlock(b, k, n, sc, kb, nb, kPackCols, o);
    }
  });
}

// float32, row-major B: the block (kb, nb), `cols` wide, row by row.
OAR_PACK_ISA void PackF32RowsBlock(const float* b, int64_t k, int64_t n, int64_t ld, int64_t kb,
                                   int64_t nb, int64_t cols, float* o) {
  const int64_t c0 = nb * cols;
  for (int64_t p = 0; p < kF32PackRows; ++p) {
    const int64_t r = kb * kF32PackRows + p;
    for (int64_t q = 0; q < cols / 16; ++q) {
      const __m512 v =
          r < k ? _mm512_maskz_loadu_ps(Lanes16(n - c0 - q * 16), b + r * ld + c0 + q * 16)
                : _mm512_setzero_ps();
      _mm512_storeu_ps(o + p * cols + q * 16, v);
    }
  }
}

}  // namespace

bool CanPack() { return CpuIsaAllowed(CpuIsa::kAvx512); }

void PackBf16(const uint16_t* b, int64_t k, int64_t n, int64_t sr, int64_t sc, uint16_t* out) {
  Pack(b, k, n, sr, sc, out);
}

void PackF32(const float* b, int64_t k, int64_t n, int64_t sr, int64_t sc, float* out,
             int64_t cols) {
  ForEachBlock(k, n, kF32PackRows, cols, out, [&](int64_t kb, int64_t nb, float* o) {
    if (sc == 1) {
      PackF32RowsBlock(b, k, n, sr, kb, nb, cols, o);
    } else {
      PackColsBlock(b, k, n, sc, kb, nb, cols, o);
    }
  });
}

}  // namespace oar::onednn
