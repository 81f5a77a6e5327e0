// vec_math at 128 bits: SSE2, the x86-64 baseline. Built for plain x86-64
// (-march=x86-64, CMakeLists.txt), and calling SLEEF's SSE2 functions rather
// than its dispatchers (which would pick SSE4.1 or AVX2-in-128-bit on a newer
// CPU): under OAR_MAX_CPU_ISA=sse2 a new machine computes what an old one does
// (Note [One cap on the dispatched ISA] in core/cpu_isa.h).
#if defined(__x86_64__)
#include <immintrin.h>
#include <sleef.h>

#include <cstdint>
#include <cstring>

#include "oar/kernels/funcs/vec_math_isa.h"

namespace oar::vec::detail {
namespace {

struct OpsF {
  using S = float;
  using V = __m128;
  static constexpr int W = 4;
  static V Load(const S* p) { return _mm_loadu_ps(p); }
  static void Store(S* p, V v) { _mm_storeu_ps(p, v); }
  static V Set(S s) { return _mm_set1_ps(s); }
  static V Zero() { return _mm_setzero_ps(); }
  static V Add(V a, V b) { return _mm_add_ps(a, b); }
  static V Sub(V a, V b) { return _mm_sub_ps(a, b); }
  static V Div(V a, V b) { return _mm_div_ps(a, b); }
  static V Max(V a, V b) { return _mm_max_ps(a, b); }
  static V Or(V a, V b) { return _mm_or_ps(a, b); }
  static V Unordered(V a, V b) { return _mm_cmpunord_ps(a, b); }
  static V SelectGreater(V x, V t, V a, V b) {
    const V m = _mm_cmpgt_ps(x, t);
    return _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b));
  }
  static V Mul(V a, V b) { return _mm_mul_ps(a, b); }
  static V MulAdd(V a, V b, V c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
  static V Min(V a, V b) { return _mm_min_ps(a, b); }
  // x = m * 2^e with m in [1, 2), for positive normal x only.
  static V SplitExponent(V x, V* e) {
    const __m128i b = _mm_castps_si128(x);
    *e = _mm_cvtepi32_ps(_mm_sub_epi32(_mm_srli_epi32(b, 23), _mm_set1_epi32(127)));
    return _mm_castsi128_ps(
        _mm_or_si128(_mm_and_si128(b, _mm_set1_epi32(0x007fffff)), _mm_set1_epi32(0x3f800000)));
  }
  static V InRange(V x, V lo, V hi) { return _mm_and_ps(_mm_cmpge_ps(x, lo), _mm_cmple_ps(x, hi)); }
  static bool AllInRange(V x, V lo, V hi) { return _mm_movemask_ps(InRange(x, lo, hi)) == 0xF; }
  // p * 2^n for integer-valued n in [-252, 254], in two exact steps so that
  // subnormal and overflowing results round once.
  static V ScaleByPow2(V p, V n) {
    const __m128i k = _mm_cvtps_epi32(n), h = _mm_srai_epi32(k, 1);
    const __m128i bias = _mm_set1_epi32(127);
    const V s1 = _mm_castsi128_ps(_mm_slli_epi32(_mm_add_epi32(h, bias), 23));
    const V s2 = _mm_castsi128_ps(_mm_slli_epi32(_mm_add_epi32(_mm_sub_epi32(k, h), bias), 23));
    return _mm_mul_ps(_mm_mul_ps(p, s1), s2);
  }
  static V SelectInRange(V x, V lo, V hi, V a, V b) {
    const V m = InRange(x, lo, hi);
    return _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b));
  }
};
struct OpsD {
  using S = double;
  using V = __m128d;
  static constexpr int W = 2;
  static V Load(const S* p) { return _mm_loadu_pd(p); }
  static void Store(S* p, V v) { _mm_storeu_pd(p, v); }
  static V Set(S s) { return _mm_set1_pd(s); }
  static V Zero() { return _mm_setzero_pd(); }
  static V Add(V a, V b) { return _mm_add_pd(a, b); }
  static V Sub(V a, V b) { return _mm_sub_pd(a, b); }
  static V Div(V a, V b) { return _mm_div_pd(a, b); }
  static V Max(V a, V b) { return _mm_max_pd(a, b); }
  static V Or(V a, V b) { return _mm_or_pd(a, b); }
  static V Unordered(V a, V b) { return _mm_cmpunord_pd(a, b); }
  static V SelectGreater(V x, V t, V a, V b) {
    const V m = _mm_cmpgt_pd(x, t);
    return _mm_or_pd(_mm_and_pd(m, a), _mm_andnot_pd(m, b));
  }
  static V Mul(V a, V b) { return _mm_mul_pd(a, b); }
  static V MulAdd(V a, V b, V c) { return _mm_add_pd(_mm_mul_pd(a, b), c); }
  static V Min(V a, V b) { return _mm_min_pd(a, b); }
};
#define OAR_SF(name, acc) Sleef_##name##f4_##acc##sse2
#define OAR_SD(name, acc) Sleef_##name##d2_##acc##sse2
#include "oar/kernels/funcs/vec_math_isa.inc"
#undef OAR_SF
#undef OAR_SD

}  // namespace

const Table& TableSse2() {
  static const Table t = MakeTable("sse2");
  return t;
}

}  // namespace oar::vec::detail
#endif
