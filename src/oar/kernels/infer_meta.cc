#include "oar/kernels/infer_meta.h"

#include <algorithm>
#include <cmath>

#include "oar/core/errors.h"
#include "oar/core/wide_int.h"

namespace oar {

int64_t NormalizeAxis(int64_t axis, int64_t rank, const char* arg_name) {
  if (rank == 0) {
    throw errors::OutOfRange("argument '", arg_name, "' (", axis,
                             ") is out of range: the tensor is 0-d and has no axis to index "
                             "(Note [Axes of 0-d tensors]); reshape it to [1] first");
  }
  return NormalizeAxisAllowing0d(axis, rank, arg_name);
}

int64_t NormalizeAxisAllowing0d(int64_t axis, int64_t rank, const char* arg_name) {
  const int64_t r = std::max<int64_t>(rank, 1);
  if (axis < -r || axis >= r) {
    throw errors::OutOfRange("argument '", arg_name, "' (", axis,
                             ") is out of range for a tensor of rank ", rank, ": expected ", -r,
                             " <= ", arg_name, " < ", r);
  }
  return axis < 0 ? axis + r : axis;
}

std::vector<int64_t> NormalizeReduceAxes(const std::vector<int64_t>& axis, int64_t rank) {
  std::vector<int64_t> out;
  out.reserve(axis.size());
  for (int64_t a : axis) out.push_back(NormalizeAxisAllowing0d(a, rank));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (rank == 0) out.clear();
  return out;
}

namespace {
// BroadcastShape of two shapes known to differ.
DDim BroadcastUnequal(const DDim& a, const DDim& b, const char* a_name, const char* b_name) {
  const size_t rank = std::max(a.size(), b.size());
  DDim out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      throw errors::InvalidArgument("the shapes of '", a_name, "' ", DimsToString(a), " and '",
                                    b_name, "' ", DimsToString(b),
                                    " cannot be broadcast together: dimension ",
                                    static_cast<int64_t>(i) - static_cast<int64_t>(rank), " is ",
                                    da, " vs ", db, " (each must be equal or 1)");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}
}  // namespace

DDim BroadcastShape(const DDim& a, const DDim& b, const char* a_name, const char* b_name) {
  if (a == b) return a;  // the common case
  return BroadcastUnequal(a, b, a_name, b_name);
}

void UnchangedInferMeta(const DenseTensor& x, DenseTensor* out) {
  out->set_meta(x.dtype(), x.dims());
}

void RealInferMeta(const DenseTensor& x, DenseTensor* out) {
  out->set_meta(ToReal(x.dtype()), x.dims());
}

void SameShapeGradInferMeta(const DenseTensor& out, const DenseTensor& grad_out,
                            DenseTensor* x_grad) {
  OAR_ENFORCE(out.dims() == grad_out.dims(),
              errors::InvalidArgument("'grad_out' has shape ", DimsToString(grad_out.dims()),
                                      " but 'out' has shape ", DimsToString(out.dims())));
  x_grad->set_meta(grad_out.dtype(), grad_out.dims());
}

void ElementwiseInferMeta(const DenseTensor& x, const DenseTensor& y, DenseTensor* out) {
  if (x.dims() == y.dims()) {  // the common case, without a shape made and copied
    out->set_meta(x.dtype(), x.dims());
    return;
  }
  out->set_meta(x.dtype(), BroadcastUnequal(x.dims(), y.dims(), "x", "y"));
}

void ComplexInferMeta(const DenseTensor& real, const DenseTensor& imag, DenseTensor* out) {
  const DType d = PromoteTypes(real.dtype(), imag.dtype());
  OAR_ENFORCE(d == DType::kFloat32 || d == DType::kFloat64,
              errors::InvalidType("arguments 'real' and 'imag' must be float32 or float64 "
                                  "tensors, but got ",
                                  real.dtype(), " and ", imag.dtype()));
  out->set_meta(ToComplex(d), BroadcastShape(real.dims(), imag.dims(), "real", "imag"));
}

void AsComplexInferMeta(const DenseTensor& x, DenseTensor* out) {
  OAR_ENFORCE(
      x.dtype() == DType::kFloat32 || x.dtype() == DType::kFloat64,
      errors::InvalidType("argument 'x' must be a float32 or float64 tensor, but got ", x.dtype()));
  OAR_ENFORCE(x.ndim() >= 1 && x.dims()[x.ndim() - 1] == 2,
              errors::InvalidArgument("argument 'x' must have a last axis of size 2 (real, "
                                      "imag), but it has shape ",
                                      DimsToString(x.dims())));
  out->set_meta(ToComplex(x.dtype()), DDim(x.dims().begin(), x.dims().end() - 1));
}

void AsRealInferMeta(const DenseTensor& x, DenseTensor* out) {
  OAR_ENFORCE(IsComplex(x.dtype()),
              errors::InvalidType("argument 'x' must be a complex64 or complex128 tensor, but got ",
                                  x.dtype()));
  DDim d = x.dims();
  d.push_back(2);
  out->set_meta(ToReal(x.dtype()), d);
}

void CompareInferMeta(const DenseTensor& x, const DenseTensor& y, DenseTensor* out) {
  out->set_meta(DType::kBool, BroadcastShape(x.dims(), y.dims()));
}

void WhereInferMeta(const DenseTensor& condition, const DenseTensor& x, const DenseTensor& y,
                    DenseTensor* out) {
  OAR_ENFORCE(condition.dtype() == DType::kBool,
              errors::InvalidType("argument 'condition' must be a bool tensor, but got ",
                                  condition.dtype()));
  DDim s = BroadcastShape(x.dims(), y.dims());
  out->set_meta(x.dtype(), BroadcastShape(condition.dims(), s, "condition", "x and y"));
}

void CastInferMeta(const DenseTensor& x, DType dtype, DenseTensor* out) {
  OAR_ENFORCE(dtype != DType::kUndefined,
              errors::InvalidType("argument 'dtype' must be a concrete dtype"));
  out->set_meta(dtype, x.dims());
}

void MatmulInferMeta(const DenseTensor& x, const DenseTensor& y, bool transpose_x, bool transpose_y,
                     DenseTensor* out) {
  DDim dx = x.dims(), dy = y.dims();
  OAR_ENFORCE(!dx.empty(), errors::InvalidArgument("argument 'x' must have at least 1 dimension, "
                                                   "but it is a 0-d tensor"));
  OAR_ENFORCE(!dy.empty(), errors::InvalidArgument("argument 'y' must have at least 1 dimension, "
                                                   "but it is a 0-d tensor"));
  const bool x_vec = dx.size() == 1, y_vec = dy.size() == 1;
  if (x_vec) dx.insert(dx.begin(), 1);
  if (y_vec) dy.push_back(1);
  const size_t rx = dx.size(), ry = dy.size();
  const int64_t m = transpose_x && !x_vec ? dx[rx - 1] : dx[rx - 2];
  const int64_t kx = transpose_x && !x_vec ? dx[rx - 2] : dx[rx - 1];
  const int64_t ky = transpose_y && !y_vec ? dy[ry - 1] : dy[ry - 2];
  const int64_t n = transpose_y && !y_vec ? dy[ry - 2] : dy[ry - 1];
  if (kx != ky) {
    throw errors::InvalidArgument("the contracted dimensions of 'x' ", DimsToString(x.dims()),
                                  (transpose_x ? " (transposed)" : ""), " and 'y' ",
                                  DimsToString(y.dims()), (transpose_y ? " (transposed)" : ""),
                                  " differ: ", kx, " vs ", ky);
  }
  DDim bx(dx.begin(), dx.end() - 2), by(dy.begin(), dy.end() - 2);
  DDim batch = BroadcastShape(bx, by, "x (batch dims)", "y (batch dims)");
  if (!x_vec) batch.push_back(m);
  if (!y_vec) batch.push_back(n);
  out->set_meta(x.dtype(), batch);
}

namespace {
DDim ReducedDims(const DDim& dims, const std::vector<int64_t>& axes, bool keepdim) {
  DDim out;
  const bool all = axes.empty();
  for (size_t i = 0; i < dims.size(); ++i) {
    const bool reduced = all || std::binary_search(axes.begin(), axes.end(), int64_t(i));
    if (!reduced) {
      out.push_back(dims[i]);
    } else if (keepdim) {
      out.push_back(1);
    }
  }
  return out;
}
}  // namespace

void ReduceInferMeta(const DenseTensor& x, const std::vector<int64_t>& axis, bool keepdim,
                     DenseTensor* out) {
  const auto axes = NormalizeReduceAxes(axis, x.ndim());
  out->set_meta(x.dtype(), ReducedDims(x.dims(), axes, keepdim));
}

void SumInferMeta(const DenseTensor& x, const std::vector<int64_t>& axis, DType dtype, bool keepdim,
                  DenseTensor* out) {
  ReduceInferMeta(x, axis, keepdim, out);
  if (dtype == DType::kUndefined) {
    dtype = (x.dtype() == DType::kBool || x.dtype() == DType::kInt32) ? DType::kInt64 : x.dtype();
  }
  out->set_dtype(dtype);
}

void ProdInferMeta(const DenseTensor& x, const std::vector<int64_t>& axis, DType dtype,
                   bool keepdim, DenseTensor* out) {
  ReduceInferMeta(x, axis, keepdim, out);
  // Paddle 3.3.1 keeps every integer dtype (prod of int32 is int32, where sum's is
  // int64); bool, which Paddle's prod does not take, multiplies to int64 as in PyTorch.
  if (dtype == DType::kUndefined) dtype = x.dtype() == DType::kBool ? DType::kInt64 : x.dtype();
  out->set_dtype(dtype);
}

void SumToInferMeta(const DenseTensor& x, const std::vector<int64_t>& shape, DenseTensor* out) {
  const DDim target = MakeDDim(shape);
  const DDim b = BroadcastShape(target, x.dims(), "shape", "x");
  OAR_ENFORCE(b == x.dims(), errors::InvalidArgument(
                                 "cannot sum 'x' of shape ", DimsToString(x.dims()), " to shape ",
                                 DimsToString(target), ": the target must broadcast to x's shape"));
  out->set_meta(x.dtype(), target);
}

void ReshapeInferMeta(const DenseTensor& x, const std::vector<int64_t>& shape, DenseTensor* out) {
  DDim dims(shape.size());
  int64_t infer = -1, known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t d = shape[i];
    if (d == -1) {
      OAR_ENFORCE(infer < 0, errors::InvalidArgument("argument 'shape' ", StrCat(shape),
                                                     " may contain at most one -1"));
      infer = static_cast<int64_t>(i);
      continue;
    }
    if (d == 0) {
      OAR_ENFORCE(i < x.dims().size(),
                  errors::InvalidArgument("argument 'shape' ", StrCat(shape), ": 0 at position ", i,
                                          " copies x's dimension, but x has only ", x.dims().size(),
                                          " dimensions"));
      d = x.dims()[i];
    }
    OAR_ENFORCE(d >= 0, errors::InvalidArgument("argument 'shape' ", StrCat(shape),
                                                " has a negative dimension ", d));
    dims[i] = d;
    OAR_ENFORCE(!__builtin_mul_overflow(known, d, &known),
                errors::InvalidArgument("argument 'shape' ", StrCat(shape),
                                        " has too many elements (more than 2^63)"));
  }
  const int64_t numel = x.numel();
  if (infer >= 0) {
    OAR_ENFORCE(known != 0 && numel % known == 0,
                errors::InvalidArgument("cannot reshape a tensor of shape ", DimsToString(x.dims()),
                                        " (", numel, " elements) to ", StrCat(shape)));
    dims[infer] = numel / known;
  } else {
    OAR_ENFORCE(
        known == numel,
        errors::InvalidArgument("cannot reshape a tensor of shape ", DimsToString(x.dims()), " (",
                                numel, " elements) to ", StrCat(shape), " (", known, " elements)"));
  }
  out->set_meta(x.dtype(), dims);
}

