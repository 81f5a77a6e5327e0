// Shapes and strides: small inline vectors of int64 (no heap for rank <= 6).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "oar/core/small_vector.h"

namespace oar {

using DDim = SmallVector<int64_t, 6>;

inline DDim MakeDDim(const std::vector<int64_t>& v) { return DDim(v.begin(), v.end()); }
inline std::vector<int64_t> Vectorize(const DDim& d) { return {d.begin(), d.end()}; }

// In unsigned arithmetic: a shape holding a 0 multiplies to exactly 0 modulo 2^64 even
// when the dims before it overflow (no undefined behaviour); a non-empty shape that
// overflows never reaches here (CheckedProduct refuses it at allocation).
inline int64_t Product(const DDim& d) {
  uint64_t n = 1;
  for (int64_t v : d) n *= static_cast<uint64_t>(v);
  return static_cast<int64_t>(n);
}

// An InvalidArgument error: the contiguous strides of `dims` pass int64.
[[noreturn]] void ThrowStridesOverflow(const DDim& dims);

// Row-major (C-contiguous) strides, in elements. A dim of 0 or 1 counts as 1, so an
// empty shape can have strides past int64 ([1, 0, 2^40, 2^40]): refused, as CheckedProduct
// refuses it, rather than wrapped into strides a view would misuse.
inline DDim ContiguousStrides(const DDim& dims) {
  DDim strides(dims.size());
  int64_t s = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = s;
    if (dims[i] > 1 && __builtin_mul_overflow(s, dims[i], &s) && i > 0) ThrowStridesOverflow(dims);
  }
  return strides;
}

std::string DimsToString(const DDim& d);

// The number of elements of `d`; an InvalidArgument error if its dims other than 0
// multiply past int64 (NumPy's and PyTorch's rule: then neither the size nor the
// strides of even an empty shape are representable).
int64_t CheckedProduct(const DDim& d);

}  // namespace oar
