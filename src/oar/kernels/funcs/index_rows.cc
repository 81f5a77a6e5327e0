#include "oar/kernels/funcs/index_rows.h"

#include "oar/core/errors.h"
#include "oar/kernels/funcs/axis_rows.h"
#include "oar/kernels/funcs/copy.h"

namespace oar::funcs {

std::vector<int64_t> IndexValues(const DenseTensor& index) {
  const DenseTensor idx = CastTo(Contiguous(index), DType::kInt64);
  const int64_t* p = static_cast<const int64_t*>(idx.data());
  return std::vector<int64_t>(p, p + idx.numel());
}

int64_t CheckedPosition(int64_t v, int64_t size, const char* arg, int64_t axis) {
  if (v < -size || v >= size) {
    throw errors::OutOfRange("argument '", arg, "': index ", v, " is out of bounds for axis ", axis,
                             " with size ", size);
  }
  return v < 0 ? v + size : v;
}

std::vector<int64_t> CheckedPositions(const DenseTensor& index, int64_t size, const char* arg,
                                      int64_t axis) {
  std::vector<int64_t> pos = IndexValues(index);
  for (int64_t& v : pos) v = CheckedPosition(v, size, arg, axis);
  return pos;
}

std::vector<int64_t> NdRows(const DenseTensor& index, const DDim& dims, const char* arg) {
  const int64_t k = index.dims().back();
  // Without coordinates every row is the whole tensor; an empty one has nothing to
  // read or write, however many rows the index asks for (no vector of that size).
  if (k == 0 && NumelFrom(dims, 0) == 0) return {};
  const std::vector<int64_t> coords = IndexValues(index);
  int64_t rows = 1;  // prod(index.dims[:-1]), also when k is 0 (whole-tensor rows)
  for (size_t d = 0; d + 1 < index.dims().size(); ++d) rows *= index.dims()[d];
  // With k = 0 the row count is not bounded by the index's own size ([2**31, 0]):
  // too many is a MemoryError naming the count, not a bare std::bad_alloc.
  std::vector<int64_t> out = ScratchBuffer<int64_t>(rows);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t row = 0;
    for (int64_t d = 0; d < k; ++d) {
      row = row * dims[d] + CheckedPosition(coords[r * k + d], dims[d], arg, d);
    }
    out[r] = row;
  }
  return out;
}

int64_t NumelFrom(const DDim& dims, size_t from) {
  int64_t n = 1;
  for (size_t d = from; d < dims.size(); ++d) n *= dims[d];
  return n;
}

}  // namespace oar::funcs