void TransposeInferMeta(const DenseTensor& x, const std::vector<int64_t>& perm, DenseTensor* out) {
  const int64_t rank = x.ndim();
  OAR_ENFORCE(static_cast<int64_t>(perm.size()) == rank,
              errors::InvalidArgument("argument 'perm' ", StrCat(perm), " has ", perm.size(),
                                      " entries but x has rank ", rank));
  std::vector<bool> seen(rank, false);
  DDim dims(rank);
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t p = NormalizeAxis(perm[i], rank, "perm");
    OAR_ENFORCE(!seen[p],
                errors::InvalidArgument("argument 'perm' ", StrCat(perm), " repeats axis ", p));
    seen[p] = true;
    dims[i] = x.dims()[p];
  }
  out->set_meta(x.dtype(), dims);
}

void UnsqueezeInferMeta(const DenseTensor& x, const std::vector<int64_t>& axis, DenseTensor* out) {
  DDim dims = x.dims();
  for (int64_t a : axis) {
    const int64_t r = static_cast<int64_t>(dims.size()) + 1;
    if (a < -r || a >= r) {
      throw errors::OutOfRange("argument 'axis' (", a, ") is out of range: expected ", -r,
                               " <= axis < ", r, " for a result of rank ", r);
    }
    const int64_t pos = a < 0 ? a + r : a;
    dims.insert(dims.begin() + pos, 1);
  }
  out->set_meta(x.dtype(), dims);
}

