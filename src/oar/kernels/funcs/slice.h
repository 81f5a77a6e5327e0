// x[starts:ends:strides] along axes as a view of x's memory: the region that
// strided_slice returns and set_value writes into.
#pragma once

#include <vector>

#include "oar/core/dense_tensor.h"
#include "oar/kernels/infer_meta.h"

namespace oar::funcs {

inline DenseTensor SliceView(const DenseTensor& t, const std::vector<int64_t>& axes,
                             const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                             const std::vector<int64_t>& strides) {
  DenseTensorMeta m = t.meta();
  for (const auto& r : NormalizeSlices(t.dims(), axes, starts, ends, strides)) {
    if (r.size > 0) m.offset += r.start * m.strides[r.axis];
    m.dims[r.axis] = r.size;
    // With one element the stride is never used, and step may be near 2**63.
    if (r.size > 1) m.strides[r.axis] *= r.step;
  }
  return DenseTensor(t.Holder(), m);
}

}  // namespace oar::funcs
