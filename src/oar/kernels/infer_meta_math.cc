#include "oar/kernels/infer_meta_math.h"

#include "oar/core/errors.h"
#include "oar/kernels/infer_meta.h"

namespace oar {
namespace {

void CheckBoolMask(const DenseTensor& mask) {
  OAR_ENFORCE(mask.dtype() == DType::kBool,
              errors::InvalidType("argument 'mask' must be a bool tensor, but got ", mask.dtype()));
}

void CheckTolerances(double rtol, double atol) {
  // NaN fails both comparisons too.
  OAR_ENFORCE(rtol >= 0, errors::InvalidArgument("argument 'rtol' must be >= 0, but got ", rtol));
  OAR_ENFORCE(atol >= 0, errors::InvalidArgument("argument 'atol' must be >= 0, but got ", atol));
}

}  // namespace

void UnaryBoolInferMeta(const DenseTensor& x, DenseTensor* out) {
  out->set_meta(DType::kBool, x.dims());
}

void ReduceBoolInferMeta(const DenseTensor& x, const std::vector<int64_t>& axis, bool keepdim,
                         DenseTensor* out) {
  ReduceInferMeta(x, axis, keepdim, out);
  out->set_dtype(DType::kBool);
}

void IscloseInferMeta(const DenseTensor& x, const DenseTensor& y, double rtol, double atol,
                      bool equal_nan, DenseTensor* out) {
  (void)equal_nan;
  CheckTolerances(rtol, atol);
  out->set_meta(DType::kBool, BroadcastShape(x.dims(), y.dims()));
}

void AllcloseInferMeta(const DenseTensor& x, const DenseTensor& y, double rtol, double atol,
                       bool equal_nan, DenseTensor* out) {
  (void)equal_nan;
  CheckTolerances(rtol, atol);
  BroadcastShape(x.dims(), y.dims());  // only validates
  out->set_meta(DType::kBool, DDim{});
}

void EqualAllInferMeta(const DenseTensor&, const DenseTensor&, DenseTensor* out) {
  // Different shapes are not an error: the answer is then False.
  out->set_meta(DType::kBool, DDim{});
}

void LerpInferMeta(const DenseTensor& x, const DenseTensor& y, const DenseTensor& weight,
                   DenseTensor* out) {
  const DDim xy = BroadcastShape(x.dims(), y.dims());
  out->set_meta(x.dtype(), BroadcastShape(xy, weight.dims(), "x and y", "weight"));
}

void MaskedFillInferMeta(const DenseTensor& x, const DenseTensor& mask, const DenseTensor& value,
                         DenseTensor* out) {
  CheckBoolMask(mask);
  OAR_ENFORCE(value.numel() == 1 && value.ndim() <= 1,
              errors::InvalidArgument("argument 'value' must be a number or a 0-d tensor, but "
                                      "it has shape ",
                                      DimsToString(value.dims())));
  OAR_ENFORCE(value.dtype() == x.dtype(),
              errors::InvalidType("argument 'value' must have x's dtype ", x.dtype(), ", but got ",
                                  value.dtype()));
  out->set_meta(x.dtype(), BroadcastShape(x.dims(), mask.dims(), "x", "mask"));
}

void MaskedSelectInferMeta(const DenseTensor& x, const DenseTensor& mask, DenseTensor* out) {
  CheckBoolMask(mask);
  BroadcastShape(x.dims(), mask.dims(), "x", "mask");
  out->set_meta(x.dtype(), DDim{0});
}

void MaskedSelectGradInferMeta(const DenseTensor& x, const DenseTensor& mask,
                               const DenseTensor& grad_out, DenseTensor* x_grad) {
  CheckBoolMask(mask);
  OAR_ENFORCE(grad_out.ndim() == 1,
              errors::InvalidArgument("argument 'grad_out' must be 1-D, but has shape ",
                                      DimsToString(grad_out.dims())));
  x_grad->set_meta(grad_out.dtype(), BroadcastShape(x.dims(), mask.dims(), "x", "mask"));
}

}  // namespace oar