void SqueezeInferMeta(const DenseTensor& x, const std::vector<int64_t>& axis, DenseTensor* out) {
  const int64_t rank = x.ndim();
  std::vector<bool> drop(rank, false);
  if (axis.empty()) {
    for (int64_t i = 0; i < rank; ++i) drop[i] = x.dims()[i] == 1;
  } else {
    for (int64_t a : axis) {
      const int64_t p = NormalizeAxisAllowing0d(a, rank);
      if (rank > 0 && x.dims()[p] == 1) drop[p] = true;  // other sizes are kept, as Paddle does
    }
  }
  DDim dims;
  for (int64_t i = 0; i < rank; ++i) {
    if (!drop[i]) dims.push_back(x.dims()[i]);
  }
  out->set_meta(x.dtype(), dims);
}

void ExpandInferMeta(const DenseTensor& x, const std::vector<int64_t>& shape, DenseTensor* out) {
  const size_t rank = shape.size(), xr = x.dims().size();
  OAR_ENFORCE(rank >= xr, errors::InvalidArgument("argument 'shape' ", StrCat(shape), " has ", rank,
                                                  " dimensions, fewer than x's ", xr));
  DDim dims(rank);
  for (size_t i = 0; i < rank; ++i) {
    const bool has_x = i >= rank - xr;
    const int64_t xd = has_x ? x.dims()[i - (rank - xr)] : 1;
    int64_t d = shape[i];
    if (d == -1) {
      OAR_ENFORCE(has_x, errors::InvalidArgument("argument 'shape' ", StrCat(shape),
                                                 ": -1 is only allowed for existing dimensions"));
      d = xd;
    }
    OAR_ENFORCE(d >= 0, errors::InvalidArgument("argument 'shape' ", StrCat(shape),
                                                " has a negative dimension"));
    if (xd != d && xd != 1) {
      throw errors::InvalidArgument("cannot expand x of shape ", DimsToString(x.dims()), " to ",
                                    StrCat(shape), ": dimension ", i, " is ", xd,
                                    " (must be 1 or equal to ", d, ")");
    }
    dims[i] = d;
  }
  out->set_meta(x.dtype(), dims);
}

