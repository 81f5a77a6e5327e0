// The argmax (or the maximum) of a run of full 3-wide windows at column stride 2
// (ResNet's stem pool, 3x3 at stride 2) in one output row, eight outputs at a
// time with AVX2. The generic row kernel (pooling_kernels.cc, MaxPoolRow) loads
// each candidate at stride 2 and keeps 64-bit indices in its selects, which the
// compiler leaves at a few lanes per instruction: on 8x64x112x112 its index pass
// took 3.7x its values pass. Here each window row is read contiguously (the even
// and odd columns split out by shuffles), and the winner is kept as its 32-bit
// offset in the window, turned into an index only at the store. The clipped
// windows at a row's edges stay with the generic kernel, which gives the same
// results: indices are exact, ties keep the first element in row-major order
// and a NaN wins (the last of several).
#pragma once

#include <cstdint>

#include "oar/core/dtype.h"

namespace oar::funcs {

// For k < n, the window of rows [row0, row0 + rows) and columns [col0 + 2k,
// col0 + 2k + 3): index[k] = the flat index (into the plane) of its maximum, or,
// when index is null, values[k] = that maximum (of the plane's dtype). Every
// window lies inside the plane, whose rows are IW long and whose elements number
// fewer than 2^31. Reads no element outside those windows.
using MaxPool3x3RunFn = void (*)(const void* plane, int64_t IW, int64_t row0, int64_t rows,
                                 int64_t col0, int64_t n, int64_t* index, void* values);

// The SIMD kernel for planes of `dtype` that dispatch allows on this CPU, or null
// when there is none (then the generic kernel runs).
MaxPool3x3RunFn MaxPool3x3RunFor(DType dtype);

}  // namespace oar::funcs
