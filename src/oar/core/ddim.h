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

inline int64_t Product(const DDim& d) {
  int64_t n = 1;
  for (int64_t v : d) n *= v;
  return n;
}

// Row-major (C-contiguous) strides, in elements.
inline DDim ContiguousStrides(const DDim& dims) {
  DDim strides(dims.size());
  int64_t s = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = s;
    s *= dims[i] > 1 ? dims[i] : 1;
  }
  return strides;
}

std::string DimsToString(const DDim& d);

// The number of elements of `d`; an InvalidArgument error if it overflows int64.
int64_t CheckedProduct(const DDim& d);

}  // namespace oar
