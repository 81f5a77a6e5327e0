#include "oar/kernels/infer_meta_shape.h"

#include <algorithm>
#include <limits>

#include "oar/core/errors.h"
#include "oar/kernels/infer_meta.h"

namespace oar {

std::vector<int64_t> NormalizeDistinctAxes(const std::vector<int64_t>& axis, int64_t rank,
                                           const char* arg_name) {
  std::vector<int64_t> out;
  out.reserve(axis.size());
  for (int64_t a : axis) {
    const int64_t n = NormalizeAxis(a, rank, arg_name);
    OAR_ENFORCE(
        std::find(out.begin(), out.end(), n) == out.end(),
        errors::InvalidArgument("argument '", arg_name, "' ", StrCat(axis), " repeats axis ", n));
    out.push_back(n);
  }
  return out;
}

DiagonalSpan DiagonalOf(int64_t n1, int64_t n2, int64_t s1, int64_t s2, int64_t offset) {
  // offset > 0 starts in column `offset`, offset < 0 in row `-offset`.
  const int64_t len = offset >= 0 ? std::min(n1, n2 - offset) : std::min(n1 + offset, n2);
  if (len <= 0) return {0, 0};
  return {len, offset >= 0 ? offset * s2 : -offset * s1};
}

void FlipInferMeta(const DenseTensor& x, const std::vector<int64_t>& axis, DenseTensor* out) {
  NormalizeDistinctAxes(axis, x.ndim(), "axis");
  out->set_meta(x.dtype(), x.dims());
}

void RollInferMeta(const DenseTensor& x, const std::vector<int64_t>& shifts,
                   const std::vector<int64_t>& axis, DenseTensor* out) {
  if (axis.empty()) {
    OAR_ENFORCE(shifts.size() == 1,
                errors::InvalidArgument("argument 'shifts' ", StrCat(shifts),
                                        " must hold exactly one shift when axis is None"));
  } else {
    OAR_ENFORCE(shifts.size() == axis.size(),
                errors::InvalidArgument("arguments 'shifts' ", StrCat(shifts), " and 'axis' ",
                                        StrCat(axis), " must have the same length"));
    for (int64_t a : axis) NormalizeAxis(a, x.ndim(), "axis");
  }
  out->set_meta(x.dtype(), x.dims());
}

void TriangleInferMeta(const DenseTensor& x, int64_t, DenseTensor* out) {
  OAR_ENFORCE(x.ndim() >= 2, errors::InvalidArgument(
                                 "argument 'x' must have at least 2 dimensions, but has shape ",
                                 DimsToString(x.dims())));
  out->set_meta(x.dtype(), x.dims());
}

namespace {
// Normalised axis1/axis2 of a diagonal over a tensor of `rank` dims.
std::pair<int64_t, int64_t> DiagonalAxes(int64_t rank, int64_t axis1, int64_t axis2,
                                         const char* name1, const char* name2) {
  OAR_ENFORCE(rank >= 2, errors::InvalidArgument("the tensor must have at least 2 dimensions for a "
                                                 "diagonal, but has ",
                                                 rank));
  const int64_t a1 = NormalizeAxis(axis1, rank, name1);
  const int64_t a2 = NormalizeAxis(axis2, rank, name2);
  OAR_ENFORCE(a1 != a2, errors::InvalidArgument("arguments '", name1, "' (", axis1, ") and '",
                                                name2, "' (", axis2, ") are the same axis ", a1));
  return {a1, a2};
}

DDim DiagonalDims(const DDim& dims, int64_t offset, int64_t a1, int64_t a2) {
  DDim out;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (d != a1 && d != a2) out.push_back(dims[d]);
  }
  out.push_back(DiagonalOf(dims[a1], dims[a2], 0, 0, offset).length);
  return out;
}
}  // namespace

void DiagonalInferMeta(const DenseTensor& x, int64_t offset, int64_t axis1, int64_t axis2,
                       DenseTensor* out) {
  OAR_ENFORCE(x.ndim() >= 2, errors::InvalidArgument(
                                 "argument 'x' must have at least 2 dimensions, but has shape ",
                                 DimsToString(x.dims())));
  const auto [a1, a2] = DiagonalAxes(x.ndim(), axis1, axis2, "axis1", "axis2");
  out->set_meta(x.dtype(), DiagonalDims(x.dims(), offset, a1, a2));
}

void DiagonalGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out, int64_t offset,
                           int64_t axis1, int64_t axis2, DenseTensor* x_grad) {
  OAR_ENFORCE(x.ndim() >= 2, errors::InvalidArgument(
                                 "argument 'x' must have at least 2 dimensions, but has shape ",
                                 DimsToString(x.dims())));
  const auto [a1, a2] = DiagonalAxes(x.ndim(), axis1, axis2, "axis1", "axis2");
  const DDim expect = DiagonalDims(x.dims(), offset, a1, a2);
  OAR_ENFORCE(
      grad_out.dims() == expect,
      errors::InvalidArgument("argument 'grad_out' has shape ", DimsToString(grad_out.dims()),
                              " but the diagonal has shape ", DimsToString(expect)));
  x_grad->set_meta(grad_out.dtype(), x.dims());
}

