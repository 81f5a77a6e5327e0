// The 2x2 max pool of max_pool_2x2.h at AVX2 (x86-64-v3), float only: eight
// outputs a step. The even/odd split is an in-lane shuffle, which leaves the
// outputs in the order 0 1 4 5 | 2 3 6 7; the comparisons do not mind, and only
// the winners' codes are put back in order, by one 64-bit permute. Built with
// -march=x86-64-v3 (CMakeLists.txt), called only when dispatch allows that
// level (max_pool_2x2.cc); nothing from the rest of the library is included.
#if defined(__x86_64__)
#include <immintrin.h>

#include <cstdint>

#include "oar/kernels/funcs/max_pool_avx2.h"
#include "oar/kernels/funcs/max_pool_isa.h"

namespace oar::funcs::max_pool_isa {

void Avx2F32(const void* plane_in, int64_t IW, int64_t OH, int64_t OW, int64_t* out) {
  const float* plane = static_cast<const float*>(plane_in);
  const __m256i lane2 = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);  // 2 * output lane
  const __m256i iw = _mm256_set1_epi32(static_cast<int32_t>(IW));
  const __m256i one = _mm256_set1_epi32(1);
  for (int64_t oh = 0; oh < OH; ++oh) {
    const float* r0 = plane + 2 * oh * IW;
    const float* r1 = r0 + IW;
    for (int64_t ow0 = 0; ow0 < OW; ow0 += 8) {
      const int64_t n = OW - ow0 < 8 ? OW - ow0 : 8;  // outputs in this step
      const int64_t c = 2 * ow0;
      __m256 a_lo, a_hi, b_lo, b_hi;
      if (n == 8) {
        a_lo = _mm256_loadu_ps(r0 + c), a_hi = _mm256_loadu_ps(r0 + c + 8);
        b_lo = _mm256_loadu_ps(r1 + c), b_hi = _mm256_loadu_ps(r1 + c + 8);
      } else {  // the row's end: only the 2n inputs of its windows are read
        const __m256i m_lo = FirstLanes8(2 * n), m_hi = FirstLanes8(2 * n - 8);
        a_lo = _mm256_maskload_ps(r0 + c, m_lo), a_hi = _mm256_maskload_ps(r0 + c + 8, m_hi);
        b_lo = _mm256_maskload_ps(r1 + c, m_lo), b_hi = _mm256_maskload_ps(r1 + c + 8, m_hi);
      }
      // The window's elements in row-major order: (0,0) (0,1) (1,0) (1,1).
      const __m256 cand[4] = {
          _mm256_shuffle_ps(a_lo, a_hi, 0x88), _mm256_shuffle_ps(a_lo, a_hi, 0xDD),
          _mm256_shuffle_ps(b_lo, b_hi, 0x88), _mm256_shuffle_ps(b_lo, b_hi, 0xDD)};
      __m256 best = cand[0];
      __m256 code = _mm256_setzero_ps();
      for (int k = 1; k < 4; ++k) {
        const __m256 take = TakesOver8(cand[k], best);
        best = _mm256_blendv_ps(best, cand[k], take);
        code = _mm256_blendv_ps(code, _mm256_castsi256_ps(_mm256_set1_epi32(k)), take);
      }
      const __m256i ci = _mm256_permute4x64_epi64(_mm256_castps_si256(code), 0xD8);
      // index = (2 oh + code / 2) IW + 2 (ow0 + lane) + code % 2
      const __m256i row = _mm256_and_si256(_mm256_srai_epi32(_mm256_slli_epi32(ci, 30), 31), iw);
      const __m256i col = _mm256_add_epi32(lane2, _mm256_and_si256(ci, one));
      const __m256i idx = _mm256_add_epi32(
          _mm256_add_epi32(row, col), _mm256_set1_epi32(static_cast<int32_t>(2 * oh * IW + c)));
      StoreIndices8(idx, n, out + oh * OW + ow0);
    }
  }
}

}  // namespace oar::funcs::max_pool_isa
#endif
