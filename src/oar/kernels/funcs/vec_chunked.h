// Elementwise kernels whose formula wraps one or more vec_math functions (gelu is
// x * (1 + erf(x / sqrt 2)) / 2, silu is x * sigmoid(x), ...). A per-element
// lambda would call libm once per element; instead the operands are cut into
// chunks of kVecChunk elements, and the chunk body computes the formula as a few
// loops over small contiguous buffers, calling vec::Apply for the transcendental
// part. Inputs are handed to the body in the compute type (float16/bfloat16 are
// converted, strided operands gathered; contiguous float/double is read in place),
// the result is written to a scratch chunk and then stored, so `out` may alias an
// input (in-place ops).
//
//   VecChunked<T, 2>({&x, &grad_out}, x_grad, cost,
//       [](const std::array<const C*, 2>& in, C* y, int64_t m) { ... y[k] = ... });
//
// Every element is computed by the same function whatever the layout or the thread
// count, so results agree bitwise across them (vec_math's guarantee carries over).
#pragma once

#include <algorithm>
#include <array>
#include <type_traits>

#include "oar/kernels/funcs/elementwise.h"
#include "oar/kernels/funcs/vec_unary.h"

namespace oar::funcs {

// GCC cannot see that a gathered buffer is filled for every index the chunk body
// reads (both are bounded by m), and warns at every instantiation.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

template <typename T, size_t N, typename F>
void VecChunked(const std::array<const DenseTensor*, N>& in, DenseTensor* out, int64_t cost,
                F body) {
  using C = compute_t<T>;
  T* o = static_cast<T*>(out->AllocateFrom(in[0]->place()));
  bool contiguous = out->is_contiguous();
  for (const DenseTensor* t : in) contiguous = contiguous && SameLayoutContiguous(*t, *out);
  // The body may write its results straight into out when out is in the compute type
  // and shares no memory with an input (a body may read an input after writing y):
  // that saves the copy out of the scratch chunk.
  bool direct = std::is_same_v<T, C>;
  for (const DenseTensor* t : in) direct = direct && t->Holder() != out->Holder();

  // One chunk: operand k starts at bytes p[k + 1] with byte stride s[k + 1]; the
  // output at p[0] with stride s[0].
  auto chunk = [&](int64_t m, const std::array<char*, N + 1>& p,
                   const std::array<int64_t, N + 1>& s) {
    C bufs[N][kVecChunk];
    C y[kVecChunk];
    std::array<const C*, N> x;
    for (size_t k = 0; k < N; ++k) {
      if constexpr (std::is_same_v<T, C>) {
        if (s[k + 1] == static_cast<int64_t>(sizeof(T))) {
          x[k] = reinterpret_cast<const C*>(p[k + 1]);
          continue;
        }
      }
      if (s[k + 1] == static_cast<int64_t>(sizeof(T))) {
        // A typed loop with a unit stride the compiler vectorises (the byte
        // stride below is a run-time value: one element per iteration).
        const T* src = reinterpret_cast<const T*>(p[k + 1]);
        for (int64_t i = 0; i < m; ++i) bufs[k][i] = static_cast<C>(src[i]);
      } else {
        for (int64_t i = 0; i < m; ++i)
          bufs[k][i] = static_cast<C>(*reinterpret_cast<const T*>(p[k + 1] + i * s[k + 1]));
      }
      x[k] = bufs[k];
    }
    if (direct && s[0] == static_cast<int64_t>(sizeof(T))) {
      body(x, reinterpret_cast<C*>(p[0]), m);
      return;
    }
    body(x, y, m);
    if (s[0] == static_cast<int64_t>(sizeof(T))) {
      T* dst = reinterpret_cast<T*>(p[0]);
      for (int64_t i = 0; i < m; ++i) dst[i] = static_cast<T>(y[i]);
    } else {
      for (int64_t i = 0; i < m; ++i) *reinterpret_cast<T*>(p[0] + i * s[0]) = static_cast<T>(y[i]);
    }
  };
  // A run of n elements, in chunks.
  auto run = [&](int64_t n, std::array<char*, N + 1> p, const std::array<int64_t, N + 1>& s) {
    for (int64_t i = 0; i < n; i += kVecChunk) {
      const int64_t m = std::min(kVecChunk, n - i);
      chunk(m, p, s);
      for (size_t k = 0; k <= N; ++k) p[k] += m * s[k];
    }
  };

  std::array<char*, N + 1> base;
  base[0] = reinterpret_cast<char*>(o);
  for (size_t k = 0; k < N; ++k)
    base[k + 1] = const_cast<char*>(static_cast<const char*>(in[k]->data()));
  if (contiguous) {
    std::array<int64_t, N + 1> unit;
    unit.fill(static_cast<int64_t>(sizeof(T)));
    ParallelFor(0, out->numel(), cost, [&](int64_t b, int64_t e) {
      std::array<char*, N + 1> p = base;
      for (auto& q : p) q += b * static_cast<int64_t>(sizeof(T));
      run(e - b, p, unit);
    });
    return;
  }
  const DDim& shape = out->dims();
  LoopOperands<N + 1> ops;
  ops.base = base;
  ops.strides[0] = ByteStrides(*out, shape);
  for (size_t k = 0; k < N; ++k) ops.strides[k + 1] = ByteStrides(*in[k], shape);
  StridedLoop<N + 1>(shape, ops, cost,
                     [&](int64_t n, const std::array<char*, N + 1>& p,
                         const std::array<int64_t, N + 1>& s) { run(n, p, s); });
}

#pragma GCC diagnostic pop

}  // namespace oar::funcs
