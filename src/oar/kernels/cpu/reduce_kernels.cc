// Reductions over an axis list: sum, mean, max, min, and sum_to (the
// reduction that undoes broadcasting).
//
// The input is viewed as runs of kept (K) and reduced (R) dimensions. The
// shapes R, K R, R K, K R K and R K R are reduced in place, with a vectorised
// inner loop; anything else is permuted to K R first. A full reduction (R) is split
// into fixed chunks whose partial results combine in chunk order: the same
// bits for any thread count.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "oar/core/parallel.h"
#include "oar/core/small_vector.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/funcs/vec_math.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

template <typename T>
using acc_t = std::conditional_t<std::is_integral_v<compute_t<T>>, int64_t, compute_t<T>>;

struct SumOp {
  template <typename A>
  static A Init() {
    return A(0);
  }
  template <typename A>
  static A Combine(A a, A b) {
    return a + b;
  }
};
struct MaxOp {
  template <typename A>
  static A Init() {
    return std::numeric_limits<A>::has_infinity ? -std::numeric_limits<A>::infinity()
                                                : std::numeric_limits<A>::lowest();
  }
  template <typename A>
  static A Combine(A a, A b) {
    return (a > b || a != a) ? a : b;
  }
};
struct MinOp {
  template <typename A>
  static A Init() {
    return std::numeric_limits<A>::has_infinity ? std::numeric_limits<A>::infinity()
                                                : std::numeric_limits<A>::max();
  }
  template <typename A>
  static A Combine(A a, A b) {
    return (a < b || a != a) ? a : b;
  }
};

struct Plan {
  int64_t outer = 1, reduce = 1, inner = 1;
  // R K R: x is [pre, outer, reduce] and out[k] reduces x[o, k, :] over all o.
  int64_t pre = 1;
};

// A contiguous tensor and a plan such that out[o, i] = reduce_r x[o, r, i].
DenseTensor PlanReduction(const DenseTensor& x, const std::vector<int64_t>& axes, Plan* plan) {
  DenseTensor xc = funcs::Contiguous(x);
  const int64_t rank = xc.ndim();
  // Inline vectors: a reduction of a small tensor costs little more than this plan.
  SmallVector<bool, 8> red(rank, axes.empty());
  for (int64_t a : axes) red[a] = true;
  // Runs of kept/reduced dims, ignoring size-1 dims.
  SmallVector<std::pair<bool, int64_t>, 8> runs;
  for (int64_t d = 0; d < rank; ++d) {
    if (xc.dims()[d] == 1) continue;
    if (!runs.empty() && runs.back().first == red[d]) {
      runs.back().second *= xc.dims()[d];
    } else {
      runs.emplace_back(red[d], xc.dims()[d]);
    }
  }
  const size_t nr = std::count_if(runs.begin(), runs.end(), [](auto& r) { return r.first; });
  if (nr <= 1) {
    bool seen_r = false;
    for (auto& [is_r, n] : runs) {
      if (is_r) {
        plan->reduce = n;
        seen_r = true;
      } else if (seen_r) {
        plan->inner *= n;
      } else {
        plan->outer *= n;
      }
    }
    return xc;
  }
  if (runs.size() == 3 && runs[0].first && !runs[1].first) {
    // R K R, as a per-channel sum of NCHW (bias and batch-norm gradients) is:
    // reduced in place, where the permute below would copy all of x.
    plan->pre = runs[0].second;
    plan->outer = runs[1].second;
    plan->reduce = runs[2].second;
    return xc;
  }
  // Permute kept dims first, reduced dims last, then make that contiguous.
  SmallVector<int64_t, 8> perm;
  for (int64_t d = 0; d < rank; ++d)
    if (!red[d]) perm.push_back(d);
  for (int64_t d = 0; d < rank; ++d)
    if (red[d]) perm.push_back(d);
  DenseTensorMeta m = xc.meta();
  for (int64_t i = 0; i < rank; ++i) {
    m.dims[i] = xc.dims()[perm[i]];
    m.strides[i] = xc.strides()[perm[i]];
  }
  DenseTensor permuted(xc.Holder(), m);
  plan->outer = plan->reduce = plan->inner = 1;
  for (int64_t i = 0; i < rank; ++i) {
    (red[perm[i]] ? plan->reduce : plan->outer) *= m.dims[i];
  }
  return funcs::Contiguous(permuted);
}

