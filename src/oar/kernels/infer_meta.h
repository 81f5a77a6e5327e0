// InferMeta functions: validate the inputs of an op and set the dtype and dims
// of its outputs (phi's InferMeta). They read only metadata, never data, so
// they also run on tensors saved without buffers. The API layer prefixes their
// errors with the op name.
#pragma once

#include <vector>

#include "oar/core/dense_tensor.h"
#include "oar/core/scalar.h"
#include "oar/kernels/infer_meta_reduce.h"  // IWYU pragma: export; statistics, search, scan, random

namespace oar {

// Axis helpers shared by InferMeta and kernels.
//
// Note [Axes of 0-d tensors]
// A 0-d tensor has no dimension to index, so NormalizeAxis refuses every
// axis for it: slicing, concatenating or transposing along an axis needs one.
// Ops that treat a 0-d tensor as one element along one axis (reductions,
// softmax, squeeze) accept 0 and -1 for it, as Paddle, numpy and PyTorch do,
// through NormalizeAxisAllowing0d; the result is 0 and must not be used to
// index dims() when the rank is 0.
int64_t NormalizeAxis(int64_t axis, int64_t rank, const char* arg_name = "axis");
int64_t NormalizeAxisAllowing0d(int64_t axis, int64_t rank, const char* arg_name = "axis");
// Sorted, de-duplicated, normalised axes; empty `axis` (or all axes) means reduce all.
std::vector<int64_t> NormalizeReduceAxes(const std::vector<int64_t>& axis, int64_t rank);
DDim BroadcastShape(const DDim& a, const DDim& b, const char* a_name = "x",
                    const char* b_name = "y");

void UnchangedInferMeta(const DenseTensor& x, DenseTensor* out);
// x's shape with the real dtype of x (complex64 -> float32): abs, real, imag, angle.
void RealInferMeta(const DenseTensor& x, DenseTensor* out);
// complex(real, imag): the broadcast shape, complex64 from float32, complex128 from float64.
void ComplexInferMeta(const DenseTensor& real, const DenseTensor& imag, DenseTensor* out);
// as_complex: [..., 2] float -> [...] complex; as_real the reverse.
void AsComplexInferMeta(const DenseTensor& x, DenseTensor* out);
void AsRealInferMeta(const DenseTensor& x, DenseTensor* out);
void SameShapeGradInferMeta(const DenseTensor& out, const DenseTensor& grad_out,
                            DenseTensor* x_grad);
void ElementwiseInferMeta(const DenseTensor& x, const DenseTensor& y, DenseTensor* out);
void CompareInferMeta(const DenseTensor& x, const DenseTensor& y, DenseTensor* out);
void WhereInferMeta(const DenseTensor& condition, const DenseTensor& x, const DenseTensor& y,
                    DenseTensor* out);
void CastInferMeta(const DenseTensor& x, DType dtype, DenseTensor* out);
void MatmulInferMeta(const DenseTensor& x, const DenseTensor& y, bool transpose_x, bool transpose_y,
                     DenseTensor* out);
void ReduceInferMeta(const DenseTensor& x, const std::vector<int64_t>& axis, bool keepdim,
                     DenseTensor* out);
void SumInferMeta(const DenseTensor& x, const std::vector<int64_t>& axis, DType dtype, bool keepdim,
                  DenseTensor* out);
void ProdInferMeta(const DenseTensor& x, const std::vector<int64_t>& axis, DType dtype,
                   bool keepdim, DenseTensor* out);
void SumToInferMeta(const DenseTensor& x, const std::vector<int64_t>& shape, DenseTensor* out);
void ReshapeInferMeta(const DenseTensor& x, const std::vector<int64_t>& shape, DenseTensor* out);
void TransposeInferMeta(const DenseTensor& x, const std::vector<int64_t>& perm, DenseTensor* out);
void UnsqueezeInferMeta(const DenseTensor& x, const std::vector<int64_t>& axis, DenseTensor* out);
void SqueezeInferMeta(const DenseTensor& x, const std::vector<int64_t>& axis, DenseTensor* out);
void ExpandInferMeta(const DenseTensor& x, const std::vector<int64_t>& shape, DenseTensor* out);
void ConcatInferMeta(const std::vector<const DenseTensor*>& x, int64_t axis, DenseTensor* out);
void StridedSliceInferMeta(const DenseTensor& x, const std::vector<int64_t>& axes,
                           const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                           const std::vector<int64_t>& strides, DenseTensor* out);
void SliceInferMeta(const DenseTensor& x, const std::vector<int64_t>& axes,
                    const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                    DenseTensor* out);
void StridedSliceGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out,
                               const std::vector<int64_t>& axes, const std::vector<int64_t>& starts,
                               const std::vector<int64_t>& ends,
                               const std::vector<int64_t>& strides, DenseTensor* x_grad);
