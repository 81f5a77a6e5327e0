// Note [A convolution without a graph runs folded] (conv_no_grad.h).
#include "oar/kernels/cpu/conv_no_grad.h"

#include <memory>
#include <utility>

#include "oar/core/conv_flags.h"
#include "oar/core/errors.h"
#include "oar/core/grad_mode.h"
#include "oar/kernels/cpu/conv_inference.h"
#include "oar/kernels/cpu/conv_weight_cache.h"

namespace oar::conv_engine {
namespace {

// What a weight's Allocation keeps: the call it was made for, and from the second call
// that found the weight unchanged its convolution.
struct HeldConv final : DerivedCopy {
  uint64_t writes = 0;
  int64_t offset = 0;
  DDim dims;
  InferenceConvSpec spec;
  std::unique_ptr<const InferenceConv> conv;  // null after the first call

  bool Matches(uint64_t w_writes, const DenseTensor& w, const InferenceConvSpec& s) const {
    return writes == w_writes && offset == w.offset() && dims == w.dims() && spec == s;
  }
};

// w's elements through an Allocation that does not own them (see the note).
DenseTensor Unowned(const DenseTensor& w) {
  auto block = std::make_shared<Allocation>(const_cast<void*>(w.data()),
                                            static_cast<size_t>(w.numel()) * sizeof(float),
                                            w.place(), nullptr);
  return DenseTensor(std::move(block), DenseTensorMeta(w.dtype(), w.dims()));
}

}  // namespace

bool NoGradForward(const DenseTensor& x, const DenseTensor& w, const std::vector<int64_t>& strides,
                   const std::vector<int64_t>& paddings, const std::vector<int64_t>& dilations,
                   int64_t groups, DenseTensor* out) {
  if (HasGrad() || x.dtype() != DType::kFloat32 || w.dtype() != DType::kFloat32 || w.ndim() != 4 ||
      x.ndim() != 4 || x.dims()[0] != 1 || !w.is_contiguous() || w.numel() == 0 || x.numel() == 0 ||
      x.place().type != AllocationType::kCPU || w.place().type != AllocationType::kCPU ||
      !InferenceConv::Takes(x)) {
    return false;
  }
  InferenceConvSpec spec{.strides = strides,
                         .paddings = paddings,
                         .dilations = dilations,
                         .groups = groups,
                         .winograd = FLAGS_conv_winograd()};
  const std::shared_ptr<Allocation>& block = w.Holder();
  if (block == nullptr || block->shared_outside()) return false;  // never kept
  const uint64_t writes = block->inplace_version().Writes();
  const std::shared_ptr<const DerivedCopy> held = HeldCopy(*block, WeightCopyKind::kNoGradConv);
  const auto* last = dynamic_cast<const HeldConv*>(held.get());
  const bool unchanged = last != nullptr && last->Matches(writes, w, spec);
  std::shared_ptr<const HeldConv> use;  // keeps the convolution alive while it runs
  if (unchanged && last->conv != nullptr) {
    use = std::shared_ptr<const HeldConv>(held, last);
  } else {
    auto copy = std::make_shared<HeldConv>();
    copy->writes = writes;
    copy->offset = w.offset();
    copy->dims = w.dims();
    copy->spec = spec;
    if (unchanged) copy->conv = std::make_unique<const InferenceConv>(Unowned(w), std::move(spec));
    Hold(*block, WeightCopyKind::kNoGradConv, copy);
    if (!unchanged) return false;  // the first call with this weight: the ops' passes
    use = std::move(copy);
  }
  DenseTensor y = use->conv->Run(x, nullptr, /*plain=*/true);
  OAR_ENFORCE(y.dims() == out->dims(),
              errors::Fatal("conv: the folded convolution's output is ", DimsToString(y.dims()),
                            " where the op's shape is ", DimsToString(out->dims())));
  *out = std::move(y);
  return true;
}

bool HoldsNoGradConv(const DenseTensor& w) {
  if (!w.Holder()) return false;
  const std::shared_ptr<const DerivedCopy> held =
      HeldCopy(*w.Holder(), WeightCopyKind::kNoGradConv);
  const auto* copy = dynamic_cast<const HeldConv*>(held.get());
  return copy != nullptr && copy->conv != nullptr;
}

}  // namespace oar::conv_engine