// Elements per chunk of a full reduction. Fixed, not derived from the thread
// count: the chunks' partial results are combined in chunk order, so the
// result has the same bits with any number of threads.
constexpr int64_t kChunk = 1 << 14;
// Fewest columns a thread takes when the reduced axis is not the innermost.
constexpr int64_t kColumns = 64;
// Rows of a reduced axis that is not the innermost combined into one partial row
// (Note [Reduced rows in fixed blocks]).
constexpr int64_t kRowBlock = 128;

// Elements of a float16/bfloat16 run converted to float per step (a stack
// buffer that stays in L1).
constexpr int64_t kLowpBlock = 512;

// Reduces a contiguous run in a fixed order: vec_math for float and double,
// and for float16/bfloat16 converted to float in blocks (the blocks' results
// combined in order, so the bits still depend on nothing but the data; the
// scalar loop below took 4x float32's time for a bfloat16 sum), eight
// interleaved accumulators (which the compiler vectorises) otherwise.
template <typename T, typename Op>
acc_t<T> ReduceRun(const T* p, int64_t n) {
  using A = acc_t<T>;
  constexpr bool kVecOp =
      std::is_same_v<Op, SumOp> || std::is_same_v<Op, MaxOp> || std::is_same_v<Op, MinOp>;
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if constexpr (std::is_same_v<Op, SumOp>) return vec::Sum(p, n);
    if constexpr (std::is_same_v<Op, MaxOp>) return vec::Max(p, n);
    if constexpr (std::is_same_v<Op, MinOp>) return vec::Min(p, n);
  } else if constexpr ((std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) && kVecOp) {
    float buf[kLowpBlock];
    A acc = Op::template Init<A>();
    for (int64_t b = 0; b < n; b += kLowpBlock) {
      const int64_t m = std::min(kLowpBlock, n - b);
      for (int64_t i = 0; i < m; ++i) buf[i] = static_cast<float>(p[b + i]);
      acc = Op::Combine(acc, ReduceRun<float, Op>(buf, m));
    }
    return acc;
  } else {
    constexpr int kLanes = 8;
    A acc[kLanes];
    std::fill(acc, acc + kLanes, Op::template Init<A>());
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
      for (int k = 0; k < kLanes; ++k) acc[k] = Op::Combine(acc[k], static_cast<A>(p[i + k]));
    }
    for (; i < n; ++i) acc[0] = Op::Combine(acc[0], static_cast<A>(p[i]));
    for (int w = kLanes / 2; w > 0; w /= 2) {
      for (int k = 0; k < w; ++k) acc[k] = Op::Combine(acc[k], acc[k + w]);
    }
    return acc[0];
  }
}

// Whether RunsInStreams reads runs of this reduction in step.
template <typename T, typename Op>
constexpr bool kStreams =
    (std::is_same_v<Op, SumOp> || std::is_same_v<Op, MaxOp> || std::is_same_v<Op, MinOp>) &&
    (std::is_same_v<T, float> || std::is_same_v<T, double>);

// Runs of fewest elements read in step: shorter ones stay in cache between calls
// (Note [Reductions read several streams at once] is about memory).
constexpr int64_t kStreamRunElements = 1024;

// res[j] = ReduceRun(run(j), n) for j in [b, e), where run(j) is the j-th run of n
// elements. Each result has the bits ReduceRun gives it. Where kStreams holds and the
// runs are long, runs a quarter of the range apart are read in step (Note [Reductions
// read several streams at once] in funcs/vec_math.h).
template <typename T, typename Op, typename Run, typename Store>
void RunsInStreams(int64_t b, int64_t e, int64_t n, Run run, Store store) {
  int64_t j = b;
  if constexpr (kStreams<T, Op>) {
    constexpr int R = vec::kSumRuns;
    if (n >= kStreamRunElements && e - b >= R) {
      const int64_t q = (e - b) / R;
      for (int64_t t = 0; t < q; ++t) {
        const T* x[R];
        T res[R];
        for (int r = 0; r < R; ++r) x[r] = run(b + r * q + t);
        if constexpr (std::is_same_v<Op, SumOp>) vec::SumRuns(x, R, n, res);
        if constexpr (std::is_same_v<Op, MaxOp>) vec::MaxRuns(x, R, n, res);
        if constexpr (std::is_same_v<Op, MinOp>) vec::MinRuns(x, R, n, res);
        for (int r = 0; r < R; ++r) store(b + r * q + t, res[r]);
      }
      j = b + R * q;
    }
  }
  for (; j < e; ++j) store(j, ReduceRun<T, Op>(run(j), n));
}

