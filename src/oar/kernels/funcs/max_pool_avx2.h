// Lane helpers shared by the AVX2 max pool units (max_pool_2x2_avx2.cc,
// max_pool_3x3_avx2.cc). Include only from units built with -march=x86-64-v3:
// the library itself is not.
#pragma once

#if defined(__x86_64__)
#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace oar::funcs::max_pool_isa {

// The first n lanes (n clamped to [0, 8]) as a maskload mask.
inline __m256i FirstLanes8(int64_t n) {
  const int32_t k = static_cast<int32_t>(n < 0 ? 0 : n > 8 ? 8 : n);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// v wins over best when larger, or when it is a NaN (pooling_kernels.cc's
// TakesOver, lane-wise: a later NaN takes over).
inline __m256 TakesOver8(__m256 v, __m256 best) {
  const __m256 gt = _mm256_cmp_ps(v, best, _CMP_GT_OQ);
  const __m256 v_nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
  return _mm256_or_ps(gt, v_nan);
}

// Stores the first n (1 to 8) of idx's eight 32-bit indices as int64 at out.
inline void StoreIndices8(__m256i idx, int64_t n, int64_t* out) {
  const __m256i lo = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(idx));
  const __m256i hi = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(idx, 1));
  if (n == 8) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), lo);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 4), hi);
    return;
  }
  alignas(32) int64_t tmp[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(tmp), lo);
  _mm256_store_si256(reinterpret_cast<__m256i*>(tmp + 4), hi);
  std::memcpy(out, tmp, sizeof(int64_t) * static_cast<size_t>(n));
}

}  // namespace oar::funcs::max_pool_isa
#endif
