// Index arithmetic shared by the gather and scatter kernels: integer index tensors
// read as checked int64 positions, and N-d coordinates turned into row numbers.
// Every position is checked before any memory is touched, so a bad index raises
// an IndexError naming the argument instead of reading or writing out of bounds.
#pragma once

#include <cstdint>
#include <vector>

#include "oar/core/dense_tensor.h"

namespace oar::funcs {

// The values of an int32/int64 tensor as int64, row-major.
std::vector<int64_t> IndexValues(const DenseTensor& index);

// `v` as a position in [0, size) (negative values count from the end), or an
// OutOfRange error naming the argument and the axis.
int64_t CheckedPosition(int64_t v, int64_t size, const char* arg, int64_t axis);

// The positions of a whole index tensor along one axis of size `size`.
std::vector<int64_t> CheckedPositions(const DenseTensor& index, int64_t size, const char* arg,
                                      int64_t axis);

// index has shape [..., k]: each row of k coordinates addresses one sub-tensor of
// shape dims[k:]; the result holds its row number in the row-major [prod(dims[:k]),
// prod(dims[k:])] view, one per coordinate row (none when k is 0 and dims hold no
// element: there is nothing to address).
std::vector<int64_t> NdRows(const DenseTensor& index, const DDim& dims, const char* arg);

// The number of elements of dims[from:].
int64_t NumelFrom(const DDim& dims, size_t from);

}  // namespace oar::funcs
