// Note [A convolution's weight packed across calls] (conv_weight_cache.h).
#include "oar/kernels/cpu/conv_weight_cache.h"

#include <memory>
#include <utility>

#include "oar/kernels/cpu/conv_onednn.h"

namespace oar::conv_engine {
namespace {

// What a weight's Allocation keeps: the layouts and the count of writes of
// the last forward call that read it, and from its second such call on the
// packed copy.
struct PackedCopy final : DerivedCopy {
  uint64_t writes = 0;
  int64_t offset = 0;
  dnnl::memory::desc plain, want;
  dnnl::memory packed;  // empty after the first call
};

}  // namespace

dnnl::memory PackedWeight(const DenseTensor& w, const dnnl::memory& user,
                          const dnnl::memory::desc& want, dnnl::stream& s) {
  if (want == user.get_desc()) return user;
  const std::shared_ptr<Allocation>& block = w.Holder();
  if (!block || block->shared_outside()) return Input(want, user, s);
  const uint64_t writes = block->inplace_version().Writes();
  const std::shared_ptr<const DerivedCopy> held = block->derived();
  const auto* last = dynamic_cast<const PackedCopy*>(held.get());
  const bool unchanged = last != nullptr && last->writes == writes && last->offset == w.offset() &&
                         last->plain == user.get_desc() && last->want == want;
  if (unchanged && last->packed) return last->packed;
  dnnl::memory packed = Input(want, user, s);
  auto copy = std::make_shared<PackedCopy>();
  copy->writes = writes;
  copy->offset = w.offset();
  copy->plain = user.get_desc();
  copy->want = want;
  if (unchanged) copy->packed = packed;
  block->set_derived(std::move(copy));
  return packed;
}

bool HoldsPackedWeight(const DenseTensor& w) {
  if (!w.Holder()) return false;
  const std::shared_ptr<const DerivedCopy> held = w.Holder()->derived();
  const auto* copy = dynamic_cast<const PackedCopy*>(held.get());
  return copy != nullptr && static_cast<bool>(copy->packed);
}

}  // namespace oar::conv_engine