void DiagEmbedInferMeta(const DenseTensor& input, int64_t offset, int64_t dim1, int64_t dim2,
                        DenseTensor* out) {
  OAR_ENFORCE(
      input.ndim() >= 1,
      errors::InvalidArgument("argument 'input' must have at least 1 dimension, but is 0-D"));
  const int64_t rank = input.ndim() + 1;
  const auto [a1, a2] = DiagonalAxes(rank, dim1, dim2, "dim1", "dim2");
  int64_t n = 0;
  OAR_ENFORCE(offset != std::numeric_limits<int64_t>::min() &&
                  !__builtin_add_overflow(input.dims().back(), offset < 0 ? -offset : offset, &n),
              errors::OutOfRange("argument 'offset' (", offset,
                                 ") makes the output's diagonal size overflow int64"));
  DDim dims;
  int64_t next = 0;
  for (int64_t d = 0; d < rank; ++d) {
    dims.push_back(d == a1 || d == a2 ? n : input.dims()[next++]);
  }
  out->set_meta(input.dtype(), dims);
}

void TensorUnfoldInferMeta(const DenseTensor& x, int64_t axis, int64_t size, int64_t step,
                           DenseTensor* out) {
  const int64_t a = NormalizeAxisAllowing0d(axis, x.ndim(), "axis");
  const int64_t n = x.ndim() == 0 ? 1 : x.dims()[a];
  OAR_ENFORCE(size >= 0 && size <= n,
              errors::OutOfRange("argument 'size' (", size, ") must be in [0, ", n,
                                 "], the size of axis ", a));
  OAR_ENFORCE(step > 0, errors::InvalidArgument("argument 'step' (", step, ") must be positive"));
  DDim dims = x.dims();
  if (!dims.empty()) dims[a] = (n - size) / step + 1;
  dims.push_back(size);
  out->set_meta(x.dtype(), dims);
}

void TensorUnfoldGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out, int64_t axis,
                               int64_t size, int64_t step, DenseTensor* x_grad) {
  DenseTensor windows;
  TensorUnfoldInferMeta(x, axis, size, step, &windows);
  OAR_ENFORCE(
      grad_out.dims() == windows.dims(),
      errors::InvalidArgument("argument 'grad_out' has shape ", DimsToString(grad_out.dims()),
                              " but the windows have shape ", DimsToString(windows.dims())));
  x_grad->set_meta(grad_out.dtype(), x.dims());
}

namespace {
void CheckPaddings(const DenseTensor& x, const std::vector<int64_t>& paddings, int64_t mode) {
  OAR_ENFORCE(mode >= 0 && mode <= 3,
              errors::InvalidArgument("argument 'mode' (", mode,
                                      ") must be 0 (constant), 1 (reflect), 2 (replicate) or 3 "
                                      "(circular)"));
  const int64_t rank = x.ndim();
  OAR_ENFORCE(static_cast<int64_t>(paddings.size()) == 2 * rank,
              errors::InvalidArgument("argument 'paddings' ", StrCat(paddings), " must hold 2 * ",
                                      rank, " entries (before and after for each axis of x)"));
  const auto m = static_cast<PadMode>(mode);
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t n = x.dims()[d];
    for (int k = 0; k < 2; ++k) {
      const int64_t p = paddings[2 * d + k];
      OAR_ENFORCE(p >= 0, errors::InvalidArgument("argument 'paddings' ", StrCat(paddings),
                                                  " must not be negative"));
      if (p == 0 || m == PadMode::kConstant) continue;
      OAR_ENFORCE(n > 0, errors::InvalidArgument("axis ", d, " is empty and cannot be padded in ",
                                                 "reflect, replicate or circular mode"));
      if (m == PadMode::kReflect) {
        OAR_ENFORCE(p < n, errors::InvalidArgument("reflect padding ", p, " of axis ", d,
                                                   " must be less than its size ", n));
      } else if (m == PadMode::kCircular) {
        OAR_ENFORCE(p <= n, errors::InvalidArgument("circular padding ", p, " of axis ", d,
                                                    " must not exceed its size ", n));
      }
    }
  }
}
}  // namespace

void PadInferMeta(const DenseTensor& x, const std::vector<int64_t>& paddings, int64_t mode,
                  const Scalar&, DenseTensor* out) {
  CheckPaddings(x, paddings, mode);
  DDim dims = x.dims();
  for (size_t d = 0; d < dims.size(); ++d) {
    int64_t size = 0;
    OAR_ENFORCE(!__builtin_add_overflow(dims[d], paddings[2 * d], &size) &&
                    !__builtin_add_overflow(size, paddings[2 * d + 1], &size),
                errors::InvalidArgument("argument 'paddings': axis ", d, " of size ", dims[d],
                                        " padded by ", paddings[2 * d], " and ",
                                        paddings[2 * d + 1], " overflows int64"));
    dims[d] = size;
  }
  out->set_meta(x.dtype(), dims);
}

void PadGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out,
                      const std::vector<int64_t>& paddings, int64_t mode, DenseTensor* x_grad) {
  DenseTensor padded;
  PadInferMeta(x, paddings, mode, Scalar(0), &padded);
  OAR_ENFORCE(
      grad_out.dims() == padded.dims(),
      errors::InvalidArgument("argument 'grad_out' has shape ", DimsToString(grad_out.dims()),
                              " but the padded x has shape ", DimsToString(padded.dims())));
  x_grad->set_meta(grad_out.dtype(), x.dims());
}

}  // namespace oar
