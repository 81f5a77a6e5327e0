// The packer of bf16_pack.h, in AVX512BW: a row-major B interleaves two rows
// of 32 columns with one permute per 16 pairs; a column-major B already holds
// each pair as one 32-bit word, so a block is four 16 x 16 transposes of words.
#include "oar/kernels/cpu/bf16_pack.h"

#include <immintrin.h>

#include "oar/core/cpu_isa.h"
#include "oar/kernels/cpu/avx512_transpose.h"

namespace oar::onednn {
namespace {

#define OAR_PACK_ISA __attribute__((target("avx512f,avx512bw")))

// GCC 12 warns of the undefined pass-through operand inside its own unmasked
// AVX-512 intrinsics.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

// The low `count` of 32 lanes (all for count >= 32, none for count <= 0).
inline __mmask32 Lanes(int64_t count) {
  if (count >= 32) return ~__mmask32(0);
  if (count <= 0) return 0;
  return (__mmask32(1) << count) - 1;
}

// Row-major B: the block (kb, nb), pair by pair. For each pair of rows, the
// 64 columns as two halves of 32; vpermt2w interleaves one half of the two
// rows into 2 x 16 pairs.
OAR_PACK_ISA void PackRowsBlock(const uint16_t* b, int64_t k, int64_t n, int64_t ld, int64_t kb,
                                int64_t nb, __m512i first, __m512i second, uint16_t* o) {
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

// Column-major B: each column's 32 rows of the block are 16 pairs, one vector;
// 16 columns at a time, transposed, give the block's pairs for those columns.
OAR_PACK_ISA void PackColsBlock(const uint16_t* b, int64_t k, int64_t n, int64_t ld, int64_t kb,
                                int64_t nb, uint16_t* o) {
  const int64_t r0 = kb * kPackRows;
  const __mmask32 m = Lanes(k - r0);
  for (int64_t q = 0; q < kPackCols / 16; ++q) {
    __m512i v[16];
    for (int64_t i = 0; i < 16; ++i) {
      const int64_t c = nb * kPackCols + q * 16 + i;
      v[i] = c < n ? _mm512_maskz_loadu_epi16(m, b + c * ld + r0) : _mm512_setzero_si512();
    }
    avx512::Transpose16(v);
    for (int64_t p = 0; p < kPackRows / 2; ++p) {
      _mm512_storeu_si512(o + p * 2 * kPackCols + q * 32, v[p]);
    }
  }
}

OAR_PACK_ISA void Pack(const uint16_t* b, int64_t k, int64_t n, int64_t sr, int64_t sc,
                       uint16_t* out) {
  const int64_t kbs = (k + kPackRows - 1) / kPackRows, nbs = (n + kPackCols - 1) / kPackCols;
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
  const bool rows = sc == 1;
  const int64_t blocks = kbs * nbs;
  // On OpenMP, not oar's pool: the oneDNN call that reads the result runs on
  // OpenMP's team right after, and the pool's workers, spinning after a job,
  // took the cores from that team as it started (128 x 784 x 512: the pack plus
  // the packed product ran at 0.92-0.95x the plain call's speed on the pool,
  // 1.13-1.14x on OpenMP; benchmarks/blas/bf16_pack.cc).
#pragma omp parallel for schedule(static) if (blocks >= 16)
  for (int64_t i = 0; i < blocks; ++i) {
    const int64_t nb = i / kbs, kb = i % kbs;
    uint16_t* o = out + i * kBlockElems;  // (nb * kbs + kb) blocks in
    if (rows) {
      PackRowsBlock(b, k, n, sr, kb, nb, first, second, o);
    } else {
      PackColsBlock(b, k, n, sc, kb, nb, o);
    }
  }
}

}  // namespace

bool CanPackBf16() { return CpuIsaAllowed(CpuIsa::kAvx512); }

void PackBf16(const uint16_t* b, int64_t k, int64_t n, int64_t sr, int64_t sc, uint16_t* out) {
  Pack(b, k, n, sr, sc, out);
}

}  // namespace oar::onednn
