// Creation kernels: constants, ranges and random numbers.
#include <cmath>
#include <random>

#include "oar/core/generator.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

// An engine for one op: from `seed` when non-zero, else from the default generator.
std::mt19937_64 MakeEngine(int64_t seed) {
  return std::mt19937_64(seed != 0 ? static_cast<uint64_t>(seed)
                                   : DefaultCPUGenerator().NextSeed());
}
// A double in [0, 1) from 53 random bits.
inline double Unit(std::mt19937_64& e) { return static_cast<double>(e() >> 11) * 0x1.0p-53; }

}  // namespace

template <typename T>
void FullKernel(const DeviceContext& ctx, const std::vector<int64_t>&, const Scalar& value, DType,
                DenseTensor* out) {
  out->AllocateFrom(ctx.GetPlace());
  funcs::Fill(out, value);
}

template <typename T>
void FullLikeKernel(const DeviceContext& ctx, const DenseTensor&, const Scalar& value, DType,
                    DenseTensor* out) {
  out->AllocateFrom(ctx.GetPlace());
  funcs::Fill(out, value);
}

// empty/empty_like: the allocation alone (filling 4 MB took 50 us; oar.empty now takes
// about 5 from Python at any size).
template <typename T>
void EmptyKernel(const DeviceContext& ctx, const std::vector<int64_t>&, DType, DenseTensor* out) {
  out->AllocateFrom(ctx.GetPlace());
}

template <typename T>
void EmptyLikeKernel(const DeviceContext& ctx, const DenseTensor&, DType, DenseTensor* out) {
  out->AllocateFrom(ctx.GetPlace());
}

// Zeros, then the diagonal: each page is written once. Python's eye used to copy a numpy
// eye in, touching every page of both: eye(31473) (4 GB) took 26 s, PyTorch's 3.
template <typename T>
void EyeKernel(const DeviceContext& ctx, int64_t, int64_t num_columns, DType, DenseTensor* out) {
  T* o = static_cast<T*>(out->AllocateFrom(ctx.GetPlace()));
  funcs::Fill(out, 0);
  const int64_t k = std::min(out->dims()[0], num_columns);
  for (int64_t i = 0; i < k; ++i) o[i * num_columns + i] = static_cast<T>(1);
}

template <typename T>
void ArangeKernel(const DeviceContext& ctx, const Scalar& start, const Scalar&, const Scalar& step,
                  DType, DenseTensor* out) {
  T* o = static_cast<T*>(out->AllocateFrom(ctx.GetPlace()));
  const int64_t n = out->numel();
  if (!start.is_floating() && !step.is_floating()) {  // exact integer steps
    const int64_t s0 = start.to_int64(), st = step.to_int64();
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(static_cast<compute_t<T>>(s0 + i * st));
    return;
  }
  const double s0 = start.to_double(), st = step.to_double();
  for (int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(static_cast<compute_t<T>>(s0 + i * st));
}

template <typename T>
void UniformKernel(const DeviceContext& ctx, const std::vector<int64_t>&, DType, double min,
                   double max, int64_t seed, DenseTensor* out) {
  OAR_ENFORCE(min <= max, errors::InvalidArgument("argument 'min' (", min,
                                                  ") must not exceed 'max' (", max, ")"));
  T* o = static_cast<T*>(out->AllocateFrom(ctx.GetPlace()));
  auto engine = MakeEngine(seed);
  const int64_t n = out->numel();
  // max - min passes double's range for min, max near -+1.8e308 (every value was inf):
  // then the two ends are weighted separately.
  const bool wide = !std::isfinite(max - min);
  for (int64_t i = 0; i < n; ++i) {
    const double u = Unit(engine);
    const double v = wide ? min * (1 - u) + max * u : min + (max - min) * u;
    o[i] = static_cast<T>(static_cast<compute_t<T>>(v));
  }
}

template <typename T>
void NormalKernel(const DeviceContext& ctx, const std::vector<int64_t>&, double mean, double std,
                  int64_t seed, DType, DenseTensor* out) {
  OAR_ENFORCE(std >= 0, errors::InvalidArgument("argument 'std' (", std, ") must be >= 0"));
  T* o = static_cast<T*>(out->AllocateFrom(ctx.GetPlace()));
  auto engine = MakeEngine(seed);
  const int64_t n = out->numel();
  // Box-Muller: two normals per pair of uniforms.
  for (int64_t i = 0; i < n; i += 2) {
    const double u1 = 1.0 - Unit(engine);  // (0, 1]
    const double u2 = Unit(engine);
    const double r = std::sqrt(-2.0 * std::log(u1));
    o[i] = static_cast<T>(static_cast<compute_t<T>>(mean + std * r * std::cos(2 * M_PI * u2)));
    if (i + 1 < n) {
      o[i + 1] =
          static_cast<T>(static_cast<compute_t<T>>(mean + std * r * std::sin(2 * M_PI * u2)));
    }
  }
}

OAR_REGISTER_KERNEL(full, CPU, Any, FullKernel, OAR_ALL_TYPES, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(full_like, CPU, Any, FullLikeKernel, OAR_ALL_TYPES, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(empty, CPU, Any, EmptyKernel, OAR_ALL_TYPES, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(empty_like, CPU, Any, EmptyLikeKernel, OAR_ALL_TYPES, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(eye, CPU, Any, EyeKernel, OAR_ALL_TYPES, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(arange, CPU, Any, ArangeKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(uniform, CPU, Any, UniformKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(normal, CPU, Any, NormalKernel, OAR_FLOAT_TYPES);

}  // namespace oar
