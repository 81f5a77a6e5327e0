// A float32 product of few rows by a B operand packed once into column panels: the
// recurrent products of the fused RNN (StepGemm in gemm.h). Only kernel files
// include this header.
#pragma once

#include <cstdint>

#include "oar/core/dense_tensor.h"

namespace oar::cpu {

// Note [A product of few rows streams its weight once]
// A recurrent layer's step multiplies the batch's state, a few rows (the LSTM model's
// 20), by the recurrent weight: 20 x 2048 x 512 forward (the weight read transposed) and
// 20 x 512 x 2048 for the gradient, 4 MB of B for hidden 512. Here B is packed once into
// panels of 16 columns, each panel's rows one after another (PackF32 with 16 columns),
// and a tile of up to kMaxTileRows rows of the product keeps one 16-wide accumulator a
// row in registers over all of k: each 64-byte row of a panel is loaded once and
// multiplied by every row of A, broadcast one element at a time from memory. So B
// streams through the core in order, once per product (per tile, past 24 rows), and
// every load of it feeds as many multiply-adds as the tile has rows. A is copied first,
// in blocks of kBlockDepth columns whose row stride is a constant, so a tile reaches its
// rows at fixed offsets from one pointer (with A's own stride, a variable, each row
// needs an address register of its own and the tile runs out of registers). The
// threads split the panels, so each output element is one sum over k in order,
// whatever the thread count.
//
// On two threads of the Xeon of model 207 (benchmarks/blas/panel_gemm.cc,
// benchmarks/results/panel_gemm-xeon-model207-whole-k.md), 35 steps with the pack,
// against oneDNN with B packed once (Note [A recurrent weight is packed once] in
// matmul_onednn.h): the LSTM model's step 5.18 ms against 6.02 forward (0.86x), 5.40
// against 5.81 for the gradient (0.93x); hidden 1024 0.77x and 0.88x. Runs follows the
// same table: with 8 to 32 rows the kernel took 0.86-0.94x oneDNN's time forward and
// 0.88-1.02x for the gradient (the GRU's the 1.02x; 0.99x and 1.01x in two more runs);
// with fewer rows the tile's few chains of multiply-adds wait on each other (4 rows:
// 1.22x); past 32 rows the two were within the runs' spread (0.93-1.00x), so those stay
// on oneDNN. An earlier version, which held a tile's sums over one block of A at a time
// and ran the gradient's panels a block apart, took 0.94-1.07x for the gradient
// (panel_gemm-xeon-model207.md).
inline constexpr int64_t kPanelCols = 16;
inline constexpr int64_t kMaxTileRows = 24;
inline constexpr int64_t kBlockDepth = 512;
inline constexpr int64_t kMinPanelRows = 8;
inline constexpr int64_t kMaxPanelRows = 32;

// c = a @ op(b) + beta * c, row-major float32, for many a and c with one b: b ([k, n],
// or [n, k] read transposed when tb, leading dimension ldb) is packed at construction;
// the shapes and strides are fixed then, a and c given to each Run.
class PanelGemm {
 public:
  // Whether a product of m rows runs here on this CPU: AVX-512 dispatch allowed (Note [One
  // cap on the dispatched ISA] in core/cpu_isa.h) and kMinPanelRows <= m <= kMaxPanelRows.
  static bool Runs(int64_t m);
  // Any positive shape where AVX-512 dispatch is allowed (a benchmark runs more rows than
  // Runs takes); else InvalidArgument.
  PanelGemm(bool tb, int64_t m, int64_t n, int64_t k, int64_t lda, const float* b, int64_t ldb,
            float beta, int64_t ldc);
  void Run(const float* a, float* c) const;

 private:
  int64_t m_, n_, k_, lda_, ldc_;
  float beta_;
  DenseTensor panels_;  // PackF32's layout, kPanelCols wide, from oar's allocator
};

}  // namespace oar::cpu
