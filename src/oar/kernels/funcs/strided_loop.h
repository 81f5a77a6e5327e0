// The loop behind every elementwise kernel: K operands (the output first) with
// arbitrary strides over one broadcast shape. Dimensions are coalesced, the
// innermost one becomes a counted loop the compiler vectorises when strides are
// unit or zero, and outer rows are split across threads for large tensors.
#pragma once

#include <array>
#include <cstdint>

#include "oar/core/dense_tensor.h"
#include "oar/core/parallel.h"

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

// Calls body(n, ptrs, inner_strides_in_bytes) for every innermost run.
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
    std::array<int64_t, K> zero{};
    body(int64_t{1}, ops.base, zero);
    return;
  }
  const size_t nd = sizes.size();
  const int64_t inner = sizes[nd - 1];
  std::array<int64_t, K> inner_strides;
  for (size_t k = 0; k < K; ++k) inner_strides[k] = st[k][nd - 1];
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < nd; ++d) rows *= sizes[d];

  ParallelFor(0, rows, inner * cost_per_element, [&](int64_t r0, int64_t r1) {
    // Multi-index of row r0 over the outer dims, then advance like an odometer.
    DDim idx(nd > 1 ? nd - 1 : 1, 0);
    int64_t rem = r0;
    for (size_t d = nd - 1; d-- > 0;) {
      idx[d] = rem % sizes[d];
      rem /= sizes[d];
    }
    std::array<char*, K> ptrs;
    for (size_t k = 0; k < K; ++k) {
      char* p = ops.base[k];
      for (size_t d = 0; d + 1 < nd; ++d) p += idx[d] * st[k][d];
      ptrs[k] = p;
    }
    for (int64_t r = r0; r < r1; ++r) {
      body(inner, ptrs, inner_strides);
      // advance
      for (size_t d = nd - 1; d-- > 0;) {
        ++idx[d];
        for (size_t k = 0; k < K; ++k) ptrs[k] += st[k][d];
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
