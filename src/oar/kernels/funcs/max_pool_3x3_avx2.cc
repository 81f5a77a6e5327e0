// The 3x3 stride-2 max pool run of max_pool_3x3.h at AVX2 (x86-64-v3), float
// only: eight outputs a step. Each window row is four loads (columns c..c+15 and
// c+2..c+16, the last masked so no column past the windows is read) split into
// even and odd columns by in-lane shuffles, which leave the outputs in the order
// 0 1 4 5 | 2 3 6 7; the comparisons do not mind, and only the winners' offsets
// are put back in order, by one 64-bit permute (or the maxima, when only they
// are wanted). Built with -march=x86-64-v3 (CMakeLists.txt), called only when
// dispatch allows that level (max_pool_3x3.cc); nothing from the rest of the
// library is included.
#if defined(__x86_64__)
#include <immintrin.h>

#include <cstdint>

#include "oar/kernels/funcs/max_pool_avx2.h"
#include "oar/kernels/funcs/max_pool_isa.h"

namespace oar::funcs::max_pool_isa {

namespace {

template <bool kIndex>
void Run(const float* plane, int64_t IW, int64_t row0, int64_t rows, int64_t col0, int64_t n,
         int64_t* index, float* values) {
  const __m256i lane2 = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);  // 2 * output lane
  for (int64_t ow0 = 0; ow0 < n; ow0 += 8) {
    const int64_t m = n - ow0 < 8 ? n - ow0 : 8;  // outputs in this step
    const int64_t c = col0 + 2 * ow0;
    const int64_t cols = 2 * m + 1;  // the step's windows cover columns [c, c + cols)
    const __m256i m_a = FirstLanes8(cols), m_b = FirstLanes8(cols - 8);
    const __m256i m_c = FirstLanes8(cols - 2), m_d = FirstLanes8(cols - 10);
    __m256 best = _mm256_setzero_ps();
    __m256i off = _mm256_setzero_si256();  // the winner's offset from (row0, c)
    for (int64_t r = 0; r < rows; ++r) {
      const float* p = plane + (row0 + r) * IW + c;
      __m256 a, b, cc;
      if (m == 8) {
        a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8), cc = _mm256_loadu_ps(p + 2);
      } else {
        a = _mm256_maskload_ps(p, m_a), b = _mm256_maskload_ps(p + 8, m_b);
        cc = _mm256_maskload_ps(p + 2, m_c);
      }
      const __m256 d = _mm256_maskload_ps(p + 10, m_d);
      // The window row's three columns: 2k, 2k + 1 and 2k + 2 for output k.
      const __m256 cand[3] = {_mm256_shuffle_ps(a, b, 0x88), _mm256_shuffle_ps(a, b, 0xDD),
                              _mm256_shuffle_ps(cc, d, 0x88)};
      if (r == 0) best = cand[0];  // the window's first element, offset 0
      for (int j = r == 0 ? 1 : 0; j < 3; ++j) {
        const __m256 take = TakesOver8(cand[j], best);
        best = _mm256_blendv_ps(best, cand[j], take);
        if constexpr (kIndex) {
          const __m256i at = _mm256_set1_epi32(static_cast<int32_t>(r * IW + j));
          off = _mm256_castps_si256(
              _mm256_blendv_ps(_mm256_castsi256_ps(off), _mm256_castsi256_ps(at), take));
        }
      }
    }
    if constexpr (!kIndex) {
      const __m256 ordered = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(best), 0xD8));
      _mm256_maskstore_ps(values + ow0, FirstLanes8(m), ordered);
      continue;
    }
    const __m256i ordered = _mm256_permute4x64_epi64(off, 0xD8);
    const __m256i idx = _mm256_add_epi32(_mm256_add_epi32(ordered, lane2),
                                         _mm256_set1_epi32(static_cast<int32_t>(row0 * IW + c)));
    StoreIndices8(idx, m, index + ow0);
  }
}

}  // namespace

void Avx2F32Run3x3(const void* plane, int64_t IW, int64_t row0, int64_t rows, int64_t col0,
                   int64_t n, int64_t* index, void* values) {
  const float* p = static_cast<const float*>(plane);
  if (index != nullptr) return Run<true>(p, IW, row0, rows, col0, n, index, nullptr);
  Run<false>(p, IW, row0, rows, col0, n, nullptr, static_cast<float*>(values));
}

}  // namespace oar::funcs::max_pool_isa
#endif
