// The argmax of 2x2 windows at stride 2 without padding, the pool of nearly
// every CNN, sixteen outputs at a time with AVX-512. The generic row kernel
// (pooling_kernels.cc, MaxPoolRow) loads each candidate at stride 2 and keeps
// 64-bit indices in its selects, which the compiler leaves at a few lanes per
// instruction; here the two input rows of a window row are read contiguously
// (masked at the row's end, so a row of 7 or 14 outputs still takes one
// step), the four candidates of each window are split out by even/odd
// permutes, and the winner is kept as a 2-bit code in 32-bit lanes, turned
// into an index only at the store. float16/bfloat16 rows are widened to float
// in the load: the half-size input is what makes the low-precision pool
// cheaper than float32's, as it should be. With AVX2 (float only), eight
// outputs a step: the even/odd split is an in-lane shuffle, which leaves the
// outputs in the order 0 1 4 5 | 2 3 6 7; the comparisons do not mind, and only
// the winners' codes are put back in order, by one 64-bit permute.
#pragma once

#include <cstdint>
#include <type_traits>

#include "oar/core/dtype.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)
#include <immintrin.h>
#define OAR_MAX_POOL_2X2_SIMD 1
#elif defined(__AVX2__)
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#define OAR_MAX_POOL_2X2_AVX2 1
#endif

namespace oar::funcs {

// Whether MaxPool2x2Plane handles T on this build.
template <typename T>
constexpr bool kMaxPool2x2Simd =
#if defined(OAR_MAX_POOL_2X2_SIMD)
    std::is_same_v<T, float> || std::is_same_v<T, bfloat16> || std::is_same_v<T, float16>;
#elif defined(OAR_MAX_POOL_2X2_AVX2)
    std::is_same_v<T, float>;
#else
    false;
#endif

#if defined(OAR_MAX_POOL_2X2_SIMD)
// GCC 12's AVX-512 intrinsics start some results from _mm512_undefined_*(),
// then warn that it "may be used uninitialized" wherever they are inlined.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
namespace max_pool_detail {

template <typename T>
inline __m512 LoadAsFloat(const T* p, __mmask16 m) {
  if constexpr (std::is_same_v<T, float>) {
    return _mm512_maskz_loadu_ps(m, p);
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    // bfloat16 is the high half of a float: widen and shift.
    const __m512i w = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
  } else {
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, p));
  }
}

inline __mmask16 FirstLanes(int64_t n) {
  return n >= 16 ? __mmask16(0xffff) : __mmask16((1u << n) - 1u);
}

// v replaces best when larger, or when it is a NaN (pooling_kernels.cc's TakesOver,
// lane-wise: a later NaN takes over).
inline __mmask16 TakesOver(__m512 v, __m512 best) {
  const __mmask16 gt = _mm512_cmp_ps_mask(v, best, _CMP_GT_OQ);
  const __mmask16 v_nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  return gt | v_nan;
}

}  // namespace max_pool_detail