void ConcatInferMeta(const std::vector<const DenseTensor*>& x, int64_t axis, DenseTensor* out) {
  OAR_ENFORCE(!x.empty(), errors::InvalidArgument("argument 'x' must hold at least one tensor"));
  const DenseTensor& first = *x[0];
  const int64_t rank = first.ndim();
  OAR_ENFORCE(rank > 0, errors::InvalidArgument("cannot concatenate 0-d tensors; unsqueeze them "
                                                "or use stack"));
  const int64_t a = NormalizeAxis(axis, rank);
  DDim dims = first.dims();
  for (size_t i = 1; i < x.size(); ++i) {
    const DenseTensor& t = *x[i];
    OAR_ENFORCE(t.ndim() == rank,
                errors::InvalidArgument("all tensors in 'x' must have the same rank: x[0] is ",
                                        DimsToString(first.dims()), " but x[", i, "] is ",
                                        DimsToString(t.dims())));
    for (int64_t d = 0; d < rank; ++d) {
      if (d == a) continue;
      OAR_ENFORCE(t.dims()[d] == first.dims()[d],
                  errors::InvalidArgument("x[", i, "] of shape ", DimsToString(t.dims()),
                                          " does not match x[0] of shape ",
                                          DimsToString(first.dims()), " outside axis ", a));
    }
    OAR_ENFORCE(!__builtin_add_overflow(dims[a], t.dims()[a], &dims[a]),
                errors::InvalidArgument("the sizes of the tensors in 'x' along axis ", a,
                                        " add up past int64"));
  }
  out->set_meta(first.dtype(), dims);
}

