// Typed unary/binary/ternary elementwise loops over broadcast, strided
// operands.
//
// Note [Kernel functors are copied into the loop]
// The functor reaches the loop through a by-reference capture, so a parameter it
// captured by value (leaky_relu's slope, clip's bounds) sits behind a pointer the
// compiler cannot prove distinct from the output: it reloads the parameter after
// every store and leaves the loop scalar (leaky_relu took 6 ms for 1M floats, 40x
// relu). A local copy of the functor has no address anyone else holds. For the same reason the
// generators handed to WriteRun capture by value (the functor, the pointers, a broadcast value):
// the streaming path, StreamRun, is a function of its own, and an address that reaches it
// could alias the output for all the compiler knows; with by-reference captures a broadcast
// value was reloaded after every store and the loop left partly scalar (x *= y with x of
// [256, 256, 16] and y of [256, 1], one Zen 4 thread: 272 us, 112 us by value). StreamRun is
// out of line so that its 4 KB buffer and second loop stay out of the bodies of short rows.
// `f` works on compute types (float for float16/bfloat16) and the result is converted to the
// output type. The output may alias an input of the same shape (in-place ops).
//
// Note [Streaming stores beyond the last-level cache]
// An ordinary store reads the line it writes first (write-allocate), so out = a + b over
// arrays far larger than the caches moves 16 bytes per element, not 12, and a unary op
// 12, not 8. When the operands and the output together exceed the last-level cache
// (none of them can still be cached for the next op anyway), contiguous runs of the
// output are computed into a 4 KB buffer (in L1) and written with non-temporal stores,
// which skip that read, then fenced before the chunk ends. In-place ops (the output is
// an input) and smaller tensors keep ordinary stores: there the output is read next
// from the cache. Only the stores change: the values are computed as before.
//
// Note [Strided loops are unrolled]
// A loop over elements at arbitrary byte strides (x[:, ::2].contiguous(), an operand
// read across rows) stays scalar, one element per iteration. Such a short loop ran at
// one or two cycles per element depending only on where the compiler placed it: the same
// seven instructions copied 512 x 1024 floats in 0.146 ms or 0.29 ms when they straddled
// a 64-byte line of the instruction cache (two instances of one kernel, inlined in two
// places). Unrolled four times, every placement took 0.145-0.16 ms in a standalone loop.
#pragma once

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <type_traits>
#include <utility>

#include "oar/core/float16.h"
#include "oar/kernels/funcs/strided_loop.h"

#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace oar::funcs {

// The last-level cache's size in bytes, read once (funcs/copy.cc).
int64_t LastLevelCacheBytes();

// Whether an op that touches `bytes` of memory in all should write `out` with streaming
// stores (Note [Streaming stores beyond the last-level cache]): not when out shares an
// allocation with an input (in place, or an overlapping view, whose elements must be
// read before they are overwritten one by one).
template <typename OutT>
bool StreamOutput(int64_t bytes, const DenseTensor& out,
                  std::initializer_list<const DenseTensor*> inputs) {
#if defined(__AVX__)
  if constexpr (!std::is_trivially_copyable_v<OutT> || sizeof(OutT) > 16) {
    return false;
  } else {
    if (bytes <= LastLevelCacheBytes() ||
        reinterpret_cast<uintptr_t>(out.data()) % sizeof(OutT) != 0)
      return false;
    for (const DenseTensor* in : inputs) {
      if (in->Holder() == out.Holder()) return false;
    }
    return true;
  }
#else
  (void)bytes, (void)out, (void)inputs;
  return false;
#endif
}