// Reduces into `out` (memory allocated here) with accumulator type A; `finish`
// maps the accumulated value to the stored one (mean divides). O is out's element
// type: T, or the accumulator's type when a low-precision x is summed to float32.
template <typename T, typename Op, typename O = T, typename Finish>
void ReduceInto(const DenseTensor& x, const std::vector<int64_t>& axes, DenseTensor* out,
                Finish finish) {
  using A = acc_t<T>;
  O* o = static_cast<O*>(out->AllocateFrom(x.place()));
  // Zero-size fast paths: the plan's loops would walk every empty row, and an
  // empty tensor's other dims may be huge ([2**40, 0] reduced over axis 0).
  if (out->numel() == 0) return;
  if (x.numel() == 0) {
    std::fill(o, o + out->numel(), static_cast<O>(finish(Op::template Init<A>())));
    return;
  }
  Plan p;
  DenseTensor xc = PlanReduction(x, axes, &p);
  const T* in = static_cast<const T*>(xc.data());
  if (p.pre > 1) {
    // Each output combines its pre runs in order o = 0, 1, ...: the same bits
    // for any thread count.
    ParallelFor(0, p.outer, p.pre * p.reduce, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        A acc = Op::template Init<A>();
        for (int64_t r = 0; r < p.pre; ++r)
          acc = Op::Combine(acc, ReduceRun<T, Op>(in + (r * p.outer + k) * p.reduce, p.reduce));
        o[k] = static_cast<O>(finish(acc));
      }
    });
    return;
  }
  if (p.outer == 1 && p.inner == 1) {
    // One output: fixed chunks in parallel, partials combined in order.
    const int64_t chunks = (p.reduce + kChunk - 1) / kChunk;
    SmallVector<A, 8> partial(chunks);
    // Every chunk but the last has kChunk elements.
    const int64_t full = p.reduce / kChunk;
    ParallelFor(0, chunks, kChunk, [&](int64_t b, int64_t e) {
      RunsInStreams<T, Op>(
          b, std::min(e, full), kChunk, [&](int64_t c) { return in + c * kChunk; },
          [&](int64_t c, A v) { partial[c] = v; });
      for (int64_t c = std::max(b, full); c < e; ++c) {
        partial[c] = ReduceRun<T, Op>(in + c * kChunk, p.reduce - c * kChunk);
      }
    });
    A acc = partial[0];
    for (int64_t c = 1; c < chunks; ++c) acc = Op::Combine(acc, partial[c]);
    o[0] = static_cast<O>(finish(acc));
    return;
  }
  if (p.reduce == 1) {  // only size-1 dims reduced: no call per element
    ParallelFor(0, p.outer * p.inner, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        o[i] = static_cast<O>(finish(Op::Combine(Op::template Init<A>(), static_cast<A>(in[i]))));
      }
    });
    return;
  }
  if (p.inner == 1) {
    ParallelFor(0, p.outer, p.reduce, [&](int64_t b, int64_t e) {
      RunsInStreams<T, Op>(
          b, e, p.reduce, [&](int64_t i) { return in + i * p.reduce; },
          [&](int64_t i, A v) { o[i] = static_cast<O>(finish(v)); });
    });
    return;
  }
  // Note [Reduced rows in fixed blocks]
  // [outer, reduce, inner] is cut into blocks of kRowBlock rows; each block's rows are
  // combined in order r = 0, 1, ... into a partial row, and the partial rows in block
  // order into the output. The blocks do not depend on the thread count, so neither do
  // the bits; the threads share (outer, row block, columns) tasks, columns cut only when
  // there are too few blocks to go round. With whole reduced columns per thread, [1000,
  // 1000] over axis 0 had two threads read alternate halves of every row: 49-89 us
  // against 58 on one thread; contiguous row blocks take 31 (benchmarks/kernels.py).
  const int64_t row_blocks = (p.reduce + kRowBlock - 1) / kRowBlock;
  const int64_t tasks = p.outer * row_blocks;
  const int64_t threads = detail::IntraOpThreads();
  const int64_t col_cuts =
      std::min((threads + tasks - 1) / tasks, std::max<int64_t>(1, p.inner / kColumns));
  const int64_t per_block = (p.inner + col_cuts - 1) / col_cuts;
  const int64_t col_blocks = (p.inner + per_block - 1) / per_block;
  // One block: the partial row is the output's, finished in place of a second pass.
  // At most 1/kRowBlock of x's elements: no size check needed.
  std::vector<A> partial(row_blocks > 1 ? static_cast<size_t>(tasks * p.inner) : 0);
  ParallelFor(0, tasks * col_blocks, std::min(kRowBlock, p.reduce) * std::min(p.inner, per_block),
              [&](int64_t b, int64_t e) {
                std::vector<A> own(row_blocks > 1 ? 0 : std::min(p.inner, per_block));
                for (int64_t t = b; t < e; ++t) {
                  const int64_t task = t / col_blocks, i = task / row_blocks,
                                rb = task % row_blocks;
                  const int64_t j0 = (t % col_blocks) * per_block;
                  const int64_t m = std::min(per_block, p.inner - j0);
                  const int64_t r0 = rb * kRowBlock, rows = std::min(kRowBlock, p.reduce - r0);
                  A* a = row_blocks > 1 ? partial.data() + task * p.inner + j0 : own.data();
                  std::fill(a, a + m, Op::template Init<A>());
                  const T* block = in + (i * p.reduce + r0) * p.inner + j0;
                  // Four rows per sweep over the accumulators (a quarter of their loads and
                  // stores), combined in row order as one row at a time would.
                  int64_t r = 0;
                  for (; r + 4 <= rows; r += 4) {
                    const T* x0 = block + r * p.inner;
                    const T* x1 = x0 + p.inner;
                    const T* x2 = x1 + p.inner;
                    const T* x3 = x2 + p.inner;
#pragma omp simd
                    for (int64_t j = 0; j < m; ++j) {
                      A v = Op::Combine(a[j], static_cast<A>(x0[j]));
                      v = Op::Combine(v, static_cast<A>(x1[j]));
                      v = Op::Combine(v, static_cast<A>(x2[j]));
                      a[j] = Op::Combine(v, static_cast<A>(x3[j]));
                    }
                  }
                  for (; r < rows; ++r) {
                    const T* row = block + r * p.inner;
#pragma omp simd
                    for (int64_t j = 0; j < m; ++j)
                      a[j] = Op::Combine(a[j], static_cast<A>(row[j]));
                  }
                  if (row_blocks == 1) {
                    for (int64_t j = 0; j < m; ++j)
                      o[i * p.inner + j0 + j] = static_cast<O>(finish(a[j]));
                  }
                }
              });
  if (row_blocks == 1) return;
  // The partial rows of each output row, combined in block order into the first.
  ParallelFor(0, p.outer * p.inner, row_blocks, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e;) {
      const int64_t i = k / p.inner, j0 = k % p.inner, m = std::min(e - k, p.inner - j0);
      A* acc = partial.data() + i * row_blocks * p.inner + j0;
      for (int64_t rb = 1; rb < row_blocks; ++rb) {
        const A* part = acc + rb * p.inner;
#pragma omp simd
        for (int64_t j = 0; j < m; ++j) acc[j] = Op::Combine(acc[j], part[j]);
      }
      for (int64_t j = 0; j < m; ++j) o[k + j] = static_cast<O>(finish(acc[j]));
      k += m;
    }
  });
}

