// Kernels of src/oar/ops/sampling.yaml: binomial sampling from the seeded default
// generator. One engine per call, seeded from the generator (as random_kernels.cc does),
// and a sequential loop: the samples depend only on oar.seed, not on the thread count.
#include <cmath>
#include <random>

#include "oar/core/errors.h"
#include "oar/core/generator.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/funcs/strided_loop.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

// t's values broadcast to `shape`, contiguous, in double.
DenseTensor AsDoubleBroadcast(const DenseTensor& t, const DDim& shape) {
  DenseTensorMeta m = t.meta();
  m.strides = funcs::BroadcastStrides(t, shape);
  m.dims = shape;
  return funcs::CastTo(funcs::Contiguous(DenseTensor(t.Holder(), m)), DType::kFloat64);
}

}  // namespace

template <typename T>
void BinomialKernel(const DeviceContext& ctx, const DenseTensor& count, const DenseTensor& prob,
                    DenseTensor* out) {
  const DenseTensor n = AsDoubleBroadcast(count, out->dims());
  const DenseTensor p = AsDoubleBroadcast(prob, out->dims());
  const double* np = static_cast<const double*>(n.data());
  const double* pp = static_cast<const double*>(p.data());
  const int64_t size = out->numel();
  for (int64_t i = 0; i < size; ++i) {
    OAR_ENFORCE(
        np[i] >= 0 && np[i] == std::floor(np[i]) && np[i] < 9.2e18,
        errors::InvalidArgument("argument 'count' holds whole numbers >= 0, found ", np[i]));
    OAR_ENFORCE(
        pp[i] >= 0 && pp[i] <= 1,
        errors::InvalidArgument("argument 'prob' holds probabilities in [0, 1], found ", pp[i]));
  }
  int64_t* o = static_cast<int64_t*>(out->AllocateFrom(ctx.GetPlace()));
  std::mt19937_64 engine(DefaultCPUGenerator().NextSeed());
  for (int64_t i = 0; i < size; ++i) {
    const auto trials = static_cast<int64_t>(np[i]);
    o[i] = trials == 0 || pp[i] == 0 ? 0
           : pp[i] == 1              ? trials
                                     : std::binomial_distribution<int64_t>(trials, pp[i])(engine);
  }
}

OAR_REGISTER_KERNEL(binomial, CPU, Any, BinomialKernel, OAR_FLOAT_TYPES);

}  // namespace oar
