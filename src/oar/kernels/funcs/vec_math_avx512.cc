// vec_math at 512 bits (AVX-512). Built for x86-64-v4 (-march=x86-64-v4,
// CMakeLists.txt) and only called when the CPU has that level (vec_math.cc).
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
  using V = __m512;
  static constexpr int W = 16;
  static V Load(const S* p) { return _mm512_loadu_ps(p); }
  static void Store(S* p, V v) { _mm512_storeu_ps(p, v); }
  static V Set(S s) { return _mm512_set1_ps(s); }
  static V Zero() { return _mm512_setzero_ps(); }
  static V Add(V a, V b) { return _mm512_add_ps(a, b); }
  static V Sub(V a, V b) { return _mm512_sub_ps(a, b); }
  static V Div(V a, V b) { return _mm512_div_ps(a, b); }
  // The masked form: GCC 12 warns about the unmasked one's undefined source.
  static V Max(V a, V b) { return _mm512_mask_max_ps(b, 0xFFFF, a, b); }
  static V SelectGreater(V x, V t, V a, V b) {
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, t, _CMP_GT_OQ), b, a);
  }
  static V Mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V MulAdd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V Min(V a, V b) { return _mm512_mask_min_ps(b, 0xFFFF, a, b); }
  static __mmask16 NaNMask(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q); }
  // x = m * 2^e with m in [1, 2), for positive normal x only.
  static V SplitExponent(V x, V* e) {
    // Masked forms, as for Max: GCC 12 warns about the unmasked ones' undefined source.
    *e = _mm512_mask_getexp_ps(x, 0xFFFF, x);
    return _mm512_mask_getmant_ps(x, 0xFFFF, x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src);
  }
  static __mmask16 InRange(V x, V lo, V hi) {
    return _mm512_cmp_ps_mask(x, lo, _CMP_GE_OQ) & _mm512_cmp_ps_mask(x, hi, _CMP_LE_OQ);
  }
  static bool AllInRange(V x, V lo, V hi) { return InRange(x, lo, hi) == 0xFFFF; }
  // p * 2^n for integer-valued n, rounded once (subnormal and overflowing too).
  static V ScaleByPow2(V p, V n) { return _mm512_mask_scalef_ps(p, 0xFFFF, p, n); }
  static V SelectInRange(V x, V lo, V hi, V a, V b) {
    return _mm512_mask_blend_ps(InRange(x, lo, hi), b, a);
  }
};
struct OpsD {
  using S = double;
  using V = __m512d;
  static constexpr int W = 8;
  static V Load(const S* p) { return _mm512_loadu_pd(p); }
  static void Store(S* p, V v) { _mm512_storeu_pd(p, v); }
  static V Set(S s) { return _mm512_set1_pd(s); }
  static V Zero() { return _mm512_setzero_pd(); }
  static V Add(V a, V b) { return _mm512_add_pd(a, b); }
  static V Sub(V a, V b) { return _mm512_sub_pd(a, b); }
  static V Div(V a, V b) { return _mm512_div_pd(a, b); }
  static V Max(V a, V b) { return _mm512_mask_max_pd(b, 0xFF, a, b); }
  static V SelectGreater(V x, V t, V a, V b) {
    return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x, t, _CMP_GT_OQ), b, a);
  }
  static V Mul(V a, V b) { return _mm512_mul_pd(a, b); }
  static V MulAdd(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  static V Min(V a, V b) { return _mm512_mask_min_pd(b, 0xFF, a, b); }
  static __mmask8 NaNMask(V a, V b) { return _mm512_cmp_pd_mask(a, b, _CMP_UNORD_Q); }
};
#define OAR_SF(name, acc) Sleef_##name##f16_##acc##avx512f
#define OAR_SD(name, acc) Sleef_##name##d8_##acc##avx512f
#include "oar/kernels/funcs/vec_math_isa.inc"
#undef OAR_SF
#undef OAR_SD

}  // namespace

const Table& TableAvx512() {
  static const Table t = MakeTable("avx512");
  return t;
}

}  // namespace oar::vec::detail
#endif
