#include "oar/kernels/infer_meta_activation.h"

#include "oar/core/errors.h"

namespace oar {

void CeluInferMeta(const DenseTensor& x, double alpha, DenseTensor* out) {
  OAR_ENFORCE(alpha != 0.0, errors::InvalidArgument("argument 'alpha' must not be 0"));
  out->set_meta(x.dtype(), x.dims());
}

void SeluInferMeta(const DenseTensor& x, double scale, double alpha, DenseTensor* out) {
  OAR_ENFORCE(scale > 1.0, errors::InvalidArgument(
                               "argument 'scale' must be greater than 1.0, but got ", scale));
  OAR_ENFORCE(alpha >= 0.0,
              errors::InvalidArgument("argument 'alpha' must be no less than 0, but got ", alpha));
  out->set_meta(x.dtype(), x.dims());
}

void SoftshrinkInferMeta(const DenseTensor& x, double threshold, DenseTensor* out) {
  OAR_ENFORCE(
      threshold >= 0.0,
      errors::InvalidArgument("argument 'threshold' must be no less than 0, but got ", threshold));
  out->set_meta(x.dtype(), x.dims());
}

void PreluInferMeta(const DenseTensor& x, const DenseTensor& weight, DenseTensor* out) {
  const DDim& xd = x.dims();
  const DDim& wd = weight.dims();
  bool ok = wd.size() <= xd.size();
  for (size_t i = 0; ok && i < wd.size(); ++i) {
    const int64_t w = wd[wd.size() - 1 - i];
    ok = w == 1 || w == xd[xd.size() - 1 - i];
  }
  OAR_ENFORCE(
      ok, errors::InvalidArgument("argument 'weight' of shape ", DimsToString(wd),
                                  " does not broadcast to the shape of 'x' ", DimsToString(xd)));
  out->set_meta(x.dtype(), xd);
}

}  // namespace oar
