#include "oar/kernels/infer_meta_fft.h"

#include <limits>

#include "oar/core/errors.h"
#include "oar/kernels/infer_meta.h"

namespace oar {

namespace {
void CheckNorm(int64_t normalization) {
  OAR_ENFORCE(normalization >= 0 && normalization <= 2,
              errors::InvalidArgument("argument 'normalization' must be 0 (none), 1 (1/sqrt(n)) "
                                      "or 2 (1/n), but got ",
                                      normalization));
}

void CheckComplex(const DenseTensor& x) {
  OAR_ENFORCE(IsComplex(x.dtype()),
              errors::InvalidType("argument 'x' must be a complex64 or complex128 tensor, but got ",
                                  x.dtype()));
}

// Every transformed axis needs at least one sample (the transform of nothing is
// undefined, and Paddle, PyTorch and numpy refuse it too).
void CheckLengths(const DenseTensor& x, const std::vector<int64_t>& axes) {
  for (int64_t a : axes) {
    OAR_ENFORCE(
        x.dims()[a] > 0,
        errors::InvalidArgument("argument 'x' has length 0 along transformed axis ", a, " (shape ",
                                DimsToString(x.dims()), "); an FFT needs at least one sample"));
  }
}
}  // namespace

std::vector<int64_t> FftAxes(const DenseTensor& x, const std::vector<int64_t>& axes,
                             bool need_one) {
  OAR_ENFORCE(!need_one || !axes.empty(),
              errors::InvalidArgument("argument 'axes' must name at least one axis"));
  std::vector<int64_t> out;
  out.reserve(axes.size());
  for (int64_t a : axes) {
    const int64_t n = NormalizeAxis(a, x.ndim(), "axes");
    for (int64_t b : out) {
      OAR_ENFORCE(b != n,
                  errors::InvalidArgument("argument 'axes' ", StrCat(axes), " repeats axis ", n));
    }
    out.push_back(n);
  }
  return out;
}

int64_t FftC2RLength(const DenseTensor& x, int64_t last_axis, int64_t last_dim_size) {
  const int64_t m = x.dims()[last_axis];
  OAR_ENFORCE(last_dim_size >= 0,
              errors::InvalidArgument("argument 'last_dim_size' must be >= 0 (0: 2 * (m - 1)), "
                                      "but got ",
                                      last_dim_size));
  OAR_ENFORCE(last_dim_size != 0 || m - 1 <= std::numeric_limits<int64_t>::max() / 2,
              errors::InvalidArgument("argument 'x' has ", m, " entries along axis ", last_axis,
                                      ": the output length 2 * (m - 1) passes int64"));
  const int64_t n = last_dim_size == 0 ? 2 * (m - 1) : last_dim_size;
  OAR_ENFORCE(n >= 1,
              errors::InvalidArgument("the output length 2 * (m - 1) along axis ", last_axis,
                                      " is ", n, " for m = ", m, "; give last_dim_size >= 1"));
  OAR_ENFORCE(m == n / 2 + 1, errors::InvalidArgument("argument 'x' must have n / 2 + 1 = ",
                                                      n / 2 + 1, " entries along axis ", last_axis,
                                                      " for an output of ", n, " samples, but has ",
                                                      m, " (shape ", DimsToString(x.dims()), ")"));
  return n;
}

void FftC2CInferMeta(const DenseTensor& x, const std::vector<int64_t>& axes, int64_t normalization,
                     bool, DenseTensor* out) {
  CheckComplex(x);
  CheckNorm(normalization);
  CheckLengths(x, FftAxes(x, axes, false));
  out->set_meta(x.dtype(), x.dims());
}

void FftR2CInferMeta(const DenseTensor& x, const std::vector<int64_t>& axes, int64_t normalization,
                     bool, bool onesided, DenseTensor* out) {
  OAR_ENFORCE(
      x.dtype() == DType::kFloat32 || x.dtype() == DType::kFloat64,
      errors::InvalidType("argument 'x' must be a float32 or float64 tensor, but got ", x.dtype()));
  CheckNorm(normalization);
  const std::vector<int64_t> a = FftAxes(x, axes, true);
  CheckLengths(x, a);
  DDim d = x.dims();
  if (onesided) d[a.back()] = d[a.back()] / 2 + 1;
  out->set_meta(ToComplex(x.dtype()), d);
}

void FftC2RInferMeta(const DenseTensor& x, const std::vector<int64_t>& axes, int64_t normalization,
                     bool, int64_t last_dim_size, DenseTensor* out) {
  CheckComplex(x);
  CheckNorm(normalization);
  const std::vector<int64_t> a = FftAxes(x, axes, true);
  CheckLengths(x, a);
  DDim d = x.dims();
  d[a.back()] = FftC2RLength(x, a.back(), last_dim_size);
  out->set_meta(ToReal(x.dtype()), d);
}

}  // namespace oar
