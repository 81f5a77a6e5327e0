// Copies and dtype conversions used by kernels and by the API's PrepareData.
#pragma once

#include "oar/core/dense_tensor.h"
#include "oar/core/scalar.h"

namespace oar::funcs {

// Writes src into dst (same dims; dst already has memory and any strides).
void CopyInto(const DenseTensor& src, DenseTensor* dst);
// A contiguous tensor with x's values: x itself (sharing memory) when it already is.
DenseTensor Contiguous(const DenseTensor& x);
// A contiguous copy of x with its own memory.
DenseTensor Clone(const DenseTensor& x);
// x converted to `dtype` (a contiguous copy), or x itself when the dtype matches.
DenseTensor CastTo(const DenseTensor& x, DType dtype);
// Fills every element of a tensor (any strides) with `value`.
// Integer dtypes take integer values exactly; a value the dtype cannot hold
// (NaN, out of range) is an error.
void Fill(DenseTensor* t, const Scalar& value);

}  // namespace oar::funcs
