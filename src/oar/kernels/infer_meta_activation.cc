#include "oar/kernels/infer_meta_activation.h"

#include <cmath>

#include "oar/core/errors.h"
#include "oar/kernels/infer_meta.h"

namespace oar {
namespace {

void NotNan(double v, const char* name) {
  OAR_ENFORCE(!std::isnan(v), errors::InvalidArgument("argument '", name, "' must not be NaN"));
}
void Finite(double v, const char* name) {
  OAR_ENFORCE(std::isfinite(v),
              errors::InvalidArgument("argument '", name, "' must be finite, but got ", v));
}

void CheckElu(double alpha) { Finite(alpha, "alpha"); }
void CheckSelu(double scale, double alpha) {
  Finite(scale, "scale");
  Finite(alpha, "alpha");
  OAR_ENFORCE(scale > 1.0, errors::InvalidArgument(
                               "argument 'scale' must be greater than 1.0, but got ", scale));
  OAR_ENFORCE(alpha >= 0.0,
              errors::InvalidArgument("argument 'alpha' must be no less than 0, but got ", alpha));
  OAR_ENFORCE(std::isfinite(scale * alpha),
              errors::InvalidArgument("argument 'scale' must keep scale * alpha finite, but ",
                                      scale, " * ", alpha, " overflows"));
}
void CheckCelu(double alpha) {
  Finite(alpha, "alpha");
  OAR_ENFORCE(alpha != 0.0, errors::InvalidArgument("argument 'alpha' must not be 0"));
}
void CheckSoftplus(double beta, double threshold) {
  Finite(beta, "beta");
  // the kernel multiplies by 1 / beta: 0 and subnormals (1 / 1e-320 = inf) are out
  OAR_ENFORCE(std::isfinite(1.0 / beta),
              errors::InvalidArgument("argument 'beta' must not be 0 or so small that 1 / beta "
                                      "overflows, but got ",
                                      beta));
  NotNan(threshold, "threshold");
}
void CheckHardsigmoid(double slope, double offset) {
  Finite(slope, "slope");
  Finite(offset, "offset");
}
void CheckHardtanh(double min, double max) {
  NotNan(min, "min");
  NotNan(max, "max");
}
void CheckSoftshrink(double threshold) {
  OAR_ENFORCE(
      threshold >= 0.0,
      errors::InvalidArgument("argument 'threshold' must be no less than 0, but got ", threshold));
}

}  // namespace

void EluInferMeta(const DenseTensor& x, double alpha, DenseTensor* out) {
  CheckElu(alpha);
  UnchangedInferMeta(x, out);
}
void EluGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out, double alpha,
                      DenseTensor* x_grad) {
  CheckElu(alpha);
  SameShapeGradInferMeta(x, grad_out, x_grad);
}

void SeluInferMeta(const DenseTensor& x, double scale, double alpha, DenseTensor* out) {
  CheckSelu(scale, alpha);
  UnchangedInferMeta(x, out);
}
void SeluGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out, double scale,
                       double alpha, DenseTensor* x_grad) {
  CheckSelu(scale, alpha);
  SameShapeGradInferMeta(x, grad_out, x_grad);
}

void CeluInferMeta(const DenseTensor& x, double alpha, DenseTensor* out) {
  CheckCelu(alpha);
  UnchangedInferMeta(x, out);
}
void CeluGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out, double alpha,
                       DenseTensor* x_grad) {
  CheckCelu(alpha);
  SameShapeGradInferMeta(x, grad_out, x_grad);
}

void SoftplusInferMeta(const DenseTensor& x, double beta, double threshold, DenseTensor* out) {
  CheckSoftplus(beta, threshold);
  UnchangedInferMeta(x, out);
}
void SoftplusGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out, double beta,
                           double threshold, DenseTensor* x_grad) {
  CheckSoftplus(beta, threshold);
  SameShapeGradInferMeta(x, grad_out, x_grad);
}

void HardsigmoidInferMeta(const DenseTensor& x, double slope, double offset, DenseTensor* out) {
  CheckHardsigmoid(slope, offset);
  UnchangedInferMeta(x, out);
}
void HardsigmoidGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out, double slope,
                              double offset, DenseTensor* x_grad) {
  CheckHardsigmoid(slope, offset);
  SameShapeGradInferMeta(x, grad_out, x_grad);
}

void HardtanhInferMeta(const DenseTensor& x, double min, double max, DenseTensor* out) {
  CheckHardtanh(min, max);
  UnchangedInferMeta(x, out);
}
void HardtanhGradInferMeta(const DenseTensor& out, const DenseTensor& grad_out, double min,
                           double max, DenseTensor* x_grad) {
  CheckHardtanh(min, max);
  SameShapeGradInferMeta(out, grad_out, x_grad);
}

void SoftshrinkInferMeta(const DenseTensor& x, double threshold, DenseTensor* out) {
  CheckSoftshrink(threshold);
  UnchangedInferMeta(x, out);
}
void SoftshrinkGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out, double threshold,
                             DenseTensor* x_grad) {
  CheckSoftshrink(threshold);
  SameShapeGradInferMeta(x, grad_out, x_grad);
}

void HardshrinkInferMeta(const DenseTensor& x, double threshold, DenseTensor* out) {
  NotNan(threshold, "threshold");
  UnchangedInferMeta(x, out);
}
void HardshrinkGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out, double threshold,
                             DenseTensor* x_grad) {
  NotNan(threshold, "threshold");
  SameShapeGradInferMeta(x, grad_out, x_grad);
}

void ThresholdedReluInferMeta(const DenseTensor& x, double threshold, double value,
                              DenseTensor* out) {
  NotNan(threshold, "threshold");
  NotNan(value, "value");
  UnchangedInferMeta(x, out);
}
void ThresholdedReluGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out,
                                  double threshold, DenseTensor* x_grad) {
  NotNan(threshold, "threshold");
  SameShapeGradInferMeta(x, grad_out, x_grad);
}

void LeakyReluInferMeta(const DenseTensor& x, double negative_slope, DenseTensor* out) {
  NotNan(negative_slope, "negative_slope");
  UnchangedInferMeta(x, out);
}
void LeakyReluGradInferMeta(const DenseTensor& x, const DenseTensor& grad_out,
                            double negative_slope, DenseTensor* x_grad) {
  NotNan(negative_slope, "negative_slope");
  SameShapeGradInferMeta(x, grad_out, x_grad);
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
