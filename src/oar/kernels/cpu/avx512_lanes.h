// Masks of the low lanes of an AVX-512 vector, for the loads and stores of a row's
// last partial vector: shared by the weight packers (weight_pack.cc) and the panel
// kernel (panel_gemm.cc). The mask types are plain integers, usable from any code.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace oar::avx512 {

// The low `count` of 32 lanes (all for count >= 32, none for count <= 0).
inline __mmask32 Lanes(int64_t count) {
  if (count >= 32) return ~__mmask32(0);
  if (count <= 0) return 0;
  return (__mmask32(1) << count) - 1;
}

// The low `count` of 16 lanes (all for count >= 16, none for count <= 0).
inline __mmask16 Lanes16(int64_t count) {
  if (count >= 16) return ~__mmask16(0);
  if (count <= 0) return 0;
  return static_cast<__mmask16>((1u << count) - 1);
}

}  // namespace oar::avx512
