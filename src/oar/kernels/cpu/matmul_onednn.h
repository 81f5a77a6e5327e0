// GEMM on oneDNN's matmul primitive.
//
// Low precision (benchmarks/amp.py has the measurement that picked it,
// docs/amp_kernels.md the numbers): bfloat16 inputs, float32 accumulation, one
// rounding of each output element. The matmul and linear kernels call it for
// bfloat16/float16 when the CPU running them has an optimised implementation,
// and compute in float32 otherwise.
//
// Note [float32 GEMMs on oneDNN]
// float32 products of at least 2^20 multiply-adds run here too, and smaller ones
// (and float64) on OpenBLAS, as does a product of one row or column, as a GEMV
// (Note [A product with one row or column is a GEMV] in gemm.h).
// Measured side by side, two threads, quiet Zen 4
// (benchmarks/blas/matmul_backends.sh, benchmarks/results/matmul_backends.md):
// OpenBLAS runs a batch of small products one call after another, each too small
// to split over threads, where oneDNN runs the batch as one primitive
// (attention's 32 x 128x128x64 scores: 757 us against 452 us, its 32 x
// 128x64x128 output 1316 against 304); products with few rows, like a recurrent
// step (20 x 2048 x 512), 454 against 316 us; the GPT decoder's layers 0.68-0.73x;
// square and large products within 3%. Below about 96^3 oneDNN's per-call cost
// (descriptors, its primitive cache, a stream: 3-8 us) loses (64^3: 1.95x). Reading A
// transposed with more than 8192 columns, oneDNN was slower than OpenBLAS (a
// vocabulary head's weight gradient, 512 x 10000 x 700: 1.00-1.24x over several runs;
// 8192 columns 0.92-0.99x). Such an A (M K elements, against M N K multiply-adds) is
// copied transposed first and the plain product runs on oneDNN: the head's weight
// gradient, the copy included, 0.90-0.95x OpenBLAS's time and the other shapes of the
// "A read transposed" table of matmul_backends.md 0.87-1.01x (two runs), and from
// Python 32.7-32.8 ms against 32.8-34.8 on OpenBLAS (three alternating runs of each
// build).
// Where oneDNN runs its AVX2 kernels (no AVX-512, or oar's ISA cap below it), reading A
// transposed costs more. On an AVX2-only Zen 3 (the "A read transposed" table of
// benchmarks/results/matmul_backends-zen3-transposed-a.md, and ad-hoc runs of the same
// shapes) the GPT decoder's weight gradients, k = 1024 rows read transposed, took 1.1-2.0x
// OpenBLAS's time (the FFN's 1.6-2.0x), the LSTM's first-layer input weight gradient (k =
// 700) 1.5x, and a transposed copy of A first did not help. With few sums oneDNN wins
// (128^3 0.7x, k = 8 0.4x), and with few columns (a 1x1 convolution's input gradient, 49
// to 196 columns, 0.6-0.9x). So there a single product reading A transposed with at least
// kMinBlasSumsTa sums and kMinBlasColumnsTa to kMaxFloat32ColumnsTa columns runs on
// OpenBLAS. Near those bounds either library can be ahead by 10-25% (the attention
// projection's 256 columns 0.75-1.12x, the LSTM's 512-column gradients 0.87-0.96x). A
// batch of such products (attention's gradients) stays on oneDNN, which runs it as one
// primitive. The GPT decoder's training step took 8-12% less time (benchmarks/models.py,
// alternating runs of each build: 255-308 ms before, 239-267 after).
// oneDNN 2.6's AVX2 GEMM also runs a plain product with few rows (1/M + 1/N at least
// kNoCopyThreshold, its own threshold) straight from its operands, without packing them,
// when they are aligned, as every oar tensor is. With rows of B and C a multiple of 2 KiB
// long that loses to conflicts in the caches: the "aligned operands" table of
// benchmarks/results/matmul_backends-zen3-aligned.md has 64-300 rows by 512-2048 columns
// at 1.31-1.97x OpenBLAS's time with 64-byte aligned operands and at 0.96-1.05x with
// operands 16 bytes past that, which oneDNN packs; 768 or 1000 columns at 0.91-0.92x.
// The GPT decoder's batch-1 FFN product [128, 256] x [256, 1024] is one: from Python
// 1.00-1.02 ms on oneDNN, 0.53-0.66 ms on OpenBLAS. So there such a product of at least
// kMinNoCopyRows rows with a multiple of kNoCopyColumnsStep columns runs on OpenBLAS (a
// recurrent step's 20 x 512 x 2048 stays: oneDNN wins it either way, 0.52-0.68x).
#pragma once

