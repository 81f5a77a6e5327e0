// The two convolution engines behind the conv ops (src/oar/ops/conv.yaml):
// im2col + GEMM on the project's BLAS, and oneDNN. Both compute the three
// passes on contiguous channels-first float/double tensors; the kernels in
// conv_kernels.cc pick one per pass and shape class by the measurement in
// benchmarks/conv.cc (docs/benchmarks.md, "Convolution"), which calls these
// functions directly to compare them.
#pragma once

#include <cstdint>

#include "oar/core/dense_tensor.h"
#include "oar/kernels/infer_meta_conv.h"

namespace oar::conv_engine {

// kWinograd: oar's own Winograd F(2x2, 3x3), forward and data-gradient passes of the
// convolutions WinogradShape takes (Note [Winograd's F(2x2, 3x3) where oneDNN has none]).
enum class Algo { kGemm, kOneDnn, kWinograd };
enum class Pass { kForward, kBackwardData, kBackwardWeights };

// Note [The forward convolution sums in blocks]
// Each float32 output of the forward pass is a sum of C_in/G * K products (K kernel
// taps). In one float32 accumulator its rounding error grows with the square root of
// that count; summed in blocks, each block from zero and the blocks' sums added in
// order, it stays near one block's: 2.2e-7 norm-wise for 16 channels of a 3x3 kernel
// (144 products) against 4.3e-7 for 576 products in one chain and 1.1e-6 for 4,608.
// benchmarks/conv_accuracy.py measures it and what it costs (docs/benchmarks.md,
// "Accuracy: the float32 forward pass sums in blocks"). oneDNN's direct AVX-512 kernels
// (jit:avx512*, the ones it picks for training) already sum 16 input channels at a
// time; its AVX2 kernels, and the brgemm kernels it prefers for inference on CPUs with
// AMX, sum them all in one accumulator (SumsInBlocks in conv_onednn.h; Note [Folded
// convolutions sum in blocks where the ops do] in conv_inference.cc). So where
// oneDNN's direct forward kernel does not (probed once), a float32 forward pass with more
// than 16 input channels and more than one tap (groups 1) runs one oneDNN convolution
// per 16 input channels, each adding the previous blocks' sum to its output through a
// binary-add post-op (applied after the block's sum; under a sum post-op the AVX2
// kernels start their accumulators from the output, one chain again). The GEMM path
// splits its float32 GEMM's inner dimension into blocks of 144 rows (beta 1 after the
// first). Grouped convolutions and 1x1 convolutions on oneDNN, float64 and the
// backward passes keep the libraries' own order.
//   kBlocked: the kernels' order, as above; kWhole: one GEMM per sample and group, or
//   one oneDNN convolution, in the libraries' own order (benchmarks compare the two).
enum class Sum { kBlocked, kWhole };
// Input channels per oneDNN convolution where its kernels would sum them all in one
// accumulator (the note above).
inline constexpr int64_t kSumBlockChannels = 16;

// Contiguous tensors of one dtype (float32 or float64; oneDNN: float32, or
// bfloat16 where OneDnnFastDtype says so, then with float32 accumulation and
// dw in bfloat16 or float32).
// `g` is the geometry of the forward convolution: in = x (or dx) spatial, out =
// y (or dy) spatial.
//   forward:          y [N, C_out, out] = conv(x [N, C_in, in], w [C_out, C_in/G, k])
//   backward data:    dx [N, C_in, in] = conv_transpose(dy, w), w as above
//   backward weights: dw [C_out, C_in/G, k] from x and dy
void Forward(Algo algo, const DenseTensor& x, const DenseTensor& w, const WindowGeometry& g,
             int64_t groups, DenseTensor* y, Sum sum = Sum::kBlocked);
void BackwardData(Algo algo, const DenseTensor& dy, const DenseTensor& w, const WindowGeometry& g,
                  int64_t groups, DenseTensor* dx);
void BackwardWeights(Algo algo, const DenseTensor& x, const DenseTensor& dy,
                     const WindowGeometry& g, int64_t groups, DenseTensor* dw);

// Whether oneDNN has optimised convolutions in `dtype` on the CPU running this
// process (float32 always; bfloat16 on AVX-512 machines; never float16 or float64).
bool OneDnnFastDtype(DType dtype);
// Whether oneDNN runs its AVX-512 kernels on this CPU (conv_engine::Choose
// weighs the engines differently there).
bool OneDnnAvx512();
// Note [Winograd's algorithm in the eager convolution]
// Winograd's F(4x4, 3x3) computes a 3x3 stride-1 convolution from 6x6 input
// tiles transformed once per call, multiplied channel by channel with the
// weight transformed once, and transformed back into 4x4 output tiles: 4x
// fewer products than the direct algorithm, which on AVX-512 already runs at
// the cores' peak. oneDNN has it for all three passes on AVX-512 (float32), in
// the same 16-channel blocked layout the direct kernels read, so the eager
// passes, which reorder the user's plain layout to that one anyway, pay
// nothing more for it. Its transforms cost work per tile and per channel
// pair, so it pays only on enough of both: measured on two Zen 4 cores, a
// training step's three passes (reorders included) at batch 8 take 11.2 ms
// instead of 26.4 for 64 channels at 56x56, 12.9 instead of 24.5 for 256 at
// 14x14 and 20.3 instead of 24.4 for 512 at 7x7 (392 output positions); but
// 3.5 instead of 3.2 for 256 channels at 14x14 at batch 1 (196 positions)
// and 0.67 instead of 0.31 for 16 channels at 16x16 at batch 16. So a pass
// runs it when FLAGS_conv_winograd is on (the default), the convolution is
// float32, 2-D, 3x3, stride 1, not dilated or grouped, has at least
// kWinogradMinChannels channels in and out and at least
// kWinogradMinPositions output positions (batch x height x width), and
// oneDNN has the kernel for this CPU; the direct algorithm otherwise. The
// transforms round differently: each output is a few float32 roundings of
// tile sums away from the exact value rather than of single products
// (docs/nn.md gives the measured difference), within what training needs;
// FLAGS_conv_winograd off restores the direct algorithm's results.
//
// Note [Winograd's F(2x2, 3x3) where oneDNN has none]
// Without AVX-512 oneDNN has no Winograd kernel, and its direct AVX2 kernels run
// near the cores' peak, so the convolutions the rule above takes run all three
// passes in oar's own F(2x2, 3x3) there (conv_winograd.cc): 4x4 input tiles, 2.25x
// fewer products, on the caller's plain layout with no reorder. Each pass is 16
// GEMMs on oneDNN's GEMM between short vector transforms, a chunk of tiles at a
// time; the weight gradient transforms the output gradient's 2x2 tiles as well
// (dL/dU = A dY A^T times the input's tiles, summed over the tiles). Measured on
// two AVX2 Zen 3 cores (`GOMP_SPINCOUNT=1000 oar_bench_conv winograd`, in turn with
// oneDNN's direct passes): ResNet-18's 3x3 stride-1 layers up to 256 channels at
// batch 8 take 0.72-0.74x the time forward, 0.76-0.80x for the data gradient and
// 0.59-0.64x for the weight gradient; 512 channels at 7x7 (4x4 tiles, 30% of them
// outside the output) 0.98x, 1.02x and 0.74x; at batch 1, 64 and 128 channels at
// 56x56 and 28x28, 0.70-0.75x and 0.53-0.61x. Its rounding stays near the direct
// passes': 2.0e-7 to 2.6e-7 norm-wise against float64 forward and for the data
// gradient (direct: 2.2e-7), 2.8e-7 to 5.1e-7 for the weight gradient (direct up
// to 2.8e-6 over a batch of 8 at 56x56, whose sums run over all positions in one
// chain), where oneDNN's F(4x4, 3x3) gives 6-8e-7.
inline constexpr int64_t kWinogradMinChannels = 32;
inline constexpr int64_t kWinogradMinPositions = 384;
// Whether the note's rule takes this convolution (FLAGS_conv_winograd, float32,
// 2-D, 3x3, stride 1, not dilated or grouped, enough channels and positions),
// whatever the CPU.
bool WinogradShape(DType dtype, const WindowGeometry& g, int64_t n, int64_t c_in, int64_t c_out,
                   int64_t groups);
// oar's own F(2x2, 3x3) (Note [Winograd's F(2x2, 3x3) where oneDNN has none]) for a
// folded inference convolution (conv_inference.cc), whose weight is transformed once:
// WinogradWeight gives the transform [16, C_out, C_in] of a float32 [C_out, C_in, 3, 3]
// weight; WinogradForwardFolded computes y = relu?(conv(x) + bias [+ residual]) from it,
// x, residual and y contiguous (plain) float32, bias [C_out] (the geometry as
// Forward's: 2-D, 3x3, stride 1, groups 1).
DenseTensor WinogradWeight(const DenseTensor& w);
void WinogradForwardFolded(const DenseTensor& x, const DenseTensor& u, const WindowGeometry& g,
                           const float* bias, const DenseTensor* residual, bool relu,
                           DenseTensor* y);
// Whether oneDNN's passes of this convolution run Winograd's algorithm: the
// note's rule on a CPU with oneDNN's AVX-512 kernels (oneDNN may still lack the
// kernel for a padding, when the direct algorithm runs).
bool OneDnnWinograd(DType dtype, const WindowGeometry& g, int64_t n, int64_t c_in, int64_t c_out,
                    int64_t groups);
// Whether oneDNN can run this pass (OneDnnFastDtype, and its output-size formula
// agrees with g: a conv_transpose output padding >= stride does not).
bool OneDnnSupports(DType dtype, const WindowGeometry& g);
// The engine the kernels use for a pass at this shape.
Algo Choose(Pass pass, DType dtype, const WindowGeometry& g, int64_t n, int64_t c_in, int64_t c_out,
            int64_t groups);

}  // namespace oar::conv_engine