template <typename T>
void SumImpl(const DenseTensor& x, const std::vector<int64_t>& axes, DenseTensor* out) {
  ReduceInto<T, SumOp>(x, axes, out, [](auto a) { return a; });
}

}  // namespace

template <typename T>
void SumKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& axis,
               DType dtype, bool keepdim, DenseTensor* out) {
  (void)dtype;
  (void)keepdim;
  const auto axes = NormalizeReduceAxes(axis, x.ndim());
  if constexpr (!std::is_same_v<acc_t<T>, T>) {
    // x is summed in its accumulator type whatever out's dtype: when out has that type
    // (bfloat16/float16 to float32, a float32 bias's gradient under auto_cast; bool and
    // small integers to int64, their default), x is not cast first (a pass over x and a
    // wider copy of it: 2.3x the time of the sum alone for bfloat16).
    if (out->dtype() == dtype_of_v<acc_t<T>>) {
      ReduceInto<T, SumOp, acc_t<T>>(x, axes, out, [](auto a) { return a; });
      return;
    }
  }
  if (out->dtype() != x.dtype()) {
    const DenseTensor xc = funcs::CastTo(x, out->dtype());
    VisitDTypeWithComplex(out->dtype(), [&]<typename U>() { SumImpl<U>(xc, axes, out); });
    return;
  }
  SumImpl<T>(x, axes, out);
}

