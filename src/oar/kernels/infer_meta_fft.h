// InferMeta functions of the FFT section (src/oar/ops/fft.yaml) and the argument
// checks its kernels share. The API layer prefixes errors with the op name.
#pragma once

#include <cstdint>
#include <vector>

#include "oar/core/dense_tensor.h"

namespace oar {

// The `normalization` attribute of the FFT ops: the scale applied to the result, with
// n the product of the signal lengths over the transformed axes. It names the scale,
// not a direction (Paddle's "backward"/"forward"/"ortho" strings do), so the adjoint
// of a transform is the transform the other way with the same value.
enum class FftNorm : int64_t { kNone = 0, kByRootN = 1, kByN = 2 };

// `axes` normalised (order kept), checked distinct and within x's rank; `need_one`
// refuses an empty list (the real transforms need a last axis).
std::vector<int64_t> FftAxes(const DenseTensor& x, const std::vector<int64_t>& axes, bool need_one);
// The output length of fft_c2r along its last axis: last_dim_size, or 2 * (m - 1) when
// it is 0 (m: x's length there), checked against m = last_dim_size / 2 + 1.
int64_t FftC2RLength(const DenseTensor& x, int64_t last_axis, int64_t last_dim_size);

void FftC2CInferMeta(const DenseTensor& x, const std::vector<int64_t>& axes, int64_t normalization,
                     bool forward, DenseTensor* out);
void FftR2CInferMeta(const DenseTensor& x, const std::vector<int64_t>& axes, int64_t normalization,
                     bool forward, bool onesided, DenseTensor* out);
void FftC2RInferMeta(const DenseTensor& x, const std::vector<int64_t>& axes, int64_t normalization,
                     bool forward, int64_t last_dim_size, DenseTensor* out);

}  // namespace oar
