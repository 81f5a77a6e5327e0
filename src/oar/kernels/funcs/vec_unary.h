// Elementwise kernels whose function is one of vec_math's (exp, log, tanh, ...),
// over any layout: contiguous tensors go to vec::Apply in per-thread spans,
// strided ones are gathered into a small buffer, transformed and scattered, so
// every layout and thread count computes each element with the same function
// and gets the same bits. float16/bfloat16 are computed in float.
//
//   VecUnary<T>(x, out, vec::Fn::kTanh);                 // out = tanh(x)
//   VecSpan<T>(vec::Fn::kExp, src, dst, n);              // one contiguous span
#pragma once

#include <algorithm>
#include <type_traits>

#include "oar/kernels/funcs/elementwise.h"
#include "oar/kernels/funcs/vec_math.h"

namespace oar::funcs {

// Elements converted per step for float16/bfloat16 and strided operands.
inline constexpr int64_t kVecChunk = 256;

// dst[i] = fn(src[i]) for a contiguous span; src == dst is allowed.
template <typename T>
void VecSpan(vec::Fn fn, const T* src, T* dst, int64_t n) {
  using C = compute_t<T>;
  if constexpr (std::is_same_v<T, C>) {
    vec::Apply(fn, src, dst, n);
  } else {
    C buf[kVecChunk];
    for (int64_t i = 0; i < n; i += kVecChunk) {
      const int64_t m = std::min(kVecChunk, n - i);
      for (int64_t k = 0; k < m; ++k) buf[k] = static_cast<C>(src[i + k]);
      vec::Apply(fn, buf, buf, m);
      for (int64_t k = 0; k < m; ++k) dst[i + k] = static_cast<T>(buf[k]);
    }
  }
}

template <typename T>
void VecUnary(const DenseTensor& x, DenseTensor* out, vec::Fn fn, int64_t cost = 8) {
  using C = compute_t<T>;
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  const T* in = static_cast<const T*>(x.data());
  if (SameLayoutContiguous(x, *out)) {
    ParallelFor(0, out->numel(), cost,
                [&](int64_t b, int64_t e) { VecSpan<T>(fn, in + b, o + b, e - b); });
    return;
  }
  const DDim& shape = out->dims();
  LoopOperands<2> ops{
      {reinterpret_cast<char*>(o), const_cast<char*>(reinterpret_cast<const char*>(in))},
      {ByteStrides(*out, shape), ByteStrides(x, shape)}};
  StridedLoop<2>(shape, ops, cost,
                 [&](int64_t n, const std::array<char*, 2>& p, const std::array<int64_t, 2>& s) {
                   constexpr int64_t es = sizeof(T);
                   if (s[0] == es && s[1] == es) {
                     VecSpan<T>(fn, reinterpret_cast<const T*>(p[1]), reinterpret_cast<T*>(p[0]),
                                n);
                     return;
                   }
                   C buf[kVecChunk];
                   for (int64_t i = 0; i < n; i += kVecChunk) {
                     const int64_t m = std::min(kVecChunk, n - i);
                     for (int64_t k = 0; k < m; ++k)
                       buf[k] = static_cast<C>(*reinterpret_cast<const T*>(p[1] + (i + k) * s[1]));
                     vec::Apply(fn, buf, buf, m);
                     for (int64_t k = 0; k < m; ++k)
                       *reinterpret_cast<T*>(p[0] + (i + k) * s[0]) = static_cast<T>(buf[k]);
                   }
                 });
}

}  // namespace oar::funcs

// The kernel `Name` of an op that is exactly vec_math's function `fn`:
// OAR_VEC_UNARY_KERNEL(ExpKernel, kExp) in the kernel file (namespace oar).
#define OAR_VEC_UNARY_KERNEL(Name, fn)                                      \
  template <typename T>                                                     \
  void Name(const DeviceContext&, const DenseTensor& x, DenseTensor* out) { \
    funcs::VecUnary<T>(x, out, vec::Fn::fn);                                \
  }