std::vector<SliceRange> NormalizeSlices(const DDim& dims, const std::vector<int64_t>& axes,
                                        const std::vector<int64_t>& starts,
                                        const std::vector<int64_t>& ends,
                                        const std::vector<int64_t>& strides) {
  OAR_ENFORCE(starts.size() == axes.size() && ends.size() == axes.size() &&
                  (strides.empty() || strides.size() == axes.size()),
              errors::InvalidArgument(
                  "arguments 'axes' (", axes.size(), "), 'starts' (", starts.size(), "), 'ends' (",
                  ends.size(), ") and 'strides' (", strides.size(), ") must have the same length"));
  std::vector<SliceRange> out;
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t a = NormalizeAxis(axes[i], static_cast<int64_t>(dims.size()), "axes");
    OAR_ENFORCE(!seen[a],
                errors::InvalidArgument("argument 'axes' ", StrCat(axes), " repeats axis ", a));
    seen[a] = true;
    const int64_t n = dims[a];
    // Any step longer than the dim takes one element; clamping keeps -step and
    // the size arithmetic below from overflowing (a step of -2**63).
    const int64_t step =
        std::clamp<int64_t>(strides.empty() ? 1 : strides[i], -INT64_MAX, INT64_MAX);
    OAR_ENFORCE(step != 0, errors::InvalidArgument("argument 'strides' must not contain 0"));
    // Python's slice.indices()
    auto clamp = [&](int64_t v, int64_t lo, int64_t hi) {
      if (v < 0) v += n;
      return std::clamp(v, lo, hi);
    };
    int64_t start, end, size;
    if (step > 0) {
      start = clamp(starts[i], 0, n);
      end = clamp(ends[i], 0, n);
      size = end > start ? (end - start - 1) / step + 1 : 0;
    } else {
      start = clamp(starts[i], -1, n - 1);
      end = clamp(ends[i], -1, n - 1);
      size = start > end ? (start - end - 1) / (-step) + 1 : 0;
    }
    out.push_back({a, start, step, size});
  }
  return out;
}

void StridedSliceInferMeta(const DenseTensor& x, const std::vector<int64_t>& axes,
                           const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                           const std::vector<int64_t>& strides, DenseTensor* out) {
  DDim dims = x.dims();
  for (const auto& r : NormalizeSlices(x.dims(), axes, starts, ends, strides))
    dims[r.axis] = r.size;
  out->set_meta(x.dtype(), dims);
}

void SliceInferMeta(const DenseTensor& x, const std::vector<int64_t>& axes,
                    const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                    DenseTensor* out) {
  StridedSliceInferMeta(x, axes, starts, ends, {}, out);
}

void StridedSliceGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out,
                               const std::vector<int64_t>& axes, const std::vector<int64_t>& starts,
                               const std::vector<int64_t>& ends,
                               const std::vector<int64_t>& strides, DenseTensor* x_grad) {
  DenseTensor sliced;
  StridedSliceInferMeta(x, axes, starts, ends, strides, &sliced);
  OAR_ENFORCE(
      sliced.dims() == grad_out.dims(),
      errors::InvalidArgument("'grad_out' has shape ", DimsToString(grad_out.dims()),
                              " but the slice of x has shape ", DimsToString(sliced.dims())));
  x_grad->set_meta(grad_out.dtype(), x.dims());
}

void SetValueInferMeta(const DenseTensor& x, const DenseTensor& value,
                       const std::vector<int64_t>& axes, const std::vector<int64_t>& starts,
                       const std::vector<int64_t>& ends, const std::vector<int64_t>& strides,
                       DenseTensor* out) {
  DenseTensor region;
  StridedSliceInferMeta(x, axes, starts, ends, strides, &region);
  const DDim b = BroadcastShape(value.dims(), region.dims(), "value", "the slice of x");
  OAR_ENFORCE(b == region.dims(),
              errors::InvalidArgument("argument 'value' of shape ", DimsToString(value.dims()),
                                      " cannot be broadcast to the slice of shape ",
                                      DimsToString(region.dims())));
  out->set_meta(x.dtype(), x.dims());
}

void IndexSelectInferMeta(const DenseTensor& x, const DenseTensor& index, int64_t axis,
                          DenseTensor* out) {
  OAR_ENFORCE(IsIntegral(index.dtype()),
              errors::InvalidType("argument 'index' must be an int32 or int64 tensor, but got ",
                                  index.dtype()));
  OAR_ENFORCE(index.ndim() <= 1, errors::InvalidArgument("argument 'index' must be 1-D, but has "
                                                         "shape ",
                                                         DimsToString(index.dims())));
  OAR_ENFORCE(x.ndim() >= 1,
              errors::InvalidArgument("argument 'x' must have at least 1 dimension"));
  const int64_t a = NormalizeAxis(axis, x.ndim());
  DDim dims = x.dims();
  dims[a] = index.numel();
  out->set_meta(x.dtype(), dims);
}

