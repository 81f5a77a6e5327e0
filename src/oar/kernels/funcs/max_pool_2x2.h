// The argmax of 2x2 windows at stride 2 without padding, the pool of nearly
// every CNN, sixteen outputs at a time with AVX-512. The generic row kernel
// (pooling_kernels.cc, MaxPoolRow) loads each candidate at stride 2 and keeps
// 64-bit indices in its selects, which the compiler leaves at a few lanes per
// instruction; here the two input rows of a window row are read contiguously
// (masked at the row's end, so a row of 7 or 14 outputs still takes one
// step), the four candidates of each window are split out by even/odd
// permutes, and the winner is kept as a 2-bit code in 32-bit lanes, turned
// into an index only at the store. float16/bfloat16 rows are widened to float
// in the load: the half-size input is what makes the low-precision pool
// cheaper than float32's, as it should be. With AVX2, float only, eight
// outputs a step (max_pool_2x2_avx2.cc). Each width is its own unit, built for
// its level and picked at run time (Note [One cap on the dispatched ISA] in
// core/cpu_isa.h); the generic kernel serves everything else, with the same
// results: indices are exact.
#pragma once

#include <cstdint>

#include "oar/core/dtype.h"

namespace oar::funcs {

// out[oh * OW + ow] = the flat index (into the plane) of the maximum of the
// window whose top-left element is plane[2 oh * IW + 2 ow], for oh < OH and
// ow < OW; needs 2 OH <= IH, 2 OW <= IW and IH * IW < 2^31. Ties keep the first
// element in row-major order, and a NaN wins (the last of several), as in the
// generic kernel.
using MaxPool2x2Fn = void (*)(const void* plane, int64_t IW, int64_t OH, int64_t OW, int64_t* out);

// The SIMD kernel for planes of `dtype` that dispatch allows on this CPU, or
// null when there is none (then the generic kernel runs).
MaxPool2x2Fn MaxPool2x2For(DType dtype);

}  // namespace oar::funcs
