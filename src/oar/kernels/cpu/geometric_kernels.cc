// The geometric section (src/oar/ops/geometric.yaml): message passing on graphs. The
// reducing ops group their edges by destination row first (a stable counting sort), so
// each output row is computed by one thread from its edges in their original order:
// the rows run in parallel and the result does not depend on the thread count. Sums of
// float16/bfloat16 accumulate in float. Every index is checked before anything is
// written; a negative or too large one is an IndexError naming its argument.
#include <cmath>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/funcs/index_rows.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

enum Reduce : int64_t { kSum = 0, kMean = 1, kMax = 2, kMin = 3 };
enum MessageOp : int64_t { kAdd = 0, kMul = 1 };

// The positions of a 1-D index tensor, each checked to lie in [0, size).
std::vector<int64_t> GraphIndex(const DenseTensor& index, int64_t size, const char* arg,
                                const char* what) {
  std::vector<int64_t> pos = funcs::IndexValues(index);
  for (size_t i = 0; i < pos.size(); ++i) {
    OAR_ENFORCE(pos[i] >= 0 && pos[i] < size,
                errors::OutOfRange("argument '", arg, "' holds ", pos[i], " at position ", i,
                                   ", but it must lie in [0, ", size, ") (", what, ")"));
  }
  return pos;
}

// The edges grouped by row: row r's edges are order[start[r] .. start[r + 1]), in their
// original order.
struct EdgesByRow {
  std::vector<int64_t> start, order;
};

EdgesByRow GroupByRow(const std::vector<int64_t>& row_of_edge, int64_t rows) {
  EdgesByRow g;
  g.start.assign(rows + 1, 0);
  for (int64_t r : row_of_edge) ++g.start[r + 1];
  for (int64_t r = 0; r < rows; ++r) g.start[r + 1] += g.start[r];
  g.order.resize(row_of_edge.size());
  std::vector<int64_t> next(g.start.begin(), g.start.end() - 1);
  for (size_t e = 0; e < row_of_edge.size(); ++e) {
    g.order[next[row_of_edge[e]]++] = static_cast<int64_t>(e);
  }
  return g;
}

template <typename C>
bool IsNan(C v) {
  if constexpr (std::is_floating_point_v<C>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// out[r, k] = reduce over row r's edges e of message(e, k), k < inner; 0 for a row
// without edges. message returns compute_t<T>. A NaN message wins max and min.
template <typename T, typename Message>
void ReduceRows(const EdgesByRow& g, int64_t rows, int64_t inner, int64_t reduce,
                const Message& message, T* out) {
  using C = compute_t<T>;
  const int64_t edges = static_cast<int64_t>(g.order.size());
  const int64_t cost = inner * (edges / std::max<int64_t>(rows, 1) + 1);
  ParallelFor(0, rows, cost, [&](int64_t rb, int64_t re) {
    std::vector<C> acc(inner);
    for (int64_t r = rb; r < re; ++r) {
      const int64_t b = g.start[r], e = g.start[r + 1];
      T* o = out + r * inner;
      if (b == e) {
        std::fill(o, o + inner, T(0));
        continue;
      }
      for (int64_t k = 0; k < inner; ++k) acc[k] = message(g.order[b], k);
      for (int64_t i = b + 1; i < e; ++i) {
        const int64_t edge = g.order[i];
        for (int64_t k = 0; k < inner; ++k) {
          const C v = message(edge, k);
          if (reduce == kSum || reduce == kMean) {
            acc[k] += v;
          } else if (IsNan(v) || (reduce == kMax ? v > acc[k] : v < acc[k])) {
            acc[k] = v;
          }
        }
      }
      const C count = static_cast<C>(e - b);
      for (int64_t k = 0; k < inner; ++k) {
        o[k] = static_cast<T>(reduce == kMean ? acc[k] / count : acc[k]);
      }
    }
  });
}

// For the message ops: feature k of the (broadcast) output reads feature xo[k] of x's
// row and yo[k] of y's row.
struct FeatureMap {
  int64_t x_inner = 0, y_inner = 0, inner = 0;
  std::vector<int64_t> xo, yo;
};

FeatureMap MapFeatures(const DDim& x, const DDim& y) {
  const DDim f = MessageFeatureDims(x, y);
  FeatureMap m;
  m.x_inner = funcs::NumelFrom(x, 1);
  m.y_inner = funcs::NumelFrom(y, 1);
  m.inner = funcs::NumelFrom(f, 0);
  m.xo.resize(m.inner);
  m.yo.resize(m.inner);
  const int64_t nd = static_cast<int64_t>(f.size());
  for (int64_t k = 0; k < m.inner; ++k) {
    int64_t rem = k, xoff = 0, yoff = 0, xs = 1, ys = 1;
    for (int64_t d = nd - 1; d >= 0; --d) {
      const int64_t c = rem % f[d];
      rem /= f[d];
      if (x[d + 1] != 1) xoff += c * xs;
      if (y[d + 1] != 1) yoff += c * ys;
      xs *= x[d + 1];
      ys *= y[d + 1];
    }
    m.xo[k] = xoff;
    m.yo[k] = yoff;
  }
  return m;
}

template <typename C>
C Combine(int64_t op, C a, C b) {
  if constexpr (std::is_same_v<C, bool>) {
    return op == kAdd ? (a || b) : (a && b);
  } else {
    return op == kAdd ? a + b : a * b;
  }
}

}  // namespace

// out[d] = reduce over the edges e with dst[e] == d of x's row src[e] (row e when src
// is empty: segment_pool).
template <typename T>
void ReduceGathered(const DenseTensor& x, const std::vector<int64_t>& src,
                    const std::vector<int64_t>& dst, int64_t rows, int64_t reduce,
                    DenseTensor* out) {
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  // An empty output (x of [0, 0]) names no row: no per-row table of num_segments + 1
  // entries (2**33 of them asked for 64 GiB).
  if (out->numel() == 0) return;
  const DenseTensor xc = funcs::Contiguous(x);
  const T* xp = static_cast<const T*>(xc.data());
  const int64_t inner = funcs::NumelFrom(x.dims(), 1);
  ReduceRows<T>(
      GroupByRow(dst, rows), rows, inner, reduce,
      [&](int64_t e, int64_t k) {
        return static_cast<compute_t<T>>(xp[(src.empty() ? e : src[e]) * inner + k]);
      },
      o);
}

template <typename T>
void SegmentPoolKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& segment_ids,
                       int64_t num_segments, int64_t reduce, DenseTensor* out) {
  const std::vector<int64_t> ids =
      GraphIndex(segment_ids, num_segments, "segment_ids", "the number of segments");
  ReduceGathered<T>(x, {}, ids, num_segments, reduce, out);
}

