// A 16 x 16 transpose of 32-bit words in AVX-512 registers, shared by the
// weight packers (weight_pack.cc) and benchmarks/blas/bf16_gemm_candidate.cc.
// Only files that check the CPU for AVX-512 before calling it include this.
#pragma once

#include <immintrin.h>

namespace oar::avx512 {

// r[i] holds row i; on return r[j] holds column j (unpacks within 128-bit
// lanes, then lane shuffles).
__attribute__((target("avx512f"))) inline void Transpose16(__m512i r[16]) {
  __m512i t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  // u[4i + j], 128-bit lane L: column 4L + j of rows 4i .. 4i + 3.
  __m512i u[16];
  for (int i = 0; i < 4; ++i) {
    u[4 * i] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
    u[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
    u[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    u[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
  for (int j = 0; j < 4; ++j) {
    const __m512i v0 = _mm512_shuffle_i32x4(u[j], u[4 + j], 0x44);
    const __m512i v1 = _mm512_shuffle_i32x4(u[j], u[4 + j], 0xEE);
    const __m512i w0 = _mm512_shuffle_i32x4(u[8 + j], u[12 + j], 0x44);
    const __m512i w1 = _mm512_shuffle_i32x4(u[8 + j], u[12 + j], 0xEE);
    r[j] = _mm512_shuffle_i32x4(v0, w0, 0x88);
    r[4 + j] = _mm512_shuffle_i32x4(v0, w0, 0xDD);
    r[8 + j] = _mm512_shuffle_i32x4(v1, w1, 0x88);
    r[12 + j] = _mm512_shuffle_i32x4(v1, w1, 0xDD);
  }
}

}  // namespace oar::avx512
