// Low-precision GEMM on oneDNN's matmul primitive (benchmarks/amp.py has the
// measurement that picked it, docs/amp_kernels.md the numbers): bfloat16 inputs,
// float32 accumulation, one rounding of each output element. The matmul and
// linear kernels call it for bfloat16/float16 when the CPU running them has an
// optimised implementation, and compute in float32 otherwise.
#pragma once

#include <cstdint>

#include "oar/core/dense_tensor.h"

namespace oar::onednn {

// Products with fewer multiply-adds (batch * M * N * K) than this go to the
// float32 path: oneDNN costs about 3 us per call more (primitive cache lookup,
// memory objects, stream), which the bfloat16 GEMM wins back only from about
// 56^3 (measured from Python, 2 threads: 48^3 took 4.3 us on oneDNN and 3.5 us
// converted to float32; 64^3 5.2 and 6.7; docs/amp_kernels.md).
inline constexpr int64_t kMinMatmulWork = int64_t{1} << 17;

// Whether oneDNN has an optimised (non-reference) matmul for `dtype` on the CPU
// running this process: bfloat16 on AVX-512 (native with avx512_bf16), float16
// only on CPUs with AVX512-FP16 (oneDNN >= 2.7; never with 2.6). Probed once.
bool HasFastMatmul(DType dtype);

// out = op(x) @ op(y) (+ bias), op a transpose when tx/ty. x and y are at least
// 2-D, any strides, of one dtype; their batch dims broadcast; bias is null or
// [N] of their dtype; out is contiguous with the broadcast batch dims and
// [M, N] (in any shape of that many elements), already allocated. K > 0.
void Matmul(const DenseTensor& x, bool tx, const DenseTensor& y, bool ty, const DenseTensor* bias,
            DenseTensor* out);

}  // namespace oar::onednn
