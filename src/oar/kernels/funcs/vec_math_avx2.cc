// vec_math at 256 bits (AVX2 + FMA). Built with -mavx2 -mfma (CMakeLists.txt)
// and only called when the CPU reports both (vec_math.cc).
#if defined(__x86_64__)
#include <immintrin.h>
#include <sleef.h>

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
  static V SelectGreater(V x, V t, V a, V b) {
    return _mm256_blendv_ps(b, a, _mm256_cmp_ps(x, t, _CMP_GT_OQ));
  }
  static V Mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V MulAdd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V Min(V a, V b) { return _mm256_min_ps(a, b); }
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