// dst[i] = gen(i) for i < n, with streaming stores (StreamRun) when `stream` and the run
// is at least 1 KiB: a shorter one (a run of a tile, Note [Transposed operands are walked in
// tiles]) would pay a fence for a few partly written lines (a.T + b over 1024 x 65536
// floats took 788 ms in runs of 8 streamed, 172 ms with ordinary stores).
#if defined(__AVX__)  // StreamRun's stores are AVX's
template <typename OutT, typename Gen>
[[gnu::noinline]] void StreamRun(OutT* dst, int64_t n, Gen gen) {
  constexpr int64_t kBlock = 4096 / sizeof(OutT);
  alignas(64) unsigned char raw[kBlock * sizeof(OutT)];
  OutT* buf = reinterpret_cast<OutT*>(raw);
  // Ordinary stores up to the first 32-byte boundary, then whole vectors.
  const auto addr = reinterpret_cast<uintptr_t>(dst);
  int64_t i = std::min<int64_t>(n, static_cast<int64_t>((32 - addr % 32) % 32 / sizeof(OutT)));
  for (int64_t k = 0; k < i; ++k) dst[k] = gen(k);
  while (i < n) {
    const int64_t m = std::min(kBlock, n - i);
    for (int64_t k = 0; k < m; ++k) buf[k] = gen(i + k);
    const int64_t bytes = m * static_cast<int64_t>(sizeof(OutT)), whole = bytes & ~int64_t{31};
    char* d = reinterpret_cast<char*>(dst + i);
    for (int64_t b = 0; b < whole; b += 32) {
      _mm256_stream_si256(reinterpret_cast<__m256i*>(d + b),
                          _mm256_load_si256(reinterpret_cast<const __m256i*>(raw + b)));
    }
    std::memcpy(d + whole, raw + whole, static_cast<size_t>(bytes - whole));
    i += m;
  }
  _mm_sfence();
}
#endif  // __AVX__

template <typename OutT, typename Gen>
[[gnu::always_inline]] inline void WriteRun(OutT* dst, int64_t n, bool stream, Gen&& gen) {
#if defined(__AVX__)
  if constexpr (std::is_trivially_copyable_v<OutT> && sizeof(OutT) <= 16) {
    if (stream && n * static_cast<int64_t>(sizeof(OutT)) >= 1024) {
      StreamRun(dst, n, std::forward<Gen>(gen));
      return;
    }
  }
#endif
  (void)stream;
  for (int64_t i = 0; i < n; ++i) dst[i] = gen(i);
}

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

// Note [Contiguous chunks start on cache lines]
// ParallelFor cuts [0, n) into equal chunks, which can start inside a cache line: 10^6
// floats in 8 chunks of 125,000 start every other chunk 32 bytes into a line, and each
// 64-byte load and store of those chunks then spans two lines. The contiguous loops
// below split n in blocks of 64 elements instead, so every chunk starts on a line when
// the tensors do (the allocator's blocks are 64-byte aligned); the threshold and the
// chunk count are ParallelFor's as before. An add of 10^6 floats on two Zen 4 threads,
// the chunk count set through the threshold: 91-99 us in 8 chunks, 85-93 us in 10
// chunks of 100,000, all on a line.
inline constexpr int64_t kLineGrain = 64;

template <typename F>
void ParallelForInLines(int64_t n, int64_t cost, F&& f) {
  const int64_t blocks = (n + kLineGrain - 1) / kLineGrain;
  ParallelFor(0, blocks, cost * kLineGrain,
              [&](int64_t b0, int64_t b1) { f(b0 * kLineGrain, std::min(n, b1 * kLineGrain)); });
}

inline bool SameLayoutContiguous(const DenseTensor& a, const DenseTensor& out) {
  return a.dims() == out.dims() && a.is_contiguous() && out.is_contiguous();
}

