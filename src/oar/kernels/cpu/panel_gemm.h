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
// and a tile of rows of the product keeps its accumulators in registers over all of k
// (AVX-512: one 16-wide vector a row, up to 24 rows; AVX2: two 8-wide vectors a row, up
// to 6 rows; panel_tile.h): each 64-byte row of a panel is loaded once per tile and
// multiplied by every row of A, broadcast one element at a time from memory. So B
// streams through the core in order, once per product (per tile, past a tile's rows), and
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
//
// Without AVX-512 (or with OAR_MAX_CPU_ISA capping it) the AVX2 tile runs, on panels its
// own packer writes in the same layout. On two threads of an AVX2-only Zen 3
// (panel_gemm-zen3-avx2.md; the machine's speed moved by a third within the run, so
// shapes run in turn in other runs are quoted too) against oneDNN's plain product, which
// beats its packed one there: the LSTM model's step 0.92x forward and 0.79x for the
// gradient (0.75-0.80x forward in runs of 8 to 32 rows taking the two in turn), the
// GRU's 0.87x and 0.79x, hidden 1024 0.73x and 0.58x. Fewer rows win by more: 2 to 6
// rows took 0.41-0.62x and 8 rows 0.83-0.88x (two tiles of 4 rows, whose 8 chains of
// multiply-adds barely cover the latency: 8 rows took about twice 6 rows' time); 1 row
// lost (1.23-1.25x). Past 32 rows the two were within the spread of the runs (0.90-1.12x),
// so kMinPanelRowsAvx2 and kMaxPanelRowsAvx2 are 2 and 32.
inline constexpr int64_t kPanelCols = 16;
inline constexpr int64_t kBlockDepth = 512;
inline constexpr int64_t kMinPanelRows = 8;
inline constexpr int64_t kMaxPanelRows = 32;
inline constexpr int64_t kMinPanelRowsAvx2 = 2;
inline constexpr int64_t kMaxPanelRowsAvx2 = 32;

// c = a @ op(b) + beta * c, row-major float32, for many a and c with one b: b ([k, n],
// or [n, k] read transposed when tb, leading dimension ldb) is packed at construction;
// the shapes and strides are fixed then, a and c given to each Run.
class PanelGemm {
 public:
  // Whether a product of m rows runs here on this CPU: where AVX-512 dispatch is allowed
  // (Note [One cap on the dispatched ISA] in core/cpu_isa.h), kMinPanelRows <= m <=
  // kMaxPanelRows; else where AVX2 is, kMinPanelRowsAvx2 <= m <= kMaxPanelRowsAvx2.
  static bool Runs(int64_t m);
  // Any positive shape where AVX2 dispatch is allowed (a benchmark runs more rows than
  // Runs takes); else InvalidArgument.
  PanelGemm(bool tb, int64_t m, int64_t n, int64_t k, int64_t lda, const float* b, int64_t ldb,
            float beta, int64_t ldc);
  void Run(const float* a, float* c) const;

 private:
  int64_t m_, n_, k_, lda_, ldc_;
  float beta_;
  bool avx512_;         // the AVX-512 tile and packer, else the AVX2 ones
  DenseTensor panels_;  // PackF32's panel layout, kPanelCols wide, from oar's allocator
};

}  // namespace oar::cpu
