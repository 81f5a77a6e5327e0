// Vectorised math over contiguous spans, for any kernel that applies a
// transcendental function elementwise (exp, log, tanh, erf, ... and the fused
// activations built on them).
//
// API (namespace oar::vec):
//   Apply(Fn::kExp, x, y, n)       y[i] = exp(x[i]) for i < n; float or double.
//                                  x == y (in place) is allowed; other overlap is not.
//   ExpSubSum(x, shift, y, n)      y[i] = exp(x[i] - shift), returns the sum of y
//                                  (softmax's middle pass in one sweep).
//   MaxIgnoringNaN(x, n)           the largest non-NaN element (-inf if none).
//   Sum(x, n), Max(x, n), Min(x, n)  reductions of a span; Max/Min return NaN
//                                  if any element is NaN (-inf / +inf if n == 0).
//                                  Sum adds in an order fixed by n (and the SIMD
//                                  width), so equal spans give equal bits.
//   Gelu(x, y, n)                  the exact gelu x Phi(x), float (Note [Exact
//                                  gelu from the normal tail] in vec_erf.inc).
//   GeluGrad(x, g, y, n)           g[i] times gelu's derivative at x[i].
//   ActiveIsa()                    "avx512", "avx2", "sse2" or "scalar": what
//                                  the dispatcher picked on this CPU.
//
// Accuracy: SLEEF's 1.0-ulp functions (erfc 1.5 ulp), but for float32 erf,
// which is oar's own (2.2 ulp, vec_erf.inc); sigmoid is
// 1 / (1 + exp(-x)) with that exp; float32 tanh is oar's own rational
// function (5 ulp, vec_math_isa.inc), float64 tanh is SLEEF's; float32 log is
// Cephes' polynomial with FMA (0.8 ulp, LogFloat in vec_math_isa.inc), SLEEF's
// for lanes that are not positive normal numbers; float32 exp (and the sigmoid
// and ExpSubSum built on it) is Cephes' with FMA too (1.5 ulp, ExpFloat), SLEEF's
// for NaN lanes. Special values follow C's libm: NaN
// in, NaN out; exp(-inf) = 0; log(0) = -inf; log(-1) = NaN; tanh(-0) = -0; and so on. The result
// for an element does not depend on n, on its position in the span or on how a caller splits a
// tensor into spans (tails are computed in a full, zero-padded vector), so contiguous, strided and
// multi-threaded callers agree bitwise. It may differ in the last ulp between CPUs of different
// SIMD width.
//
// Dispatch: the SIMD width is chosen once at run time from MaxCpuIsa()
// (x86-64-v4 AVX-512, else x86-64-v3 AVX2+FMA, else SSE2), each width's unit
// built for exactly that level whatever the building CPU has.
// OAR_MAX_CPU_ISA=sse2|avx2 in the environment caps the choice (Note [One cap
// on the dispatched ISA] in core/cpu_isa.h). gelu differs in the last ulps
// between widths (AVX-512 and AVX2 evaluate tables of their own).
//
// float16/bfloat16 callers convert to float first (see vec_unary.h).
#pragma once

#include <cstdint>

namespace oar::vec {

enum class Fn : int {
  kExp,
  kExpm1,
  kLog,
  kLog1p,
  kLog2,
  kLog10,
  kSin,
  kCos,
  kTan,
  kTanh,
  kSigmoid,
  kErf,
  kErfc,
  kCount
};

void Apply(Fn fn, const float* x, float* y, int64_t n);
void Apply(Fn fn, const double* x, double* y, int64_t n);
float ExpSubSum(const float* x, float shift, float* y, int64_t n);
double ExpSubSum(const double* x, double shift, double* y, int64_t n);
float MaxIgnoringNaN(const float* x, int64_t n);
double MaxIgnoringNaN(const double* x, int64_t n);
float Sum(const float* x, int64_t n);
double Sum(const double* x, int64_t n);
// Note [Reductions read several streams at once]
// One core streaming through memory keeps only so many cache misses in flight:
// summing 256 MB took 14.1 ms on one Zen 4 core (19 GB/s) read as one stream,
// and 10.2 ms (26 GB/s) as four streams far apart, the hardware prefetchers
// tracking each; on two cores 9.96 ms against 7.82. SumRuns sums k (at most
// kSumRuns) runs of n elements each, reading them in step, into out[0..k): each
// result has the bits Sum gives its run, so callers keep their fixed order.
// MaxRuns and MinRuns likewise, with Max's and Min's bits.
inline constexpr int kSumRuns = 4;
void SumRuns(const float* const* x, int k, int64_t n, float* out);
void SumRuns(const double* const* x, int k, int64_t n, double* out);
void MaxRuns(const float* const* x, int k, int64_t n, float* out);
void MaxRuns(const double* const* x, int k, int64_t n, double* out);
void MinRuns(const float* const* x, int k, int64_t n, float* out);
void MinRuns(const double* const* x, int k, int64_t n, double* out);
float Max(const float* x, int64_t n);
double Max(const double* x, int64_t n);
float Min(const float* x, int64_t n);
double Min(const double* x, int64_t n);
void Gelu(const float* x, float* y, int64_t n);
void GeluGrad(const float* x, const float* g, float* y, int64_t n);
const char* ActiveIsa();

}  // namespace oar::vec
