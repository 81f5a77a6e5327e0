// The inner kernels of the panel product (Note [A product of few rows streams its weight
// once] in panel_gemm.h), one per ISA: a tile of rows of A times columns of one packed
// panel of B. Only panel_gemm.cc and the tiles' own files include this header.
#pragma once

#include <array>
#include <cstdint>
#include <utility>

#include "oar/kernels/cpu/panel_gemm.h"

namespace oar::cpu::panel {

// The row stride of the copied blocks of A: a constant, and not a multiple of 4 KiB, so
// the rows of a tile fall in different sets of L1.
inline constexpr int64_t kBlockStride = kBlockDepth + kPanelCols;

// How a tile's accumulators start: zero, c's values, or beta * c.
enum class Start { kZero, kLoad, kScale };

// c[r, j] = start + sum over k < depth of a[r, k] * b[k, j], for r < rows and j < cols:
// ab holds A's copied blocks of kBlockDepth columns, block_floats apart (row stride
// kBlockStride in each), b a panel's rows (kPanelCols apart). 1 <= rows <= the ISA's
// max_rows, 1 <= cols <= kPanelCols.
using TileFn = void (*)(int64_t rows, const float* ab, int64_t block_floats, const float* b,
                        int64_t depth, float* c, int64_t ldc, Start start, float beta,
                        int64_t cols);

// An ISA's TileFn from its tiles of fixed rows, Isa::Tile<1> to Isa::Tile<MaxRows> (each
// unrolled over its rows, so that its accumulators stay in registers): a table by rows.
template <class Isa, int64_t MaxRows>
void RunTile(int64_t rows, const float* ab, int64_t block_floats, const float* b, int64_t depth,
             float* c, int64_t ldc, Start start, float beta, int64_t cols) {
  using RowsFn = void (*)(const float*, int64_t, const float*, int64_t, float*, int64_t, Start,
                          float, int64_t);
  static constexpr auto kTiles = []<size_t... R>(std::index_sequence<R...>) {
    return std::array<RowsFn, sizeof...(R)>{
        (R == 0 ? nullptr : &Isa::template Tile<static_cast<int>(R)>)...};
  }(std::make_index_sequence<MaxRows + 1>());
  kTiles[rows](ab, block_floats, b, depth, c, ldc, start, beta, cols);
}

struct TileKernel {
  TileFn tile;
  int64_t max_rows;  // the most rows one tile holds in registers
};

// AVX-512: one 16-wide accumulator a row, up to 24 rows (panel_tile_avx512.cc).
TileKernel Avx512Tile();
// AVX2 with FMA: two 8-wide accumulators a row, up to 6 rows (panel_tile_avx2.cc).
TileKernel Avx2Tile();

// PackF32's panel layout (weight_pack.h with 16 columns) for a float32 B ([k, n], element
// (r, c) at b[r * sr + c * sc], sr == 1 or sc == 1) in AVX2, for CPUs without AVX-512:
// panel p at p * RoundUp(k, 16) * 16, its row r at + r * 16, zeros past k and n.
void PackPanelsAvx2(const float* b, int64_t k, int64_t n, int64_t sr, int64_t sc, float* out);

}  // namespace oar::cpu::panel
