// Views of a tensor as rows along axes, shared by the statistics, search and
// scan kernels: a reduction over any axes reads one contiguous row per output
// element, and an op along one axis walks [outer, n, inner] with stride inner.
#pragma once

#include <algorithm>
#include <new>
#include <stdexcept>
#include <vector>

#include <unistd.h>

#include "oar/core/dense_tensor.h"
#include "oar/core/errors.h"
#include "oar/kernels/funcs/copy.h"

namespace oar::funcs {

// x made contiguous with the kept dims first and the reduced `axes` (normalised,
// sorted; empty = all) last: output element r reads data[r * len, (r + 1) * len).
struct Rows {
  DenseTensor data;
  int64_t rows = 1, len = 1;
};

inline Rows ReducedRows(const DenseTensor& x, const std::vector<int64_t>& axes) {
  const int64_t rank = x.ndim();
  std::vector<bool> red(rank, axes.empty());
  for (int64_t a : axes) red[a] = true;
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    if (!red[d]) perm.push_back(d);
  for (int64_t d = 0; d < rank; ++d)
    if (red[d]) perm.push_back(d);
  DenseTensorMeta m = x.meta();
  Rows r;
  for (int64_t i = 0; i < rank; ++i) {
    m.dims[i] = x.dims()[perm[i]];
    m.strides[i] = x.strides()[perm[i]];
    (red[perm[i]] ? r.len : r.rows) *= m.dims[i];
  }
  r.data = Contiguous(DenseTensor(x.Holder(), m));
  return r;
}

// [outer, n, inner] around `axis` of dims (a 0-d tensor is one element).
struct AxisSplit {
  int64_t outer = 1, n = 1, inner = 1;
  // The offset of element j of line `line` (line in [0, outer * inner)).
  int64_t At(int64_t line, int64_t j) const {
    return ((line / inner) * n + j) * inner + line % inner;
  }
  int64_t lines() const { return outer * inner; }
};

inline AxisSplit SplitAround(const DDim& dims, int64_t axis) {
  AxisSplit s;
  if (dims.empty()) return s;
  for (int64_t d = 0; d < axis; ++d) s.outer *= dims[d];
  s.n = dims[axis];
  for (size_t d = axis + 1; d < dims.size(); ++d) s.inner *= dims[d];
  return s;
}

// Orders for sorting: NaN after every number ascending (and so first descending),
// as torch.sort and numpy do.
template <typename C>
inline bool LessNanLast(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (a != a) return false;
    if (b != b) return true;
  }
  return a < b;
}

// Whether `bytes` of working memory pass the machine's physical memory: past it the
// process is OOM-killed or pages for ever, so the caller raises MemoryError instead.
inline bool ExceedsMemory(double bytes) {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 && bytes > static_cast<double>(pages) * page;
}

// A zero-initialised scratch buffer of n values whose size comes from the data or an
// attribute (bincount's largest value, histogram's bins): too large is a typed error.
// One larger than the machine's physical memory is refused before the allocator sees
// it: its zero fill would touch every page, and sanitizer runtimes abort on such a
// request instead of throwing bad_alloc.
template <typename V>
std::vector<V> ScratchBuffer(int64_t n) {
  if (n < 0 || ExceedsMemory(static_cast<double>(n) * sizeof(V))) {
    throw errors::ResourceExhausted("cannot allocate a buffer of ", n, " values (",
                                    static_cast<double>(n) * sizeof(V),
                                    " bytes): more than this machine's memory");
  }
  try {
    return std::vector<V>(static_cast<size_t>(n), V(0));
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {
  }
  throw errors::ResourceExhausted("cannot allocate a buffer of ", n, " values");
}

}  // namespace oar::funcs