// Note [A one-element op skips the loop machinery]
// An op on one element (a loss, a learning rate, a metric, the scalars of Python code) is
// all overhead: choosing whether to stream, matching layouts, asking the pool whether to
// split. One element has no layout to match (its offset is in data()), so it is computed
// on the spot. That took 15 ns off the 108 an `a + b` of two 1-element tensors cost in the
// C++ API (oar_bench_op_overhead, benchmarks/op_overhead.cc, Zen 4).
template <typename OutT, typename InT, typename F>
void UnaryElementwise(const DenseTensor& x, DenseTensor* out, F f, int64_t cost = 1) {
  OutT* o = static_cast<OutT*>(out->AllocateFrom(x.place()));
  const InT* in = static_cast<const InT*>(x.data());
  if (out->numel() == 1 && x.numel() == 1) {  // Note [A one-element op skips the loop machinery]
    o[0] = Store<OutT>(f(Load(in[0])));
    return;
  }
  if (SameLayoutContiguous(x, *out)) {
    const int64_t n = out->numel();
    const bool stream = StreamOutput<OutT>(n * int64_t{sizeof(InT) + sizeof(OutT)}, *out, {&x});
    ParallelForInLines(n, cost, [&](int64_t b, int64_t e) {
      const F fl = f;  // see Note [Kernel functors are copied into the loop]
      const InT* pi = in + b;
      WriteRun(o + b, e - b, stream, [=](int64_t i) { return Store<OutT>(fl(Load(pi[i]))); });
    });
    return;
  }
  const DDim& shape = out->dims();
  LoopOperands<2> ops{
      {reinterpret_cast<char*>(o), const_cast<char*>(reinterpret_cast<const char*>(in))},
      {ByteStrides(*out, shape), ByteStrides(x, shape)}};
  // Note [Runs of rows go to the body at once]: the kind of row is decided once per run.
  StridedLoop<2>(shape, ops, cost,
                 [&](int64_t rows, int64_t n, const std::array<char*, 2>& p,
                     const std::array<int64_t, 2>& s, const std::array<int64_t, 2>& step) {
                   const F fl = f;
                   if (s[0] == sizeof(OutT) && s[1] == sizeof(InT)) {
                     // Contiguous rows of a view that does not coalesce (x[:, :k]): vectorised.
                     ForEachRow<2>(rows, p, step, [&](const std::array<char*, 2>& q) {
                       OutT* po = reinterpret_cast<OutT*>(q[0]);
                       const InT* pi = reinterpret_cast<const InT*>(q[1]);
                       for (int64_t i = 0; i < n; ++i) po[i] = Store<OutT>(fl(Load(pi[i])));
                     });
                     return;
                   }
                   ForEachRow<2>(rows, p, step, [&](const std::array<char*, 2>& q) {
                     char* po = q[0];
                     const char* pi = q[1];
#pragma GCC unroll 4  // Note [Strided loops are unrolled]
                     for (int64_t i = 0; i < n; ++i, po += s[0], pi += s[1]) {
                       *reinterpret_cast<OutT*>(po) =
                           Store<OutT>(fl(Load(*reinterpret_cast<const InT*>(pi))));
                     }
                   });
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
  // Note [A one-element op skips the loop machinery]
  if (n == 1 && x.numel() == 1 && y.numel() == 1) {
    o[0] = Store<OutT>(f(Load(a[0]), Load(b[0])));
    return;
  }
  const bool out_c = out->is_contiguous();
  // Bytes touched: the output, the inputs (a broadcast one counted once).
  const int64_t bytes =
      n * int64_t{sizeof(OutT)} + x.numel() * int64_t{sizeof(A)} + y.numel() * int64_t{sizeof(B)};
  const bool stream = StreamOutput<OutT>(bytes, *out, {&x, &y});
  if (out_c && SameLayoutContiguous(x, *out)) {
    if (SameLayoutContiguous(y, *out)) {
      ParallelForInLines(n, cost, [&](int64_t lo, int64_t hi) {
        const F fl = f;
        const A* pa = a + lo;
        const B* pb = b + lo;
        WriteRun(o + lo, hi - lo, stream,
                 [=](int64_t i) { return Store<OutT>(fl(Load(pa[i]), Load(pb[i]))); });
      });
      return;
    }
    if (y.numel() == 1) {
      const auto bv = Load(b[0]);
      ParallelForInLines(n, cost, [&](int64_t lo, int64_t hi) {
        const F fl = f;
        const A* pa = a + lo;
        WriteRun(o + lo, hi - lo, stream,
                 [=](int64_t i) { return Store<OutT>(fl(Load(pa[i]), bv)); });
      });
      return;
    }
  }
  if (out_c && x.numel() == 1 && SameLayoutContiguous(y, *out)) {
    const auto av = Load(a[0]);
    ParallelForInLines(n, cost, [&](int64_t lo, int64_t hi) {
      const F fl = f;
      const B* pb = b + lo;
      WriteRun(o + lo, hi - lo, stream,
               [=](int64_t i) { return Store<OutT>(fl(av, Load(pb[i]))); });
    });
    return;
  }
  const DDim& shape = out->dims();
  LoopOperands<3> ops{
      {reinterpret_cast<char*>(o), const_cast<char*>(reinterpret_cast<const char*>(a)),
       const_cast<char*>(reinterpret_cast<const char*>(b))},
      {ByteStrides(*out, shape), ByteStrides(x, shape), ByteStrides(y, shape)}};
  StridedLoop<3>(
      shape, ops, cost,
      [&](int64_t rows, int64_t cnt, const std::array<char*, 3>& p, const std::array<int64_t, 3>& s,
          const std::array<int64_t, 3>& step) {
        const F f = f_outer;
        // run(po, pa, pb) on each row; the kind of row is decided once for all of them
        const auto each_row = [&](auto&& run) {
          ForEachRow<3>(rows, p, step, [&](const std::array<char*, 3>& q) {
            run(reinterpret_cast<OutT*>(q[0]), reinterpret_cast<const A*>(q[1]),
                reinterpret_cast<const B*>(q[2]));
          });
        };
        if (s[0] == sizeof(OutT) && s[1] == sizeof(A) && s[2] == sizeof(B)) {
          each_row([&](OutT* po, const A* pa, const B* pb) {
            WriteRun(po, cnt, stream,
                     [=](int64_t i) { return Store<OutT>(f(Load(pa[i]), Load(pb[i]))); });
          });
        } else if (s[0] == sizeof(OutT) && s[1] == sizeof(A) && s[2] == 0) {
          each_row([&](OutT* po, const A* pa, const B* pb) {
            const auto bv = Load(pb[0]);
            WriteRun(po, cnt, stream, [=](int64_t i) { return Store<OutT>(f(Load(pa[i]), bv)); });
          });
        } else if (s[0] == sizeof(OutT) && s[1] == 0 && s[2] == sizeof(B)) {
          each_row([&](OutT* po, const A* pa, const B* pb) {
            const auto av = Load(pa[0]);
            WriteRun(po, cnt, stream, [=](int64_t i) { return Store<OutT>(f(av, Load(pb[i]))); });
          });
        } else if (s[0] == sizeof(OutT) && s[1] % sizeof(A) == 0 && s[2] % sizeof(B) == 0) {
          // Element strides (a slice's step, a transpose): indexed loads the
          // compiler can gather, in place of three pointers stepped in bytes
          // (x[:, ::2] + y[:, ::2] over 2^19 floats: 150 us against 193).
          const int64_t sa = s[1] / int64_t{sizeof(A)}, sb = s[2] / int64_t{sizeof(B)};
          each_row([&](OutT* po, const A* pa, const B* pb) {
            WriteRun(po, cnt, stream,
                     [=](int64_t i) { return Store<OutT>(f(Load(pa[i * sa]), Load(pb[i * sb]))); });
          });
        } else {
          each_row([&](OutT* po, const A* pa, const B* pb) {
            char* o1 = reinterpret_cast<char*>(po);
            const char* a1 = reinterpret_cast<const char*>(pa);
            const char* b1 = reinterpret_cast<const char*>(pb);
#pragma GCC unroll 4  // Note [Strided loops are unrolled]
            for (int64_t i = 0; i < cnt; ++i, o1 += s[0], a1 += s[1], b1 += s[2]) {
              *reinterpret_cast<OutT*>(o1) = Store<OutT>(
                  f(Load(*reinterpret_cast<const A*>(a1)), Load(*reinterpret_cast<const B*>(b1))));
            }
          });
        }
      });
}

// The element at p[i] in compute type; a bool is read as its byte (!= 0), which
// vectorises where a load of bool does not (GCC 12 gives the loop up), so where's
// select becomes a blend.
template <typename T>
[[gnu::always_inline]] inline auto LoadAt(const T* p, int64_t i) {
  if constexpr (std::is_same_v<T, bool>) {
    return reinterpret_cast<const unsigned char*>(p)[i] != 0;
  } else {
    return Load(p[i]);
  }
}

template <typename OutT, typename A, typename B, typename C, typename F>
void TernaryElementwise(const DenseTensor& x, const DenseTensor& y, const DenseTensor& z,
                        DenseTensor* out, F f) {
  OutT* o = static_cast<OutT*>(out->AllocateFrom(x.place()));
  const DDim& shape = out->dims();
  const int64_t n = out->numel();
  const int64_t bytes = n * int64_t{sizeof(OutT)} + x.numel() * int64_t{sizeof(A)} +
                        y.numel() * int64_t{sizeof(B)} + z.numel() * int64_t{sizeof(C)};
  const bool stream = StreamOutput<OutT>(bytes, *out, {&x, &y, &z});
  if (out->is_contiguous() && SameLayoutContiguous(x, *out) && SameLayoutContiguous(y, *out) &&
      SameLayoutContiguous(z, *out)) {
    const A* pa = static_cast<const A*>(x.data());
    const B* pb = static_cast<const B*>(y.data());
    const C* pc = static_cast<const C*>(z.data());
    ParallelForInLines(n, 1, [&](int64_t lo, int64_t hi) {
      const F fl = f;  // see Note [Kernel functors are copied into the loop]
      const A* qa = pa + lo;
      const B* qb = pb + lo;
      const C* qc = pc + lo;
      WriteRun(o + lo, hi - lo, stream, [=](int64_t i) {
        const auto va = LoadAt(qa, i);
        const auto vb = LoadAt(qb, i);
        const auto vc = LoadAt(qc, i);
        return Store<OutT>(fl(va, vb, vc));
      });
    });
    return;
  }
  LoopOperands<4> ops{
      {reinterpret_cast<char*>(o), const_cast<char*>(static_cast<const char*>(x.data())),
       const_cast<char*>(static_cast<const char*>(y.data())),
       const_cast<char*>(static_cast<const char*>(z.data()))},
      {ByteStrides(*out, shape), ByteStrides(x, shape), ByteStrides(y, shape),
       ByteStrides(z, shape)}};
  StridedLoop<4>(
      shape, ops, 1,
      [&](int64_t cnt, const std::array<char*, 4>& p, const std::array<int64_t, 4>& s) {
        const F fl = f;
        if (s[0] == sizeof(OutT) && s[1] == sizeof(A) && s[2] == sizeof(B) && s[3] == sizeof(C)) {
          const A* qa = reinterpret_cast<const A*>(p[1]);
          const B* qb = reinterpret_cast<const B*>(p[2]);
          const C* qc = reinterpret_cast<const C*>(p[3]);
          WriteRun(reinterpret_cast<OutT*>(p[0]), cnt, stream, [=](int64_t i) {
            const auto va = LoadAt(qa, i);
            const auto vb = LoadAt(qb, i);
            const auto vc = LoadAt(qc, i);
            return Store<OutT>(fl(va, vb, vc));
          });
          return;
        }
        char* co = p[0];
        const char* ca = p[1];
        const char* cb = p[2];
        const char* cc = p[3];
        #pragma GCC unroll 4  // Note [Strided loops are unrolled]
        for (int64_t i = 0; i < cnt; ++i, co += s[0], ca += s[1], cb += s[2], cc += s[3]) {
          *reinterpret_cast<OutT*>(co) = Store<OutT>(fl(Load(*reinterpret_cast<const A*>(ca)),
                                                        Load(*reinterpret_cast<const B*>(cb)),
                                                        Load(*reinterpret_cast<const C*>(cc))));
        }
      });
}

}  // namespace oar::funcs
