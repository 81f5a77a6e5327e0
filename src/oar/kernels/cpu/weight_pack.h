// Packing the B operand of a GEMM into the blocked layout oneDNN's BRGEMM matmul
// reads: bfloat16 (Note [Packing bfloat16 weights for oneDNN] in matmul_onednn.cc)
// and float32 (Note [A recurrent weight is packed once] in matmul_onednn.h). Only
// kernel files include this header.
#pragma once

#include <cstdint>

namespace oar::onednn {

// The bfloat16 layout, oneDNN's BA16a64b2a for a [K, N] operand: K padded with zeros to
// a multiple of 32, N to a multiple of 64; blocks of 32 rows by 64 columns, the
// block (kb, nb) at (nb * Kp / 32 + kb) * kBlockElems; inside a block, rows
// 2p and 2p + 1 of column j side by side at (p * 64 + j) * 2 and + 1 (the pairs
// vdpbf16ps multiplies).
inline constexpr int64_t kPackRows = 32;
inline constexpr int64_t kPackCols = 64;
inline constexpr int64_t kBlockElems = kPackRows * kPackCols;

// Whether dispatch may run the packers (they need AVX512BW: the x86-64-v4 level,
// Note [One cap on the dispatched ISA] in core/cpu_isa.h).
bool CanPack();

// Writes B ([k, n] bfloat16 as raw 16-bit words, element (r, c) at
// b[r * sr + c * sc], sr == 1 or sc == 1) to `out` in the layout above, padding
// included; out holds RoundUp(k, 32) * RoundUp(n, 64) words. Runs on OpenMP's
// threads, as the oneDNN call that reads it does.
void PackBf16(const uint16_t* b, int64_t k, int64_t n, int64_t sr, int64_t sc, uint16_t* out);

// The float32 layout, oneDNN's BA16a64b for a [K, N] operand: K padded with zeros to
// a multiple of 16, N to a multiple of 64; blocks of 16 rows by 64 columns, the block
// (kb, nb) at (nb * Kp / 16 + kb) * kF32BlockElems; inside a block, element (r, c) at
// r * 64 + c.
inline constexpr int64_t kF32PackRows = 16;
inline constexpr int64_t kF32PackCols = 64;
inline constexpr int64_t kF32BlockElems = kF32PackRows * kF32PackCols;

// As PackBf16, for a float32 B in the layout above, or with blocks `cols` wide (a
// multiple of 16): 16 gives the column panels of panel_gemm.h, each panel's rows
// one after the other. out holds RoundUp(k, 16) * RoundUp(n, cols) floats.
void PackF32(const float* b, int64_t k, int64_t n, int64_t sr, int64_t sc, float* out,
             int64_t cols = kF32PackCols);

}  // namespace oar::onednn
