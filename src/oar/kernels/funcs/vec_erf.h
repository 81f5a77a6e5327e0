// erf over a contiguous span. SLEEF's float erf costs about 5 ns an element on
// AVX2 (seven times its exp), which made exact gelu six times slower than
// PyTorch's; this float version is two polynomials fitted for it and an inline
// exp, a vector register at a time (16 lanes with AVX-512, else 8):
//   |x| <= 1:  erf(x) = x P(x^2)                       (P degree 5)
//   |x| >  1:  erf(x) = sign(x) (1 - e^(-x^2) Q(|x|))    (Q degree 10, erfc(x) e^(x^2)
//                                                       on [1, 4]; |x| is capped at 4,
//                                                       where erf is 1 in float)
// The coefficients are least-squares fits at Chebyshev nodes (relative weight);
// the maximum error over 300k random floats in [-4.5, 4.5] is 2.2 ulp against
// mpmath. NaN gives NaN, +-inf gives +-1. double keeps SLEEF's 1-ulp erf.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

#include "oar/kernels/funcs/vec_math.h"

namespace oar::funcs {

// Floats in GCC's generic vector type: the compiler maps it onto the SIMD
// registers of the target (one AVX-512 or AVX register, two SSE ones). Plain
// loops would do for the arithmetic, but GCC leaves a loop with float selects
// scalar unless -fno-trapping-math is on, and that flag de-vectorises other
// kernels' selects. Bits move between the float and int views with bit_cast
// (a pointer cast breaks strict aliasing, and GCC then drops the stores).
namespace erf_detail {
#if defined(__AVX512F__)
inline constexpr int kLanes = 16;
#else
inline constexpr int kLanes = 8;
#endif
using VF = float __attribute__((vector_size(kLanes * 4)));
using VI = int32_t __attribute__((vector_size(kLanes * 4)));

inline VF Splat(float v) { return VF{} + v; }

// e^t for t in [-87, 0]: Cephes' expf reduction (e^r 2^n, |r| <= ln2 / 2, r in
// two parts) and its polynomial, about 1 ulp; 2^n is built from the exponent
// bits, which is safe for n in [-126, 0].
inline VF ExpNonPositive(VF t) {
  const VF magic = Splat(12582912.0f);  // 1.5 * 2^23: adding it rounds to an integer
  const VF shifted = t * 1.44269504088896341f + magic;
  const VF n = shifted - magic;
  const VI ni = std::bit_cast<VI>(shifted) - std::bit_cast<VI>(magic);
  const VF r = (t - n * 0.693359375f) + n * 2.12194440e-4f;
  VF p = Splat(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const VI bits = (ni + 127) << 23;
  return p * std::bit_cast<VF>(bits);
}

// e^(-a^2) for a in [0, 9.3].
inline VF ExpOfNegSquare(VF a) { return ExpNonPositive(-a * a); }

inline VF ErfV(VF v) {
  constexpr float P[] = {1.1283791f,    -0.3761232f, 0.11280129f,
                         -0.026709916f, 0.00491598f, -0.00056252064f};
  constexpr float Q[] = {0.9922683f,     -1.0821421f,     0.8737453f,   -0.5418197f,
                         0.2575725f,     -0.09242064f,    0.024437387f, -0.0045944843f,
                         0.00057920045f, -4.3788623e-05f, 1.498171e-06f};
  const VI vi = std::bit_cast<VI>(v);
  const VI abs_bits = vi & 0x7fffffff;
  const VF av = std::bit_cast<VF>(abs_bits);
  const VF ax = av < 4.0f ? av : Splat(4.0f);  // NaN goes to 4 and is restored below
  const VF z = v * v;
  VF p = Splat(P[5]);
  for (int j = 4; j >= 0; --j) p = p * z + P[j];
  VF q = Splat(Q[10]);
  for (int j = 9; j >= 0; --j) q = q * ax + Q[j];
  const VF tail = 1.0f - ExpOfNegSquare(ax) * q;  // in [0.84, 1]: its sign bit is clear
  const VI signed_tail = std::bit_cast<VI>(tail) | (vi & int32_t(0x80000000u));
  const VF y = av <= 1.0f ? v * p : std::bit_cast<VF>(signed_tail);
  return v != v ? v : y;
}

// Note [Exact gelu from the normal tail]
// gelu(x) = x Phi(x). Both halves come from the lower tail T = Phi(-|x|):
// Phi(x) = T for x < 0 and 1 - T otherwise, so there is no 1 + erf(u) to
// cancel for negative x and the result keeps its relative accuracy through
// the tail. With a = |x| / sqrt 2 and t = 1 / (1 + 0.33 a),
//   T = erfc(a) / 2 = e^(-x^2/2) t C(t) / 2,
// C of degree 7 fitted to erfc(a) e^(a^2) / t (relative, minimax-weighted,
// a in [0, 9.5]; 8.3e-8), one division and one exp instead of erf's two
// polynomials. x^2/2 carries its rounding error into the exp (the product's
// FMA remainder; with contraction off it is 0 and costs accuracy only):
// at |x| = 6 one ulp of x^2 is 20 ulp of e^(-x^2/2). Past |x| = 13, T is
// below float's normal range and taken as 0. The same e^(-x^2/2) gives the
// density for the derivative, gelu'(x) = Phi(x) + x e^(-x^2/2) / sqrt(2 pi).
struct NormalTail {
  VF tail;  // Phi(-|x|)
  VF e;     // e^(-x^2/2)
};
inline NormalTail LowerTail(VF x) {
  constexpr float C[] = {0.18636605f, 0.182838f,   0.20191965f, 0.04502333f,
                         0.41251907f, -0.3554155f, 0.462675f,   -0.13592568f};
  const VF ax = std::bit_cast<VF>(std::bit_cast<VI>(x) & 0x7fffffff);
  const auto inside = ax < 13.0f;  // false for NaN, which keeps x's NaN below
  const VF c = inside ? ax : Splat(13.0f);
  const VF sq = c * c;
  const VF sq_err = c * c - sq;
  const VF e = ExpNonPositive(-0.5f * sq) * (1.0f - 0.5f * sq_err);
  const VF t = 1.0f / (1.0f + c * 0.23334524f);  // 0.33 / sqrt 2
  VF r = Splat(C[7]);
  for (int j = 6; j >= 0; --j) r = r * t + C[j];
  return {inside ? 0.5f * e * t * r : VF{}, inside ? e : VF{}};
}
inline VF GeluFromTail(VF v) {
  const NormalTail n = LowerTail(v);
  return v * (v < 0.0f ? n.tail : 1.0f - n.tail);
}

#if defined(__AVX512F__)
// With 16 lanes, the forward takes T from a table instead: 32 intervals of
// [0, 6.5], a degree-6 polynomial each (relative error 1.0e-7, 2e-7 with float coefficients;
// tools/fit_gelu_table.py), the coefficients picked per lane by two-register
// permutes. No exp and no division: 1.5x the throughput of LowerTail (1.8x
// since the clamp and the final FMA replaced two masks), within 4 ulp. A vector with a lane below -6.5 (beyond the table, where gelu is
// under 3e-10 in size) takes LowerTail instead, so the result stays accurate.
alignas(64) inline constexpr float kGeluTable[7][32] = {
    {0.45955196f,     0.380302072f,    0.305792421f,    0.238561481f,    0.180342004f,
     0.131957084f,    0.0933653489f,   0.0638246462f,   0.0421231315f,   0.0268227849f,
     0.016470056f,    0.00974725001f,  0.00555749843f,  0.00305157457f,  0.00161314313f,
     0.000820729125f, 0.000401784491f, 0.00018921429f,  8.57026171e-05f, 3.73280382e-05f,
     1.56317237e-05f, 6.29283386e-06f, 2.43498744e-06f, 9.05538855e-07f, 3.23616916e-07f,
     1.11128955e-07f, 3.66654582e-08f, 1.16221415e-08f, 3.53901797e-09f, 1.03518516e-09f,
     2.90847513e-10f, 7.84874873e-11f},
    {-0.396890044f,    -0.380847692f,    -0.35068205f,     -0.309853822f,    -0.262712866f,
     -0.213740528f,    -0.16686818f,     -0.125009015f,    -0.0898649246f,   -0.0619897991f,
     -0.0410328172f,   -0.0260629486f,   -0.015885355f,    -0.00929076225f,  -0.00521419058f,
     -0.00280804187f,  -0.00145111349f,  -0.000719581963f, -0.000342405139f, -0.00015634406f,
     -6.85020568e-05f, -2.88009614e-05f, -1.1619607e-05f,  -4.49838899e-06f, -1.67110488e-06f,
     -5.95705387e-07f, -2.03770099e-07f, -6.68852707e-08f, -2.10669509e-08f, -6.36728004e-09f,
     -1.84666182e-09f, -5.13927567e-10f},
    {0.020154573f,    0.0580197647f,   0.0890403613f,   0.110143356f,    0.120067984f,
     0.119394124f,    0.110159077f,    0.0952217057f,   0.0775787085f,   0.0598104708f,
     0.0437576547f,   0.0304407105f,   0.020166954f,    0.0127385063f,   0.00767871039f,
     0.00442047231f,  0.00243174867f,  0.00127894443f,  0.000643347099f, 0.000309634488f,
     0.000142623394f, 6.28895796e-05f, 2.6552605e-05f,  1.07363821e-05f, 4.15817522e-06f,
     1.54278189e-06f, 5.48427181e-07f, 1.86808066e-07f, 6.09787705e-08f, 1.90768983e-08f,
     5.72029757e-09f, 1.64415737e-09f},
    {0.0654659197f,    0.0575819053f,    0.0433750451f,    0.025540648f,     0.00720232306f,
     -0.0088383751f,   -0.0206700321f,   -0.0275198892f,   -0.0296706539f,   -0.0281402096f,
     -0.0242701732f,   -0.0193587337f,   -0.0144208493f,   -0.0100953467f,   -0.00666971179f,
     -0.00417118985f,  -0.00247486657f,  -0.00139548338f,  -0.000748789054f, -0.000382754573f,
     -0.000186545469f, -8.67488634e-05f, -3.85139283e-05f, -1.63330242e-05f, -6.61908416e-06f,
     -2.56432577e-06f, -9.5001991e-07f,  -3.36665664e-07f, -1.14150879e-07f, -3.70398503e-08f,
     -1.15041177e-08f, -3.42063822e-09f},
    {-0.00502137933f, -0.014056107f,   -0.0203466285f,  -0.0228965934f,   -0.0216570515f,
     -0.0174303558f,  -0.0115370061f,  -0.00538900774f, -0.000122710626f, 0.00360700698f,
     0.00564792473f,  0.00623167073f,  0.0057926341f,   0.00479770172f,   0.00363128562f,
     0.0025464301f,   0.00166838092f,  0.00102698023f,  0.000596239814f,  0.000327421614f,
     0.000170434228f, 8.42360096e-05f, 3.95831375e-05f, 1.77037291e-05f,  7.54309167e-06f,
     3.06399807e-06f, 1.18728883e-06f, 4.39124278e-07f, 1.55090007e-07f,  5.23264454e-08f,
     1.68714926e-08f, 5.20015497e-09f},
    {-0.00969727524f,  -0.00776583841f,  -0.00443431037f,  -0.00057993416f,  0.00286694057f,
     0.00520532066f,   0.00613322901f,   0.00576052722f,   0.00448900927f,   0.00282976264f,
     0.00123518158f,   -2.60906427e-06f, -0.000773929816f, -0.00111366599f,  -0.00113674148f,
     -0.000977090327f, -0.00074717839f,  -0.000521237263f, -0.000336324592f, -0.00020243504f,
     -0.000114308154f, -6.07952716e-05f, -3.0545234e-05f,  -1.45302865e-05f, -6.55581607e-06f,
     -2.80940208e-06f, -1.144816e-06f,   -4.4402438e-07f,  -1.64049766e-07f, -5.77747592e-08f,
     -1.94065635e-08f, -6.22052765e-09f},
    {0.0008366853f,   0.00226715789f,   0.00308233034f,   0.0031121783f,    0.00243974733f,
     0.00134440837f,  0.000181032286f,  -0.000747606391f, -0.00127468107f,  -0.00138702453f,
     -0.00118635956f, -0.000823950395f, -0.000439962489f, -0.000127474646f, 7.54096618e-05f,
     0.000173448658f, 0.000194356035f,  0.000170951418f,  0.0001301882f,    8.91777891e-05f,
     5.60112858e-05f, 3.26214067e-05f,  1.77448546e-05f,  9.06028799e-06f,  4.3578525e-06f,
     1.97987856e-06f, 8.51434265e-07f,  3.47163876e-07f,  1.34392977e-07f,  4.94495396e-08f,
     1.7310029e-08f,  5.76935788e-09f},
};

inline VF GeluV(VF v) {
  // The width 6.5 / 32 is exact in float; its inverse is not, so the centres
  // are built from the width (an error there moves u, and T with it).
  constexpr float kEnd = 6.5f, kWidth = kEnd / 32.0f, kPerUnit = 32.0f / kEnd;
  const VF t = std::bit_cast<VF>(std::bit_cast<VI>(v) & 0x7fffffff);
  // Clamped below kEnd, the index stays in [0, 31] without a mask. Past the table
  // T(6.5) = 4e-11 vanishes against x; a NaN lane (vminps returns its second
  // operand) is kept by max(0, v) below, which also keeps -0. (The maskz forms with a
  // full mask are plain vminps/vmaxps; GCC 12 warns about the unmasked intrinsics'
  // undefined pass-through operand.)
  const VF tc = std::bit_cast<VF>(_mm512_maskz_min_ps(
      0xffff, std::bit_cast<__m512>(t), _mm512_set1_ps(std::nextafter(kEnd, 0.0f))));
  const VI k = __builtin_convertvector(tc * kPerUnit, VI);
  const VF u = tc - (__builtin_convertvector(k, VF) + 0.5f) * kWidth;
  auto coef = [&](int j) {
    VF lo, hi;
    std::memcpy(&lo, kGeluTable[j], sizeof(VF));
    std::memcpy(&hi, kGeluTable[j] + 16, sizeof(VF));
    return __builtin_shuffle(lo, hi, k);
  };
  VF p = coef(6);
  for (int j = 5; j >= 0; --j) p = p * u + coef(j);
  // gelu = max(x, 0) - |x| T in one FMA, as the AVX2 table below (x (1 - T) for
  // x >= 0, x T below); tc rather than t so that +inf gives inf, not inf - inf.
  const VF pos = std::bit_cast<VF>(
      _mm512_maskz_max_ps(0xffff, _mm512_setzero_ps(), std::bit_cast<__m512>(v)));
  const VF y = pos - tc * p;
  // Whether any lane is past the table, as a mask register: a reduction over
  // the generic vector's lanes compiles to 16 extracts and ORs, which cost more
  // than the rest of the loop together.
  const __mmask16 far =
      _mm512_cmp_ps_mask(std::bit_cast<__m512>(v), _mm512_set1_ps(-kEnd), _CMP_LE_OQ);
  if (far == 0) return y;
  return std::bit_cast<VF>(
      _mm512_mask_blend_ps(far, std::bit_cast<__m512>(y), std::bit_cast<__m512>(GeluFromTail(v))));
}
#elif defined(__AVX2__)
// With 8 lanes the 32-interval table would cost four permutes and three blends
// per coefficient. Instead: 8 intervals of [0, 4], a degree-7 polynomial each in
// the interval's unit coordinate y in [-1/2, 1/2] (`tools/fit_gelu_table.py 8 4.0 7
// unit`, relative error 2.0e-7), one vpermps per coefficient, no exp and no division.
// The width 0.5 makes a = 2|x| - 1/2 exact (but below |x| = 1/8, where its rounding
// moves T by under 1e-8 relative), its nearest integer the interval k and a - k the
// exact coordinate, with no clamp: |x| < 4 keeps a under 7.5. A tie (|x| a multiple of
// 1/2) lands on the neighbouring interval's end, inside its fit.
// gelu = max(x, 0) - |x| T: x (1 - T) for x >= 0 and x T below, in one FMA.
// A vector with a lane at |x| >= 4 or NaN (0.05% of 8-lane vectors of standard-normal
// inputs) takes LowerTail whole, so wide inputs cost what they did before.
alignas(32) inline constexpr float kGeluTable8[8][8] = {
    {0.401293665f, 0.22662735f, 0.105649777f, 0.0400591567f, 0.0122244731f, 0.00297976332f,
     0.000577025057f, 8.84172841e-05f},
    {-0.193334058f, -0.150568724f, -0.0913245454f, -0.043138653f, -0.0158698261f, -0.00454678107f,
     -0.00101452402f, -0.000176297835f},
    {0.0120833823f, 0.0282316357f, 0.02853892f, 0.0188731514f, 0.00892677717f, 0.00312591251f,
     0.000824301562f, 0.000165279111f},
    {0.00755211757f, 0.00274476968f, -0.00214041909f, -0.00370728504f, -0.00268630031f,
     -0.00124326011f, -0.00040422607f, -9.59536774e-05f},
    {-0.000739588926f, -0.00143357902f, -0.000854694459f, 2.48158267e-05f, 0.000383579085f,
     0.000297105726f, 0.000129862194f, 3.80928759e-05f},
    {-0.000264512346f, 4.37168501e-06f, 0.00018709802f, 0.000134560207f, 1.44242431e-05f,
     -3.50351984e-05f, -2.70184337e-05f, -1.06881134e-05f},
    {3.05277135e-05f, 4.69641564e-05f, 9.10624021e-06f, -2.10703747e-05f, -1.55142861e-05f,
     -1.84039482e-06f, 2.992801e-06f, 2.06664572e-06f},
    {5.99076975e-06f, -2.19051367e-06f, -6.32906585e-06f, -2.31796704e-07f, 2.15289219e-06f,
     1.19114316e-06f, 1.58858082e-08f, -2.28763298e-07f},
};

inline VF GeluV(VF v) {
  constexpr float kEnd = 4.0f;
  const VF t = std::bit_cast<VF>(std::bit_cast<VI>(v) & 0x7fffffff);
  const VI inside = t < kEnd;  // false for NaN and +-inf
  if (_mm256_movemask_ps(std::bit_cast<__m256>(inside)) != 0xff) return GeluFromTail(v);
  const VF a = t * 2.0f - 0.5f;
  const __m256 kf =
      _mm256_round_ps(std::bit_cast<__m256>(a), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const VI k = std::bit_cast<VI>(_mm256_cvtps_epi32(kf));
  const VF y = a - std::bit_cast<VF>(kf);
  auto coef = [&](int j) {
    VF row;
    std::memcpy(&row, kGeluTable8[j], sizeof(VF));
    return __builtin_shuffle(row, k);
  };
  VF p = coef(7);
  for (int j = 6; j >= 0; --j) p = p * y + coef(j);
  const VF pos = v >= 0.0f ? v : VF{};  // -0 keeps its sign
  return pos - t * p;
}
#else
inline VF GeluV(VF v) { return GeluFromTail(v); }
#endif
inline VF GeluGradV(VF v, VF g) {
  const NormalTail n = LowerTail(v);
  const VF phi = v < 0.0f ? n.tail : 1.0f - n.tail;
  return g * (phi + v * 0.39894228040143268f * n.e);
}

// y = f(x lanes, g lanes) over a span of n floats (g may be null), the tail in a
// zero-padded vector: the same bits as a full one.
template <typename F>
void MapV(const float* x, const float* g, float* y, int64_t n, F f) {
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    VF v, w = {};
    std::memcpy(&v, x + i, sizeof(VF));
    if (g != nullptr) std::memcpy(&w, g + i, sizeof(VF));
    v = f(v, w);
    std::memcpy(y + i, &v, sizeof(VF));
  }
  if (i < n) {
    const size_t bytes = sizeof(float) * static_cast<size_t>(n - i);
    VF v = {}, w = {};
    std::memcpy(&v, x + i, bytes);
    if (g != nullptr) std::memcpy(&w, g + i, bytes);
    v = f(v, w);
    std::memcpy(y + i, &v, bytes);
  }
}
}  // namespace erf_detail

// y[i] = erf(x[i]) for i < n; y == x is allowed.
template <typename C>
void ErfSpan(const C* x, C* y, int64_t n) {
  if constexpr (!std::is_same_v<C, float>) {
    vec::Apply(vec::Fn::kErf, x, y, n);
  } else {
    erf_detail::MapV(x, nullptr, y, n, [](auto v, auto) { return erf_detail::ErfV(v); });
  }
}

// The exact gelu (and, with g, g times its derivative) over a span of floats.
inline void GeluSpan(const float* x, float* y, int64_t n) {
  erf_detail::MapV(x, nullptr, y, n, [](auto v, auto) { return erf_detail::GeluV(v); });
}
inline void GeluGradSpan(const float* x, const float* g, float* y, int64_t n) {
  erf_detail::MapV(x, g, y, n, [](auto v, auto w) { return erf_detail::GeluGradV(v, w); });
}

}  // namespace oar::funcs
