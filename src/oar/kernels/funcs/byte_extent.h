// The bytes a strided tensor's elements reach: the one overlap test behind in-place ops
// (Note [In-place inputs that overlap the written tensor] in api/api_base.h) and the
// elementwise loop's tiles (Note [Transposed operands are walked in tiles] in
// funcs/strided_loop.h).
#pragma once

#include <cstddef>
#include <cstdint>

namespace oar::funcs {

// [first, last): from the first byte of the lowest element to one past the last byte of
// the highest. Two tensors whose extents do not meet share no byte; two that meet may
// still not (x[:, ::2] and x[:, 1::2]), which the tests accept: a needless copy or an
// untiled loop, never a wrong order.
struct ByteExtent {
  int64_t first = 0, last = 0;

  bool Meets(const ByteExtent& other) const { return first < other.last && other.first < last; }
};

// The extent of elements starting at byte `start` (an address or an offset into one
// allocation), `elem_bytes` long, stepping strides[d] * stride_bytes bytes along each of
// `sizes` (none of them 0).
template <typename Sizes, typename Strides>
ByteExtent ExtentOf(int64_t start, const Sizes& sizes, const Strides& strides, int64_t stride_bytes,
                    int64_t elem_bytes) {
  ByteExtent e{start, start + elem_bytes};
  for (size_t d = 0; d < sizes.size(); ++d) {
    const int64_t reach = (sizes[d] - 1) * strides[d] * stride_bytes;
    (reach < 0 ? e.first : e.last) += reach;
  }
  return e;
}

}  // namespace oar::funcs
