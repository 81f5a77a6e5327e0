// vec_math at 256 bits (AVX2 + FMA). Built for x86-64-v3 (-march=x86-64-v3,
// CMakeLists.txt, not the building CPU's wider ISA) and only called when the
// CPU has that level (vec_math.cc).
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
  using V = __m256;
  static constexpr int W = 8;
  static V Load(const S* p) { return _mm256_loadu_ps(p); }
  static void Store(S* p, V v) { _mm256_storeu_ps(p, v); }
  static V Set(S s) { return _mm256_set1_ps(s); }
  static V Zero() { return _mm256_setzero_ps(); }
  static V Add(V a, V b) { return _mm256_add_ps(a, b); }
  static V Sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V Div(V a, V b) { return _mm256_div_ps(a, b); }
  static V Max(V a, V b) { return _mm256_max_ps(a, b); }
  static V Or(V a, V b) { return _mm256_or_ps(a, b); }
  static V Unordered(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_UNORD_Q); }
  static V SelectGreater(V x, V t, V a, V b) {
    return _mm256_blendv_ps(b, a, _mm256_cmp_ps(x, t, _CMP_GT_OQ));
  }
  static V Mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V MulAdd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V Min(V a, V b) { return _mm256_min_ps(a, b); }
  // x = m * 2^e with m in [1, 2), for positive normal x only.
  static V SplitExponent(V x, V* e) {
    const __m256i b = _mm256_castps_si256(x);
    *e = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_srli_epi32(b, 23), _mm256_set1_epi32(127)));
    return _mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(b, _mm256_set1_epi32(0x007fffff)),
                                               _mm256_set1_epi32(0x3f800000)));
  }
  static V InRange(V x, V lo, V hi) {
    return _mm256_and_ps(_mm256_cmp_ps(x, lo, _CMP_GE_OQ), _mm256_cmp_ps(x, hi, _CMP_LE_OQ));
  }
  static bool AllInRange(V x, V lo, V hi) { return _mm256_movemask_ps(InRange(x, lo, hi)) == 0xFF; }
  // p * 2^n for integer-valued n in [-252, 254], in two exact steps so that
  // subnormal and overflowing results round once.
  static V ScaleByPow2(V p, V n) {
    const __m256i k = _mm256_cvtps_epi32(n), h = _mm256_srai_epi32(k, 1);
    const __m256i bias = _mm256_set1_epi32(127);
    const V s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(h, bias), 23));
    const V s2 =
        _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(k, h), bias), 23));
    return _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
  }
  static V SelectInRange(V x, V lo, V hi, V a, V b) {
    return _mm256_blendv_ps(b, a, InRange(x, lo, hi));
  }
};
struct OpsD {
  using S = double;
  using V = __m256d;
  static constexpr int W = 4;
  static V Load(const S* p) { return _mm256_loadu_pd(p); }
  static void Store(S* p, V v) { _mm256_storeu_pd(p, v); }
  static V Set(S s) { return _mm256_set1_pd(s); }
  static V Zero() { return _mm256_setzero_pd(); }
  static V Add(V a, V b) { return _mm256_add_pd(a, b); }
  static V Sub(V a, V b) { return _mm256_sub_pd(a, b); }
  static V Div(V a, V b) { return _mm256_div_pd(a, b); }
  static V Max(V a, V b) { return _mm256_max_pd(a, b); }
  static V Or(V a, V b) { return _mm256_or_pd(a, b); }
  static V Unordered(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_UNORD_Q); }
  static V SelectGreater(V x, V t, V a, V b) {
    return _mm256_blendv_pd(b, a, _mm256_cmp_pd(x, t, _CMP_GT_OQ));
  }
  static V Mul(V a, V b) { return _mm256_mul_pd(a, b); }
  static V MulAdd(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  static V Min(V a, V b) { return _mm256_min_pd(a, b); }
};
#define OAR_SF(name, acc) Sleef_##name##f8_##acc##avx2
#define OAR_SD(name, acc) Sleef_##name##d4_##acc##avx2
#include "oar/kernels/funcs/vec_math_isa.inc"
#undef OAR_SF
#undef OAR_SD

}  // namespace

const Table& TableAvx2() {
  static const Table t = MakeTable("avx2");
  return t;
}

}  // namespace oar::vec::detail
#endif
