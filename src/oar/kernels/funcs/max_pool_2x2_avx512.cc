// The 2x2 max pool of max_pool_2x2.h at AVX-512 (x86-64-v4): sixteen outputs
// a step. Built with -march=x86-64-v4 (CMakeLists.txt) and called only when
// dispatch allows that level (max_pool_2x2.cc). Nothing from the rest of the
// library is included: an inline function compiled here could be linked in for
// everyone (the same rule as vec_math_isa.h).
#if defined(__x86_64__)
#include <immintrin.h>

#include <cstdint>
#include <type_traits>

#include "oar/kernels/funcs/max_pool_isa.h"

namespace oar::funcs::max_pool_isa {
namespace {

// bfloat16 and float16 elements as their bits (the types' own headers stay out).
struct Bf16Bits {
  uint16_t bits;
};
struct F16Bits {
  uint16_t bits;
};

// GCC 12's AVX-512 intrinsics start some results from _mm512_undefined_*(),
// then warn that it "may be used uninitialized" wherever they are inlined.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

template <typename T>
__m512 LoadAsFloat(const T* p, __mmask16 m) {
  if constexpr (std::is_same_v<T, float>) {
    return _mm512_maskz_loadu_ps(m, p);
  } else if constexpr (std::is_same_v<T, Bf16Bits>) {
    // bfloat16 is the high half of a float: widen and shift.
    const __m512i w = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
  } else {
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, p));
  }
}

__mmask16 FirstLanes(int64_t n) { return n >= 16 ? __mmask16(0xffff) : __mmask16((1u << n) - 1u); }

// v replaces best when larger, or when it is a NaN (pooling_kernels.cc's TakesOver,
// lane-wise: a later NaN takes over).
__mmask16 TakesOver(__m512 v, __m512 best) {
  const __mmask16 gt = _mm512_cmp_ps_mask(v, best, _CMP_GT_OQ);
  const __mmask16 v_nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  return gt | v_nan;
}

// out[oh * OW + ow] = the flat index (into the plane) of the maximum of the
// window whose top-left element is plane[2 oh * IW + 2 ow] (max_pool_2x2.h).
template <typename T>
void Plane(const void* plane_in, int64_t IW, int64_t OH, int64_t OW, int64_t* out) {
  const T* plane = static_cast<const T*>(plane_in);
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

}  // namespace

void Avx512F32(const void* p, int64_t iw, int64_t oh, int64_t ow, int64_t* out) {
  Plane<float>(p, iw, oh, ow, out);
}
void Avx512Bf16(const void* p, int64_t iw, int64_t oh, int64_t ow, int64_t* out) {
  Plane<Bf16Bits>(p, iw, oh, ow, out);
}
void Avx512F16(const void* p, int64_t iw, int64_t oh, int64_t ow, int64_t* out) {
  Plane<F16Bits>(p, iw, oh, ow, out);
}

}  // namespace oar::funcs::max_pool_isa
#endif
