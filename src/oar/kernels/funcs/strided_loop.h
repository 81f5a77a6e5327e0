// The loop behind every elementwise kernel: K operands (the output first) with
// arbitrary strides over one broadcast shape. Dimensions are coalesced, the
// innermost one becomes a counted loop the compiler vectorises when strides are
// unit or zero, and outer rows are split across threads for large tensors.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <type_traits>

#include "oar/core/dense_tensor.h"
#include "oar/core/parallel.h"
#include "oar/kernels/funcs/byte_extent.h"

namespace oar::funcs {

// Strides (in elements) of `t` seen through the broadcast shape `out_dims`:
// broadcast dimensions get stride 0.
inline DDim BroadcastStrides(const DenseTensor& t, const DDim& out_dims) {
  const size_t rank = out_dims.size();
  const size_t trank = t.dims().size();
  DDim s(rank, 0);
  for (size_t i = 0; i < trank; ++i) {
    const size_t o = rank - trank + i;
    s[o] = (t.dims()[i] == 1 && out_dims[o] != 1) ? 0 : t.strides()[i];
  }
  return s;
}

template <size_t K>
struct LoopOperands {
  std::array<char*, K> base;
  std::array<DDim, K> strides;  // in bytes, aligned to the loop shape
};

// Note [Transposed operands are walked in tiles]
// The loop runs along the output's innermost dimension. An operand whose elements
// are adjacent along the next dimension instead (a.T + b, x.T.contiguous()) is then
// read one cache line per element, and each line again for every row that shares it
// unless it stayed cached: a.T + b over 1024 x 65536 floats took 394 ms, copying a.T
// 284 ms. With such an operand the rows are taken in groups of 128 and the innermost
// dimension in short runs, so a group reads each line of that operand once. The run
// is shortest when the operand's row stride is a multiple of 4 KiB: its lines then
// share one set of the first-level cache (64 sets of 64 bytes on x86), whose 8 ways
// hold only 8 of them. A loop like this one, one thread, copying a transposed 4096 x
// 4096 float32 matrix (a 16 KiB stride): 140 ms in rows, 49 ms in runs of 64, 14 ms in
// runs of 8; a 700 x 512 one (2800 bytes): 0.136, 0.074 in runs of 64, 0.162 in runs of
// 8. In oar, two threads, 1024 x 65536 floats: a.T + b 172 ms, copying a.T 93 ms.
// Each element is still computed once by the same body; only the order of the runs
// changes, so tiles are not used when an input overlaps the output other than as the
// same elements (x[1:, :-1] read while x[:-1, 1:] is written: the order decides what is
// read). In-place ops never hand the loop such an input: the API copies it first (Note
// [In-place inputs that overlap the written tensor] in api/api_base.h); a kernel that
// calls the loop directly may.
struct Tiling {
  int64_t rows = 1;  // rows per group; 1: no tiling
  int64_t run = 0;   // elements of the innermost dimension per call of the body
};

template <size_t K>
Tiling ChooseTiling(const DDim& sizes, const std::array<DDim, K>& st,
                    const std::array<char*, K>& base) {
  constexpr int64_t kGroupRows = 128, kLongRun = 64, kShortRun = 8, kSetPeriod = 4096;
  const size_t nd = sizes.size();
  if (nd < 2 || sizes[nd - 1] <= kShortRun || sizes[nd - 2] < 2) return {};
  const auto mag = [](int64_t v) { return v < 0 ? -v : v; };
  int64_t run = 0;
  for (size_t k = 0; k < K; ++k) {
    const int64_t in = mag(st[k][nd - 1]), next = mag(st[k][nd - 2]);
    if (next == 0 || next >= in) continue;
    // Lines `in` bytes apart fall into kSetPeriod / gcd(in, kSetPeriod) sets (of 64).
    const int64_t sets = kSetPeriod / std::gcd(in, kSetPeriod);
    const int64_t r = std::clamp(kShortRun * sets, kShortRun, kLongRun);
    run = run == 0 ? r : std::min(run, r);
  }
  if (run == 0) return {};
  // The loop does not know the operands' types: each element is taken as long as the
  // widest dtype's (complex128), so a near miss costs the tiles, never the order.
  constexpr int64_t kWidestElement = 16;
  const auto extent = [&](size_t k) {
    return ExtentOf(reinterpret_cast<intptr_t>(base[k]), sizes, st[k], 1, kWidestElement);
  };
  const ByteExtent out = extent(0);
  for (size_t k = 1; k < K; ++k) {
    const bool same_elements = base[k] == base[0] && st[k] == st[0];  // in place
    if (!same_elements && extent(k).Meets(out)) return {};
  }
  return {kGroupRows, run};
}

// Note [Few long rows are split along the row]
// Threads take whole rows of the loop, but a strided view often coalesces into one row:
// x[:, ::2] of a contiguous matrix is a single run with stride 2, and so is x[::3]. Its
// copy or x[:, ::2] + y[:, ::2] then ran on one thread (0.155 ms for 512 x 1024 floats on
// one thread and on two alike). With fewer rows than four per thread, each row is split
// into chunks across the threads instead, one row after the other, where a row holds at
// least two thresholds of work; shorter rows still go to threads whole (seven rows of
// 30000 elements would otherwise run on one thread, each row below the threshold).

// run(ptrs) for each of `rows` rows, the pointers stepped by row_strides after each: the
// one loop over a run of rows, for RunRows and the bodies that take runs.
template <size_t K, typename Run>
[[gnu::always_inline]] inline void ForEachRow(int64_t rows, std::array<char*, K> p,
                                              const std::array<int64_t, K>& row_strides,
                                              Run&& run) {
  for (int64_t r = 0; r < rows; ++r) {
    run(p);
    for (size_t k = 0; k < K; ++k) p[k] += row_strides[k];
  }
}

// Note [Runs of rows go to the body at once]
// The rows of a run along dimension nd - 2 (all the rows of a thread's chunk, in a loop
// of two dimensions after coalescing) go to the body in one call, body(rows, n, ptrs,
// inner_strides, row_strides), when it takes that form; otherwise RunRows calls body(n,
// ptrs, inner_strides) for each row, stepping the pointers by the row strides. The
// odometer moves once per run. Moved for each row, and with the body deciding its kind
// of row again for each, the bookkeeping cost more than short rows themselves: x *= y
// for x of [16384, 64] and y of [64] float32, one Zen 4 thread, took 199 us row by row,
// 85-90 us with the odometer moved once per run, and 49 us with the kind of row decided
// once per run as well (and the loop's values captured by value, Note [Kernel functors
// are copied into the loop] in funcs/elementwise.h). A plain C loop over the rows: 50 us;
// PyTorch 65.
template <size_t K, typename Body>
[[gnu::always_inline]] inline void RunRows(Body& body, int64_t rows, int64_t n,
                                           std::array<char*, K> p,
                                           const std::array<int64_t, K>& inner_strides,
                                           const std::array<int64_t, K>& row_strides) {
  if constexpr (std::is_invocable_v<Body&, int64_t, int64_t, const std::array<char*, K>&,
                                    const std::array<int64_t, K>&, const std::array<int64_t, K>&>) {
    body(rows, n, p, inner_strides, row_strides);
  } else {
    ForEachRow<K>(rows, p, row_strides,
                  [&](const std::array<char*, K>& q) { body(n, q, inner_strides); });
  }
}

// Calls body(n, ptrs, inner_strides_in_bytes) for every innermost run (or, with a
// transposed operand, for runs of it in tiles; with few rows, for chunks of a row), or
// body(rows, n, ptrs, inner_strides, row_strides) for runs of them (Note [Runs of rows go
// to the body at once]).
template <size_t K, typename Body>
void StridedLoop(const DDim& shape, LoopOperands<K> ops, int64_t cost_per_element, Body&& body) {
  // Coalesce: drop size-1 dims and merge dims that are contiguous for all operands.
  DDim sizes;
  std::array<DDim, K> st;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (!sizes.empty()) {
      bool merge = true;
      for (size_t k = 0; k < K; ++k) {
        if (st[k].back() != ops.strides[k][d] * shape[d]) {
          merge = false;
          break;
        }
      }
      if (merge) {
        sizes.back() *= shape[d];
        for (size_t k = 0; k < K; ++k) st[k].back() = ops.strides[k][d];
        continue;
      }
    }
    sizes.push_back(shape[d]);
    for (size_t k = 0; k < K; ++k) st[k].push_back(ops.strides[k][d]);
  }
  for (int64_t s : shape) {
    if (s == 0) return;
  }
  if (sizes.empty()) {
    const std::array<int64_t, K> zero{};
    RunRows<K>(body, 1, 1, ops.base, zero, zero);
    return;
  }
  const size_t nd = sizes.size();
  const int64_t inner = sizes[nd - 1];
  std::array<int64_t, K> inner_strides;
  for (size_t k = 0; k < K; ++k) inner_strides[k] = st[k][nd - 1];
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < nd; ++d) rows *= sizes[d];

  // The multi-index of row r over the outer dims and the operands' pointers there.
  const auto row_start = [&](int64_t r, DDim& idx, std::array<char*, K>& ptrs) {
    for (size_t d = nd - 1; d-- > 0;) {
      idx[d] = r % sizes[d];
      r /= sizes[d];
    }
    for (size_t k = 0; k < K; ++k) {
      char* p = ops.base[k];
      for (size_t d = 0; d + 1 < nd; ++d) p += idx[d] * st[k][d];
      ptrs[k] = p;
    }
  };
  const Tiling tiling = ChooseTiling(sizes, st, ops.base);
  if (tiling.rows == 1 && rows < 4 * detail::IntraOpThreads() &&
      inner * cost_per_element >= 2 * ParallelThreshold()) {
    // Note [Few long rows are split along the row]
    DDim idx(nd > 1 ? nd - 1 : 1, 0);
    std::array<char*, K> ptrs;
    for (int64_t r = 0; r < rows; ++r) {
      row_start(r, idx, ptrs);
      ParallelFor(0, inner, cost_per_element, [&](int64_t lo, int64_t hi) {
        std::array<char*, K> q;
        for (size_t k = 0; k < K; ++k) q[k] = ptrs[k] + lo * inner_strides[k];
        RunRows<K>(body, 1, hi - lo, q, inner_strides, inner_strides);
      });
    }
    return;
  }
  // Note [Runs of rows go to the body at once]
  std::array<int64_t, K> row_step{};
  if (nd > 1) {
    for (size_t k = 0; k < K; ++k) row_step[k] = st[k][nd - 2];
  }
  ParallelFor(0, rows, inner * cost_per_element, [&](int64_t r0, int64_t r1) {
    // Start at row r0, then advance like an odometer, a run of rows along dimension
    // nd - 2 at a time.
    DDim idx(nd > 1 ? nd - 1 : 1, 0);
    std::array<char*, K> ptrs;
    row_start(r0, idx, ptrs);
    for (int64_t r = r0; r < r1;) {
      int64_t group = nd > 1 ? std::min(r1 - r, sizes[nd - 2] - idx[nd - 2]) : 1;
      if (tiling.rows > 1) {
        // Note [Transposed operands are walked in tiles]
        group = std::min(group, tiling.rows);
        for (int64_t j = 0; j < inner; j += tiling.run) {
          const int64_t n = std::min(tiling.run, inner - j);
          std::array<char*, K> q;
          for (size_t k = 0; k < K; ++k) q[k] = ptrs[k] + j * inner_strides[k];
          RunRows<K>(body, group, n, q, inner_strides, row_step);
        }
      } else {
        RunRows<K>(body, group, inner, ptrs, inner_strides, row_step);
      }
      r += group;
      // advance `group` rows (a group never crosses the end of dimension nd - 2)
      for (size_t d = nd - 1; d-- > 0;) {
        const int64_t step = d == nd - 2 ? group : 1;
        idx[d] += step;
        for (size_t k = 0; k < K; ++k) ptrs[k] += step * st[k][d];
        if (idx[d] < sizes[d]) break;
        for (size_t k = 0; k < K; ++k) ptrs[k] -= st[k][d] * sizes[d];
        idx[d] = 0;
      }
    }
  });
}

// Byte strides of `t` aligned to `shape` (broadcast dims get 0).
inline DDim ByteStrides(const DenseTensor& t, const DDim& shape) {
  DDim s = BroadcastStrides(t, shape);
  const int64_t es = static_cast<int64_t>(SizeOf(t.dtype()));
  for (auto& v : s) v *= es;
  return s;
}

}  // namespace oar::funcs
