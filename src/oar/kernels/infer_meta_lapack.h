// InferMeta functions of the LAPACK section (src/oar/ops/lapack.yaml). Matrices are the
// last two dims; every leading dim is a batch dim. The API layer prefixes errors with
// the op name.
#pragma once

#include "oar/core/dense_tensor.h"

namespace oar {

// x [..., n, n] -> x's shape (inverse, cholesky).
void SquareMatrixInferMeta(const DenseTensor& x, DenseTensor* out);
void CholeskyInferMeta(const DenseTensor& x, bool upper, DenseTensor* out);
// x [..., n, n] -> [...] (det).
void DetInferMeta(const DenseTensor& x, DenseTensor* out);
// x [..., n, n] -> [2, ...]: sign stacked over log|det| (Paddle's slogdet layout).
void SlogdetInferMeta(const DenseTensor& x, DenseTensor* out);
// x [..., n, n], y [..., n, k] with the same batch dims -> y's shape.
void SolveInferMeta(const DenseTensor& x, const DenseTensor& y, DenseTensor* out);
void TriangularSolveInferMeta(const DenseTensor& x, const DenseTensor& y, bool upper,
                              bool transpose, bool unitriangular, DenseTensor* out);
// x [..., m, n] -> [..., kq, m + n]: the rows of Q^T then those of R, kq = m (complete)
// or min(m, n).
void QrPackedInferMeta(const DenseTensor& x, bool complete, DenseTensor* out);
// x [..., m, n] -> [..., r, m + 1 + n]: U^T | S | Vh, r = min(m, n), or max(m, n) with
// full_matrices (rows past each part's own count are zero).
void SvdPackedInferMeta(const DenseTensor& x, bool full_matrices, DenseTensor* out);
// x [..., n, n] -> [..., n, 1 + n]: each row an eigenvalue then its eigenvector.
void EighPackedInferMeta(const DenseTensor& x, bool upper, DenseTensor* out);
// x [..., n, n] -> complex [..., n, 1 + n] (complex64 for float32 x, complex128 for
// float64): each row an eigenvalue then its eigenvector.
void EigPackedInferMeta(const DenseTensor& x, DenseTensor* out);
// x [..., m, n] -> x's shape (L below the diagonal, U on and above it).
void LuPackedInferMeta(const DenseTensor& x, DenseTensor* out);
// x [..., m, n] -> int32 [..., min(m, n)], 1-based (LAPACK's ipiv, Paddle's pivots).
void LuPivotsInferMeta(const DenseTensor& x, DenseTensor* out);

}  // namespace oar