void SetValueInferMeta(const DenseTensor& x, const DenseTensor& value,
                       const std::vector<int64_t>& axes, const std::vector<int64_t>& starts,
                       const std::vector<int64_t>& ends, const std::vector<int64_t>& strides,
                       DenseTensor* out);
void IndexSelectInferMeta(const DenseTensor& x, const DenseTensor& index, int64_t axis,
                          DenseTensor* out);
void IndexSelectGradInferMeta(const DenseTensor& x, const DenseTensor& index,
                              const DenseTensor& grad_out, int64_t axis, DenseTensor* x_grad);
// The number of rows depends on the data: the kernel sets it.
void NonzeroInferMeta(const DenseTensor& x, DenseTensor* out);
void SoftmaxInferMeta(const DenseTensor& x, int64_t axis, DenseTensor* out);
void SoftmaxGradInferMeta(const DenseTensor& out, const DenseTensor& grad_out, int64_t axis,
                          DenseTensor* x_grad);
void CreateInferMeta(const std::vector<int64_t>& shape, DType dtype, DenseTensor* out);
void EyeInferMeta(int64_t num_rows, int64_t num_columns, DType dtype, DenseTensor* out);
void CreateLikeInferMeta(const DenseTensor& x, DType dtype, DenseTensor* out);
void ArangeInferMeta(const Scalar& start, const Scalar& end, const Scalar& step, DType dtype,
                     DenseTensor* out);

// One (start, end, step) per sliced axis after clamping, as Python slicing does.
struct SliceRange {
  int64_t axis, start, step, size;
};
std::vector<SliceRange> NormalizeSlices(const DDim& dims, const std::vector<int64_t>& axes,
                                        const std::vector<int64_t>& starts,
                                        const std::vector<int64_t>& ends,
                                        const std::vector<int64_t>& strides);

}  // namespace oar

// Shape section (flip, roll, pad, triangles, diagonals, windows): its own file, included here
// so the generated API sees every InferMeta through this header.
#include "oar/kernels/infer_meta_nn.h"     // the nn.functional sections (norm, loss, nn)
#include "oar/kernels/infer_meta_shape.h"  // IWYU pragma: export
// Gathering and scattering (gather.yaml, scatter.yaml): their InferMeta functions
// live in their own file; included here because the generated API includes only this.
#include "oar/kernels/infer_meta_index.h"
// ---- activations (src/oar/ops/activation.yaml): their InferMeta functions.
#include "oar/kernels/infer_meta_activation.h"  // IWYU pragma: export
// Convolution and pooling (their own file, src/oar/kernels/infer_meta_conv.h).
#include "oar/kernels/infer_meta_conv.h"  // IWYU pragma: export
// The math and logic sections' InferMeta functions (own file, so they merge apart).
#include "oar/kernels/infer_meta_math.h"  // IWYU pragma: export
// The LAPACK section's InferMeta functions (own file, so they merge apart).
#include "oar/kernels/infer_meta_lapack.h"  // IWYU pragma: export
// The unpool section's InferMeta functions (own file, so they merge apart).
#include "oar/kernels/infer_meta_unpool.h"  // IWYU pragma: export
// The geometric section (message passing on graphs).
#include "oar/kernels/infer_meta_geometric.h"  // IWYU pragma: export
// The quantization section (src/oar/ops/quant.yaml): own file, so it merges apart.
#include "oar/kernels/infer_meta_quant.h"  // IWYU pragma: export
// The FFT section (fft_c2c, fft_r2c, fft_c2r): its own file, included for the generated API.
#include "oar/kernels/infer_meta_fft.h"  // IWYU pragma: export
// The numeric, sampling and strided sections' InferMeta functions (a file each).
#include "oar/kernels/infer_meta_numeric.h"   // IWYU pragma: export
#include "oar/kernels/infer_meta_sampling.h"  // IWYU pragma: export
#include "oar/kernels/infer_meta_strided.h"   // IWYU pragma: export
// The recurrent section (rnn, rnn_grad).
#include "oar/kernels/infer_meta_rnn.h"  // IWYU pragma: export