template <typename T>
void SendURecvKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& src_index,
                     const DenseTensor& dst_index, int64_t reduce, int64_t out_size,
                     DenseTensor* out) {
  const std::vector<int64_t> src = GraphIndex(src_index, x.dims()[0], "src_index", "the rows of x");
  const std::vector<int64_t> dst =
      GraphIndex(dst_index, out_size, "dst_index", "the rows of the output, out_size");
  ReduceGathered<T>(x, src, dst, out_size, reduce, out);
}

template <typename T>
void SendUERecvKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y,
                      const DenseTensor& src_index, const DenseTensor& dst_index,
                      int64_t message_op, int64_t reduce, int64_t out_size, DenseTensor* out) {
  const std::vector<int64_t> src = GraphIndex(src_index, x.dims()[0], "src_index", "the rows of x");
  const std::vector<int64_t> dst =
      GraphIndex(dst_index, out_size, "dst_index", "the rows of the output, out_size");
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  if (out->numel() == 0) return;  // as ReduceGathered
  const DenseTensor xc = funcs::Contiguous(x), yc = funcs::Contiguous(y);
  const T* xp = static_cast<const T*>(xc.data());
  const T* yp = static_cast<const T*>(yc.data());
  const FeatureMap m = MapFeatures(x.dims(), y.dims());
  using C = compute_t<T>;
  ReduceRows<T>(
      GroupByRow(dst, out_size), out_size, m.inner, reduce,
      [&](int64_t e, int64_t k) {
        return Combine<C>(message_op, static_cast<C>(xp[src[e] * m.x_inner + m.xo[k]]),
                          static_cast<C>(yp[e * m.y_inner + m.yo[k]]));
      },
      o);
}

template <typename T>
void SendUVKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y,
                  const DenseTensor& src_index, const DenseTensor& dst_index, int64_t message_op,
                  DenseTensor* out) {
  const std::vector<int64_t> src = GraphIndex(src_index, x.dims()[0], "src_index", "the rows of x");
  const std::vector<int64_t> dst = GraphIndex(dst_index, y.dims()[0], "dst_index", "the rows of y");
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  const DenseTensor xc = funcs::Contiguous(x), yc = funcs::Contiguous(y);
  const T* xp = static_cast<const T*>(xc.data());
  const T* yp = static_cast<const T*>(yc.data());
  const FeatureMap m = MapFeatures(x.dims(), y.dims());
  using C = compute_t<T>;
  const int64_t edges = static_cast<int64_t>(src.size());
  ParallelFor(0, edges, m.inner, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const T* xr = xp + src[i] * m.x_inner;
      const T* yr = yp + dst[i] * m.y_inner;
      T* orow = o + i * m.inner;
      for (int64_t k = 0; k < m.inner; ++k) {
        orow[k] = static_cast<T>(
            Combine<C>(message_op, static_cast<C>(xr[m.xo[k]]), static_cast<C>(yr[m.yo[k]])));
      }
    }
  });
}

OAR_REGISTER_KERNEL(segment_pool, CPU, Any, SegmentPoolKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(send_u_recv, CPU, Any, SendURecvKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(send_ue_recv, CPU, Any, SendUERecvKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(send_uv, CPU, Any, SendUVKernel, OAR_NUMERIC_TYPES);

}  // namespace oar
