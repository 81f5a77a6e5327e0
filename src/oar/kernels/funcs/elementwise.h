// Typed unary/binary/ternary elementwise loops over broadcast, strided
// operands.
//
// Note [Kernel functors are copied into the loop]
// The functor reaches the loop through a by-reference capture, so a parameter it
// captured by value (leaky_relu's slope, clip's bounds) sits behind a pointer the
// compiler cannot prove distinct from the output: it reloads the parameter after
// every store and leaves the loop scalar (leaky_relu took 6 ms for 1M floats, 40x
// relu). A local copy of the functor has no address anyone else holds. `f` works on compute types
// (float for float16/bfloat16) and the result is converted to the output type. The output may alias
// an input of the same shape (in-place ops).
#pragma once

#include "oar/core/float16.h"
#include "oar/kernels/funcs/strided_loop.h"

namespace oar::funcs {

// Always inlined, like the conversions they wrap (float16.h): in a file with
// one instantiation per dtype pair (funcs/copy.cc) GCC ran out of inlining
// budget and called Store<float16> once per element.
template <typename T>
[[gnu::always_inline]] inline compute_t<T> Load(const T& v) {
  return static_cast<compute_t<T>>(v);
}
template <typename T, typename V>
[[gnu::always_inline]] inline T Store(V v) {
  return static_cast<T>(v);
}

inline bool SameLayoutContiguous(const DenseTensor& a, const DenseTensor& out) {
  return a.dims() == out.dims() && a.is_contiguous() && out.is_contiguous();
}

template <typename OutT, typename InT, typename F>
void UnaryElementwise(const DenseTensor& x, DenseTensor* out, F f, int64_t cost = 1) {
  OutT* o = static_cast<OutT*>(out->AllocateFrom(x.place()));
  const InT* in = static_cast<const InT*>(x.data());
  if (SameLayoutContiguous(x, *out)) {
    ParallelFor(0, out->numel(), cost, [&](int64_t b, int64_t e) {
      const F fl = f;  // see Note [Kernel functors are copied into the loop]
      for (int64_t i = b; i < e; ++i) o[i] = Store<OutT>(fl(Load(in[i])));
    });
    return;
  }
  const DDim& shape = out->dims();
  LoopOperands<2> ops{
      {reinterpret_cast<char*>(o), const_cast<char*>(reinterpret_cast<const char*>(in))},
      {ByteStrides(*out, shape), ByteStrides(x, shape)}};
  StridedLoop<2>(shape, ops, cost,
                 [&](int64_t n, const std::array<char*, 2>& p, const std::array<int64_t, 2>& s) {
                   const F fl = f;
                   char* po = p[0];
                   const char* pi = p[1];
                   for (int64_t i = 0; i < n; ++i, po += s[0], pi += s[1]) {
                     *reinterpret_cast<OutT*>(po) =
                         Store<OutT>(fl(Load(*reinterpret_cast<const InT*>(pi))));
                   }
                 });
}

template <typename OutT, typename A, typename B, typename F>
void BinaryElementwise(const DenseTensor& x, const DenseTensor& y, DenseTensor* out, F f,
                       int64_t cost = 1) {
  const F& f_outer = f;
  OutT* o = static_cast<OutT*>(out->AllocateFrom(x.place()));
  const A* a = static_cast<const A*>(x.data());
  const B* b = static_cast<const B*>(y.data());
  const int64_t n = out->numel();
  const bool out_c = out->is_contiguous();
  if (out_c && SameLayoutContiguous(x, *out)) {
    if (SameLayoutContiguous(y, *out)) {
      ParallelFor(0, n, cost, [&](int64_t lo, int64_t hi) {
        const F fl = f;
        for (int64_t i = lo; i < hi; ++i) o[i] = Store<OutT>(fl(Load(a[i]), Load(b[i])));
      });
      return;
    }
    if (y.numel() == 1) {
      const auto bv = Load(b[0]);
      ParallelFor(0, n, cost, [&](int64_t lo, int64_t hi) {
        const F fl = f;
        for (int64_t i = lo; i < hi; ++i) o[i] = Store<OutT>(fl(Load(a[i]), bv));
      });
      return;
    }
  }
  if (out_c && x.numel() == 1 && SameLayoutContiguous(y, *out)) {
    const auto av = Load(a[0]);
    ParallelFor(0, n, cost, [&](int64_t lo, int64_t hi) {
      const F fl = f;
      for (int64_t i = lo; i < hi; ++i) o[i] = Store<OutT>(fl(av, Load(b[i])));
    });
    return;
  }
  const DDim& shape = out->dims();
  LoopOperands<3> ops{
      {reinterpret_cast<char*>(o), const_cast<char*>(reinterpret_cast<const char*>(a)),
       const_cast<char*>(reinterpret_cast<const char*>(b))},
      {ByteStrides(*out, shape), ByteStrides(x, shape), ByteStrides(y, shape)}};
  StridedLoop<3>(shape, ops, cost,
                 [&](int64_t cnt, const std::array<char*, 3>& p, const std::array<int64_t, 3>& s) {
                   const F f = f_outer;
                   OutT* po = reinterpret_cast<OutT*>(p[0]);
                   const A* pa = reinterpret_cast<const A*>(p[1]);
                   const B* pb = reinterpret_cast<const B*>(p[2]);
                   if (s[0] == sizeof(OutT) && s[1] == sizeof(A) && s[2] == sizeof(B)) {
                     for (int64_t i = 0; i < cnt; ++i)
                       po[i] = Store<OutT>(f(Load(pa[i]), Load(pb[i])));
                   } else if (s[0] == sizeof(OutT) && s[1] == sizeof(A) && s[2] == 0) {
                     const auto bv = Load(pb[0]);
                     for (int64_t i = 0; i < cnt; ++i) po[i] = Store<OutT>(f(Load(pa[i]), bv));
                   } else if (s[0] == sizeof(OutT) && s[1] == 0 && s[2] == sizeof(B)) {
                     const auto av = Load(pa[0]);
                     for (int64_t i = 0; i < cnt; ++i) po[i] = Store<OutT>(f(av, Load(pb[i])));
                   } else {
                     const char* ca = p[1];
                     const char* cb = p[2];
                     char* co = p[0];
                     for (int64_t i = 0; i < cnt; ++i, co += s[0], ca += s[1], cb += s[2]) {
                       *reinterpret_cast<OutT*>(co) =
                           Store<OutT>(f(Load(*reinterpret_cast<const A*>(ca)),
                                         Load(*reinterpret_cast<const B*>(cb))));
                     }
                   }
                 });
}

template <typename OutT, typename A, typename B, typename C, typename F>
void TernaryElementwise(const DenseTensor& x, const DenseTensor& y, const DenseTensor& z,
                        DenseTensor* out, F f) {
  OutT* o = static_cast<OutT*>(out->AllocateFrom(x.place()));
  const DDim& shape = out->dims();
  LoopOperands<4> ops{
      {reinterpret_cast<char*>(o), const_cast<char*>(static_cast<const char*>(x.data())),
       const_cast<char*>(static_cast<const char*>(y.data())),
       const_cast<char*>(static_cast<const char*>(z.data()))},
      {ByteStrides(*out, shape), ByteStrides(x, shape), ByteStrides(y, shape),
       ByteStrides(z, shape)}};
  StridedLoop<4>(
      shape, ops, 1,
      [&](int64_t cnt, const std::array<char*, 4>& p, const std::array<int64_t, 4>& s) {
        char* co = p[0];
        const char* ca = p[1];
        const char* cb = p[2];
        const char* cc = p[3];
        for (int64_t i = 0; i < cnt; ++i, co += s[0], ca += s[1], cb += s[2], cc += s[3]) {
          *reinterpret_cast<OutT*>(co) = Store<OutT>(f(Load(*reinterpret_cast<const A*>(ca)),
                                                       Load(*reinterpret_cast<const B*>(cb)),
                                                       Load(*reinterpret_cast<const C*>(cc))));
        }
      });
}

}  // namespace oar::funcs
