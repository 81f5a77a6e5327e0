#include "oar/kernels/infer_meta_lapack.h"

#include <algorithm>

#include "oar/core/errors.h"

namespace oar {
namespace {

void CheckMatrix(const DenseTensor& x, const char* arg) {
  OAR_ENFORCE(x.ndim() >= 2,
              errors::InvalidArgument("argument '", arg,
                                      "' must be a matrix or a batch of matrices (at least 2 "
                                      "dims), but has shape ",
                                      DimsToString(x.dims())));
}

void CheckSquare(const DenseTensor& x, const char* arg) {
  CheckMatrix(x, arg);
  const int64_t nd = x.ndim();
  OAR_ENFORCE(x.dims()[nd - 1] == x.dims()[nd - 2],
              errors::InvalidArgument("argument '", arg,
                                      "' must be square in its last two dims, but has shape ",
                                      DimsToString(x.dims())));
}

DDim BatchDims(const DenseTensor& x) { return DDim(x.dims().begin(), x.dims().end() - 2); }

}  // namespace

void SquareMatrixInferMeta(const DenseTensor& x, DenseTensor* out) {
  CheckSquare(x, "x");
  out->set_meta(x.dtype(), x.dims());
}

void CholeskyInferMeta(const DenseTensor& x, bool, DenseTensor* out) {
  SquareMatrixInferMeta(x, out);
}

void DetInferMeta(const DenseTensor& x, DenseTensor* out) {
  CheckSquare(x, "x");
  out->set_meta(x.dtype(), BatchDims(x));
}

void SlogdetInferMeta(const DenseTensor& x, DenseTensor* out) {
  CheckSquare(x, "x");
  DDim dims = BatchDims(x);
  dims.insert(dims.begin(), 2);
  out->set_meta(x.dtype(), dims);
}

void SolveInferMeta(const DenseTensor& x, const DenseTensor& y, DenseTensor* out) {
  CheckSquare(x, "x");
  CheckMatrix(y, "y");
  const int64_t n = x.dims()[x.ndim() - 1];
  OAR_ENFORCE(y.dims()[y.ndim() - 2] == n && BatchDims(x) == BatchDims(y),
              errors::InvalidArgument("argument 'y' must have shape [..., ", n,
                                      ", k] with the batch dims of x ", DimsToString(x.dims()),
                                      ", but has shape ", DimsToString(y.dims())));
  out->set_meta(y.dtype(), y.dims());
}

void TriangularSolveInferMeta(const DenseTensor& x, const DenseTensor& y, bool, bool, bool,
                              DenseTensor* out) {
  SolveInferMeta(x, y, out);
}

namespace {
// The m + extra + n columns that pack a factorisation's parts side by side. An empty x can
// have an m or n near 2^63 (its other dims multiply to 0).
int64_t PackedWidth(const DenseTensor& x, int64_t m, int64_t n, int64_t extra) {
  int64_t w = 0;
  OAR_ENFORCE(!__builtin_add_overflow(m, n, &w) && !__builtin_add_overflow(w, extra, &w),
              errors::InvalidArgument("argument 'x' of shape ", DimsToString(x.dims()),
                                      " is too large: its two matrix dims add up past int64"));
  return w;
}
}  // namespace

void QrPackedInferMeta(const DenseTensor& x, bool complete, DenseTensor* out) {
  CheckMatrix(x, "x");
  const int64_t m = x.dims()[x.ndim() - 2], n = x.dims()[x.ndim() - 1];
  DDim dims = BatchDims(x);
  dims.push_back(complete ? m : std::min(m, n));
  dims.push_back(PackedWidth(x, m, n, 0));
  out->set_meta(x.dtype(), dims);
}

void SvdPackedInferMeta(const DenseTensor& x, bool full_matrices, DenseTensor* out) {
  CheckMatrix(x, "x");
  const int64_t m = x.dims()[x.ndim() - 2], n = x.dims()[x.ndim() - 1];
  DDim dims = BatchDims(x);
  dims.push_back(full_matrices ? std::max(m, n) : std::min(m, n));
  dims.push_back(PackedWidth(x, m, n, 1));
  out->set_meta(x.dtype(), dims);
}

void EighPackedInferMeta(const DenseTensor& x, bool, DenseTensor* out) {
  CheckSquare(x, "x");
  const int64_t n = x.dims()[x.ndim() - 1];
  DDim dims = BatchDims(x);
  dims.push_back(n);
  dims.push_back(n + 1);
  out->set_meta(x.dtype(), dims);
}

void EigPackedInferMeta(const DenseTensor& x, DenseTensor* out) {
  EighPackedInferMeta(x, false, out);
  const DDim dims = out->dims();
  out->set_meta(ToComplex(x.dtype()), dims);
}

void LuPackedInferMeta(const DenseTensor& x, DenseTensor* out) {
  CheckMatrix(x, "x");
  out->set_meta(x.dtype(), x.dims());
}

void LuPivotsInferMeta(const DenseTensor& x, DenseTensor* out) {
  CheckMatrix(x, "x");
  DDim dims = BatchDims(x);
  dims.push_back(std::min(x.dims()[x.ndim() - 2], x.dims()[x.ndim() - 1]));
  out->set_meta(DType::kInt32, dims);
}

}  // namespace oar
