// A float32 product of few rows by a B operand packed once into column panels: the
// recurrent products of the fused RNN (StepGemm in gemm.h). Only kernel files
// include this header.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>

namespace oar::cpu {

// Note [A product of few rows streams its weight once]
// A recurrent layer's forward step multiplies the batch's state, a few rows (the LSTM
// model's 20), by the recurrent weight read transposed: 20 x 2048 x 512, 4 MB of B for
// hidden 512. Here B is packed once into panels of 16 columns, each panel's rows one
// after another (PackF32 with 16 columns), and a tile of up to kMaxTileRows rows of the
// product keeps one 16-wide accumulator a row in registers: each 64-byte row of a panel
// is loaded once and multiplied by every row of A, broadcast one element at a time
// from memory. So B streams through the core once per product, and every load of it
// feeds as many multiply-adds as the tile has rows. A is copied in blocks of
// kBlockDepth columns into a buffer whose row stride is a constant, so a tile reaches
// its rows at fixed offsets from one pointer (with A's own stride, a variable, each row
// needs an address register of its own and the tile runs out of registers). The
// threads split the panels, so each output element is one sum over k in order,
// whatever the thread count.
//
// On two threads of the Xeon of model 207 (benchmarks/blas/panel_gemm.cc,
// benchmarks/results/panel_gemm-xeon-model207.md), 35 steps with the pack: the LSTM's
// forward step 5.46 ms against oneDNN's 6.33 with B packed once (0.86x; 0.82-0.88x in
// four more runs) and 9.12 plain; 0.80x at hidden 1024 and 0.83x at 128. Dispatch (Runs)
// follows the same table: 8 to 32 rows of a forward step took 0.87-0.91x oneDNN's packed
// time; with fewer rows the tile's few chains of multiply-adds wait on each other (4
// rows: 1.16x); past 32 rows the two were within the runs' spread (0.91-1.04x), and so
// was the gradient's product, B as stored, at every row count (0.94-1.05x), which stays
// on oneDNN (Note [A recurrent weight is packed once] in matmul_onednn.h). The LSTM
// model's recurrent layers' forward took 0.99x PyTorch's time before
// (benchmarks/lstm_parts.py --lockstep, lstm-parts-lockstep-xeon-model207-repeat.md),
// 0.89x after (lstm-parts-lockstep-xeon-model207-panel.md).
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
  // Whether a product of m rows, B read transposed when tb, runs here on this CPU: AVX-512
  // dispatch allowed (Note [One cap on the dispatched ISA] in core/cpu_isa.h), tb, and
  // kMinPanelRows <= m <= kMaxPanelRows.
  static bool Runs(int64_t m, bool tb);
  // Any positive shape where AVX-512 dispatch is allowed (a benchmark runs more rows than
  // Runs takes); else InvalidArgument.
  PanelGemm(bool tb, int64_t m, int64_t n, int64_t k, int64_t lda, const float* b, int64_t ldb,
            float beta, int64_t ldc);
  void Run(const float* a, float* c) const;

 private:
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  int64_t m_, n_, k_, lda_, ldc_;
  float beta_;
  std::unique_ptr<float, Free> panels_;  // PackF32's layout, kPanelCols wide
};

}  // namespace oar::cpu