void IndexSelectGradInferMeta(const DenseTensor& x, const DenseTensor& index,
                              const DenseTensor& grad_out, int64_t axis, DenseTensor* x_grad) {
  DenseTensor selected;
  IndexSelectInferMeta(x, index, axis, &selected);
  OAR_ENFORCE(
      selected.dims() == grad_out.dims(),
      errors::InvalidArgument("'grad_out' has shape ", DimsToString(grad_out.dims()),
                              " but the selection has shape ", DimsToString(selected.dims())));
  x_grad->set_meta(grad_out.dtype(), x.dims());
}

void NonzeroInferMeta(const DenseTensor& x, DenseTensor* out) {
  out->set_meta(DType::kInt64, DDim{0, static_cast<int64_t>(x.ndim())});
}

void SoftmaxInferMeta(const DenseTensor& x, int64_t axis, DenseTensor* out) {
  NormalizeAxisAllowing0d(axis, x.ndim());
  out->set_meta(x.dtype(), x.dims());
}

void SoftmaxGradInferMeta(const DenseTensor& out, const DenseTensor& grad_out, int64_t axis,
                          DenseTensor* x_grad) {
  NormalizeAxisAllowing0d(axis, out.ndim());
  SameShapeGradInferMeta(out, grad_out, x_grad);
}

void CreateInferMeta(const std::vector<int64_t>& shape, DType dtype, DenseTensor* out) {
  for (int64_t d : shape) {
    OAR_ENFORCE(d >= 0, errors::InvalidArgument("argument 'shape' ", StrCat(shape),
                                                " must not contain negative dimensions"));
  }
  OAR_ENFORCE(dtype != DType::kUndefined,
              errors::InvalidType("argument 'dtype' must be a concrete dtype"));
  out->set_meta(dtype, MakeDDim(shape));
}

void EyeInferMeta(int64_t num_rows, int64_t num_columns, DType dtype, DenseTensor* out) {
  OAR_ENFORCE(num_rows >= 0 && num_columns >= 0,
              errors::InvalidArgument("arguments 'num_rows' (", num_rows, ") and 'num_columns' (",
                                      num_columns, ") must be non-negative"));
  CreateInferMeta({num_rows, num_columns}, dtype, out);
}

void CreateLikeInferMeta(const DenseTensor& x, DType dtype, DenseTensor* out) {
  out->set_meta(dtype == DType::kUndefined ? x.dtype() : dtype, x.dims());
}

void ArangeInferMeta(const Scalar& start_s, const Scalar& end_s, const Scalar& step_s, DType dtype,
                     DenseTensor* out) {
  if (!start_s.is_floating() && !end_s.is_floating() && !step_s.is_floating()) {
    const int64_t a = start_s.to_int64(), b = end_s.to_int64(), st = step_s.to_int64();
    OAR_ENFORCE(st != 0, errors::InvalidArgument("argument 'step' must not be 0"));
    const Int128 span = static_cast<Int128>(b) - a;
    const Int128 n = span / st + (span % st != 0 && (span > 0) == (st > 0));
    OAR_ENFORCE(n <= INT64_MAX, errors::InvalidArgument("arange from ", a, " to ", b, " by ", st,
                                                        " has too many elements"));
    out->set_meta(dtype, DDim{static_cast<int64_t>(n > 0 ? n : 0)});
    return;
  }
  const double start = start_s.to_double(), end = end_s.to_double(), step = step_s.to_double();
  OAR_ENFORCE(step != 0, errors::InvalidArgument("argument 'step' must not be 0"));
  OAR_ENFORCE(std::isfinite(start) && std::isfinite(end) && std::isfinite(step),
              errors::InvalidArgument("arguments 'start', 'end' and 'step' must be finite"));
  const double n = std::ceil((end - start) / step);
  OAR_ENFORCE(n < 9.0e18, errors::InvalidArgument("arange from ", start, " to ", end, " by ", step,
                                                  " has too many elements"));
  out->set_meta(dtype, DDim{static_cast<int64_t>(std::max(0.0, n))});
}

}  // namespace oar