#include <cstdint>
#include <memory>

#include "oar/core/dense_tensor.h"

namespace oar::onednn {

// Products with fewer multiply-adds (batch * M * N * K) than this go to the
// float32 path: oneDNN costs about 3 us per call more (primitive cache lookup,
// memory objects, stream), which the bfloat16 GEMM wins back only from about
// 56^3 (measured from Python, 2 threads: 48^3 took 4.3 us on oneDNN and 3.5 us
// converted to float32; 64^3 5.2 and 6.7; docs/amp_kernels.md).
inline constexpr int64_t kMinMatmulWork = int64_t{1} << 17;
// float32 products with fewer multiply-adds than this stay on OpenBLAS; a float32 A
// read transposed with more columns than kMaxFloat32ColumnsTa is copied transposed
// first (Note [float32 GEMMs on oneDNN]).
inline constexpr int64_t kMinFloat32Work = int64_t{1} << 20;
inline constexpr int64_t kMaxFloat32ColumnsTa = 8192;
inline constexpr int64_t kMinBlasSumsTa = 512;
inline constexpr int64_t kMinBlasColumnsTa = 256;
inline constexpr int64_t kMinNoCopyRows = 64, kNoCopyColumnsStep = 512;
inline constexpr double kNoCopyThreshold = 0.0038;  // oneDNN's: 1/M + 1/N from this

// Note [oneDNN's float32 products past 2048 columns]
// oneDNN 2.6's float32 matmul, where it runs its AVX-512 kernels, runs many products of
// more than 2048 columns far below its rate on 2048 or fewer. On two threads of an
// AVX-512 Xeon (family 6, model 207), 700 x N x 512 took 195-255 GFLOP/s for N up to
// 2048, but 77-83 for N = 3072, 75 for 5120, 98-99 for 6144 and 12288, 135-155 for 10000;
// on one thread 137 at 2048 against 31 at 3072. A BERT-base FFN product (1024 x 3072 x
// 768) took 41-58 ms against OpenBLAS's 24. Widths that are powers of two ran well (4096,
// 8192: 205-275 GFLOP/s). Run as blocks of at most kMaxColumnBlock columns (each block's
// B and C are those columns of the whole operands, read and written in place), the
// products took 0.47-0.51x their time at 3072 and 5120 columns, 0.61-0.63x at 6144 and
// 12288, 0.73-0.77x at 6000 and 10000 (700 rows), 0.84-0.99x with 10000 columns read
// transposed; but at powers of two, whole, 0.83-0.94x with 700-2048 rows and 1.09-1.14x
// with 64-256, and 1.06-1.11x with 10000 and 32000 columns and 20 and 256 rows
// (benchmarks/blas/column_blocks.sh: both ways in turn in one process,
// benchmarks/results/column_blocks-xeon-model207.md). From Python, oar's linear with a
// bias took 0.52x its time at 3072 columns and 0.89x on the LSTM model's 10000-word head.
// With oneDNN capped to its AVX2 kernels blocks changed nothing (0.97-1.07x,
// column_blocks-xeon-model207-avx2.md). So where oneDNN runs AVX-512 kernels every
// float32 product it runs with more than kMaxColumnBlock columns, unless a power of two,
// runs as blocks of ColumnBlockWidth(n) columns (a multiple of 64; the last block
// shorter). Each output element is a sum over K either way, in oneDNN's order for its
// block.
inline constexpr int64_t kMaxColumnBlock = 2048;

// The width of the column blocks an n-column float32 product runs in on oneDNN's AVX-512
// kernels: n (one block) up to kMaxColumnBlock or at a power of two, else n over the
// fewest blocks of at most kMaxColumnBlock, rounded up to a multiple of 64.
constexpr int64_t ColumnBlockWidth(int64_t n) {
  if (n <= kMaxColumnBlock || (n & (n - 1)) == 0) return n;
  const int64_t blocks = (n + kMaxColumnBlock - 1) / kMaxColumnBlock;
  return ((n + blocks - 1) / blocks + 63) / 64 * 64;
}

// A product's shape as the backend rule reads it: `batch` products of op(A), [m, k],
// by op(B), [k, n]; A read transposed when `ta`, B when `tb`.
struct GemmShape {
  int64_t batch, m, n, k;
  bool ta, tb;
  int64_t Work() const { return batch * m * n * k; }
};

// Whether oneDNN has an optimised (non-reference) matmul for `dtype` on the CPU
// running this process: bfloat16 on AVX-512 (native with avx512_bf16), float16
// only on CPUs with AVX512-FP16 (oneDNN >= 2.7; never with 2.6). Probed once.
bool HasFastMatmul(DType dtype);

// Whether a product of `shape` in `dtype` runs on oneDNN: bfloat16/float16 from
// kMinMatmulWork multiply-adds where HasFastMatmul, float32 from kMinFloat32Work
// where oneDNN has an optimised float32 matmul, but not a single product of one row or
// column (the BLAS's GEMV: Note [A product with one row or column is a GEMV] in
// gemm.h), nor a single product reading A
// transposed with kMinBlasSumsTa sums or more and kMinBlasColumnsTa to
// kMaxFloat32ColumnsTa columns, nor one of kMinNoCopyRows rows or more that oneDNN would
// run without packing with a multiple of kNoCopyColumnsStep columns, where that matmul is
// oneDNN's AVX2 one (Note [float32 GEMMs on oneDNN]).
bool UsesOneDnn(DType dtype, const GemmShape& shape);

// out = op(x) @ op(y) (+ bias), op a transpose when tx/ty. x and y are at least
// 2-D, any strides, of one dtype; their batch dims broadcast; bias is null or
// [N] of their dtype; out is contiguous with the broadcast batch dims and
// [M, N] (in any shape of that many elements), already allocated. K > 0.
void Matmul(const DenseTensor& x, bool tx, const DenseTensor& y, bool ty, const DenseTensor* bias,
            DenseTensor* out);

// c = op(a) @ op(b) + beta * c for row-major float32 matrices with leading
// dimensions lda, ldb, ldc (BLAS's sgemm, for the kernels that drive GEMMs on
// raw buffers). m, n, k > 0.
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

// Note [A recurrent weight is packed once]
// c = a @ op(b) + beta * c, float32, run many times with one b and new contents
// of a and c (a recurrent weight over the steps of a sequence). oneDNN reads a
// plain b through copies into the blocked layout its kernel wants, on every
// call; here b is reordered into that layout once, for the forward steps (b
// read transposed) and the backward ones (b as stored) alike. 35 steps with the
// reorder against 35 plain calls (benchmarks/blas/matmul_backends.sh, two
// threads, three runs): the LSTM step forward (20 x 2048 x 512) 0.81-0.90x, its
// backward (20 x 512 x 2048) 0.90-1.21x, the GRU step 0.68-0.82x. Inside a two-layer LSTM's forward
// and backward (ONEDNN_VERBOSE, 20 runs) the backward's 70 step products took 14.6 ms instead
// of 18.9, for 1.05 ms of reorders. Only on AVX-512: with oneDNN and OpenBLAS capped to AVX2
// (ONEDNN_MAX_CPU_ISA, OPENBLAS_CORETYPE=Haswell; matmul_backends.sh --avx2) the packed layout
// took 1.3-1.9x the plain calls' time, where oneDNN's plain calls still beat OpenBLAS's. When
// oneDNN asks for BA16a64b, oar's PackF32 (weight_pack.h) writes it. For the LSTM's 4 MB
// weight with the caches flushed first it took 0.18-0.19 ms read transposed and 0.13-0.20
// ms as stored, against 0.27-0.40 and 0.17-0.38 ms for oneDNN's reorder
// (benchmarks/blas/weight_pack.cc, benchmarks/results/weight_pack.md); inside the model the
// reorder took 0.54-0.74 ms. The shapes, strides and b are fixed at construction; a and c
// are read and written through the pointers Run is given. A step of few rows (8 to 32 on
// AVX-512) runs on the panel kernel instead (StepGemm in gemm.h, Note [A product of few
// rows streams its weight once] in panel_gemm.h).
class PackedGemm {
 public:
  // Whether packing pays on this CPU (oneDNN runs AVX-512).
  static bool Pays();
  PackedGemm(bool tb, int64_t m, int64_t n, int64_t k, int64_t lda, const float* b, int64_t ldb,
             float beta, int64_t ldc);
  ~PackedGemm();
  PackedGemm(const PackedGemm&) = delete;
  PackedGemm& operator=(const PackedGemm&) = delete;
  void Run(const float* a, float* c) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace oar::onednn