// out[oh * OW + ow] = the flat index (into the plane) of the maximum of the
// window whose top-left element is plane[2 oh * IW + 2 ow], for oh < OH and
// ow < OW; needs 2 OH <= IH, 2 OW <= IW and IH * IW < 2^31. Ties keep the first
// element in row-major order, and a NaN wins (the last of several), as in the generic kernel.
template <typename T>
void MaxPool2x2Plane(const T* plane, int64_t IW, int64_t OH, int64_t OW, int64_t* out) {
  using namespace max_pool_detail;
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  const __m512i lane2 = even;  // 2 * lane
  const __m512i iw = _mm512_set1_epi32(static_cast<int32_t>(IW));
  for (int64_t oh = 0; oh < OH; ++oh) {
    const T* r0 = plane + 2 * oh * IW;
    const T* r1 = r0 + IW;
    for (int64_t ow0 = 0; ow0 < OW; ow0 += 16) {
      const int64_t n = OW - ow0 < 16 ? OW - ow0 : 16;  // outputs in this step
      const __mmask16 m_lo = FirstLanes(2 * n), m_hi = FirstLanes(2 * n - 16 > 0 ? 2 * n - 16 : 0);
      const int64_t c = 2 * ow0;
      const __m512 a_lo = LoadAsFloat(r0 + c, m_lo), a_hi = LoadAsFloat(r0 + c + 16, m_hi);
      const __m512 b_lo = LoadAsFloat(r1 + c, m_lo), b_hi = LoadAsFloat(r1 + c + 16, m_hi);
      // The window's elements in row-major order: (0,0) (0,1) (1,0) (1,1).
      const __m512 cand[4] = {
          _mm512_permutex2var_ps(a_lo, even, a_hi), _mm512_permutex2var_ps(a_lo, odd, a_hi),
          _mm512_permutex2var_ps(b_lo, even, b_hi), _mm512_permutex2var_ps(b_lo, odd, b_hi)};
      __m512 best = cand[0];
      __m512i code = _mm512_setzero_si512();
      for (int k = 1; k < 4; ++k) {
        const __mmask16 take = TakesOver(cand[k], best);
        best = _mm512_mask_mov_ps(best, take, cand[k]);
        code = _mm512_mask_mov_epi32(code, take, _mm512_set1_epi32(k));
      }
      // index = (2 oh + code / 2) IW + 2 (ow0 + lane) + code % 2
      const __m512i row = _mm512_mullo_epi32(_mm512_srli_epi32(code, 1), iw);
      const __m512i col = _mm512_add_epi32(lane2, _mm512_and_si512(code, _mm512_set1_epi32(1)));
      const __m512i idx = _mm512_add_epi32(
          _mm512_add_epi32(row, col), _mm512_set1_epi32(static_cast<int32_t>(2 * oh * IW + c)));
      const __m512i lo = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(idx));
      const __m512i hi = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(idx, 1));
      const __mmask16 m_out = FirstLanes(n);
      int64_t* o = out + oh * OW + ow0;
      _mm512_mask_storeu_epi64(o, static_cast<__mmask8>(m_out & 0xff), lo);
      _mm512_mask_storeu_epi64(o + 8, static_cast<__mmask8>(m_out >> 8), hi);
    }
  }
}
#pragma GCC diagnostic pop
#elif defined(OAR_MAX_POOL_2X2_AVX2)
namespace max_pool_detail {

// The first n lanes (n clamped to [0, 8]) as a maskload mask.
inline __m256i FirstLanes8(int64_t n) {
  const int32_t k = static_cast<int32_t>(std::clamp<int64_t>(n, 0, 8));
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// As the AVX-512 TakesOver: v wins when larger, or when it is a NaN.
inline __m256 TakesOver8(__m256 v, __m256 best) {
  const __m256 gt = _mm256_cmp_ps(v, best, _CMP_GT_OQ);
  const __m256 v_nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
  return _mm256_or_ps(gt, v_nan);
}

}  // namespace max_pool_detail

// The contract of the AVX-512 version above, for float.
template <typename T>
void MaxPool2x2Plane(const T* plane, int64_t IW, int64_t OH, int64_t OW, int64_t* out) {
  static_assert(std::is_same_v<T, float>);
  using namespace max_pool_detail;
  const __m256i lane2 = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);  // 2 * output lane
  const __m256i iw = _mm256_set1_epi32(static_cast<int32_t>(IW));
  const __m256i one = _mm256_set1_epi32(1);
  for (int64_t oh = 0; oh < OH; ++oh) {
    const float* r0 = plane + 2 * oh * IW;
    const float* r1 = r0 + IW;
    for (int64_t ow0 = 0; ow0 < OW; ow0 += 8) {
      const int64_t n = std::min<int64_t>(OW - ow0, 8);  // outputs in this step
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
      const __m256i lo = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(idx));
      const __m256i hi = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(idx, 1));
      int64_t* o = out + oh * OW + ow0;
      if (n == 8) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(o), lo);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + 4), hi);
      } else {
        alignas(32) int64_t tmp[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(tmp), lo);
        _mm256_store_si256(reinterpret_cast<__m256i*>(tmp + 4), hi);
        std::memcpy(o, tmp, sizeof(int64_t) * static_cast<size_t>(n));
      }
    }
  }
}
#else
// Declared on every build so that callers guard with kMaxPool2x2Simd<T> alone: a
// qualified name is looked up even in a discarded `if constexpr` branch. Never
// defined here, and never called, since kMaxPool2x2Simd is false for every T.
template <typename T>
void MaxPool2x2Plane(const T* plane, int64_t IW, int64_t OH, int64_t OW, int64_t* out);
#endif

}  // namespace oar::funcs