template <typename T>
void MeanKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& axis,
                bool keepdim, DenseTensor* out) {
  (void)keepdim;
  const auto axes = NormalizeReduceAxes(axis, x.ndim());
  const int64_t count = out->numel() == 0 ? 0 : x.numel() / std::max<int64_t>(out->numel(), 1);
  using A = acc_t<T>;
  const A n = static_cast<A>(count);
  ReduceInto<T, SumOp>(x, axes, out, [=](A a) { return a / n; });
}

template <typename T>
void MaxKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& axis,
               bool keepdim, DenseTensor* out) {
  (void)keepdim;
  OAR_ENFORCE(x.numel() > 0 || out->numel() == 0,
              errors::InvalidArgument("cannot take the max of an empty tensor"));
  ReduceInto<T, MaxOp>(x, NormalizeReduceAxes(axis, x.ndim()), out, [](auto a) { return a; });
}

template <typename T>
void MinKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& axis,
               bool keepdim, DenseTensor* out) {
  (void)keepdim;
  OAR_ENFORCE(x.numel() > 0 || out->numel() == 0,
              errors::InvalidArgument("cannot take the min of an empty tensor"));
  ReduceInto<T, MinOp>(x, NormalizeReduceAxes(axis, x.ndim()), out, [](auto a) { return a; });
}

// Sums x down to `shape` (which broadcasts to x's shape).
template <typename T>
void SumToKernel(const DeviceContext&, const DenseTensor& x, const std::vector<int64_t>& shape,
                 DenseTensor* out) {
  const int64_t xr = x.ndim(), tr = static_cast<int64_t>(shape.size());
  std::vector<int64_t> axes;
  for (int64_t d = 0; d < xr; ++d) {
    const int64_t td = d - (xr - tr);
    if (td < 0 || (shape[td] == 1 && x.dims()[d] != 1)) axes.push_back(d);
  }
  if (axes.empty()) {
    // Only size-1 dims differ: the same elements under the target shape.
    const DenseTensor src = funcs::Contiguous(x);
    DenseTensorMeta m = src.meta();
    m.dims = out->dims();
    m.strides = ContiguousStrides(m.dims);
    out->AllocateFrom(x.place());
    funcs::CopyInto(DenseTensor(src.Holder(), m), out);
    return;
  }
  SumImpl<T>(x, axes, out);
}

OAR_REGISTER_KERNEL(sum, CPU, Any, SumKernel, OAR_ALL_TYPES);
OAR_REGISTER_KERNEL(mean, CPU, Any, MeanKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(max, CPU, Any, MaxKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(min, CPU, Any, MinKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(sum_to, CPU, Any, SumToKernel, OAR_NUMERIC_TYPES);
// Complex: sums and means (max and min have no complex meaning).
OAR_REGISTER_KERNEL(sum, CPU, Any, SumKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(mean, CPU, Any, MeanKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(sum_to, CPU, Any, SumToKernel, OAR_COMPLEX_TYPES);

}  // namespace oar
