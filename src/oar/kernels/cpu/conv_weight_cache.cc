// Note [A convolution's weight packed across calls] (conv_weight_cache.h).
#include "oar/kernels/cpu/conv_weight_cache.h"

#include <algorithm>
#include <array>
#include <memory>
#include <utility>

#include "oar/kernels/cpu/conv_onednn.h"

namespace oar::conv_engine {
namespace {

// What a weight's Allocation keeps: the parts and the count of writes of the
// last forward call that read it, and from its second such call the packed
// copies.
struct PackedCopy final : DerivedCopy {
  uint64_t writes = 0;
  int64_t offset = 0;
  std::vector<WeightPart> parts;
  std::vector<dnnl::memory> packed;  // empty after the first call
};

dnnl::memory UserPart(const DenseTensor& w, const WeightPart& part) {
  auto* base = static_cast<char*>(const_cast<void*>(w.data()));
  return dnnl::memory(part.view, onednn::Engine(), base + part.offset);
}

std::vector<dnnl::memory> PackAll(const DenseTensor& w, const std::vector<WeightPart>& parts,
                                  dnnl::stream& s) {
  std::vector<dnnl::memory> out;
  out.reserve(parts.size());
  for (const WeightPart& part : parts) out.push_back(Input(part.want, UserPart(w, part), s));
  return out;
}

// The one DerivedCopy an Allocation holds: a copy of each kind.
struct WeightCopies final : DerivedCopy {
  std::array<std::shared_ptr<const DerivedCopy>, kWeightCopyKinds> kinds;
};

}  // namespace

std::shared_ptr<const DerivedCopy> HeldCopy(const Allocation& block, WeightCopyKind kind) {
  const std::shared_ptr<const DerivedCopy> held = block.derived();
  const auto* copies = dynamic_cast<const WeightCopies*>(held.get());
  return copies ? copies->kinds[static_cast<size_t>(kind)] : nullptr;
}

void Hold(Allocation& block, WeightCopyKind kind, std::shared_ptr<const DerivedCopy> copy) {
  const std::shared_ptr<const DerivedCopy> held = block.derived();
  auto next = std::make_shared<WeightCopies>();
  if (const auto* copies = dynamic_cast<const WeightCopies*>(held.get())) *next = *copies;
  next->kinds[static_cast<size_t>(kind)] = std::move(copy);
  block.set_derived(std::move(next));
}

std::vector<dnnl::memory> PackedWeightParts(const DenseTensor& w,
                                            const std::vector<WeightPart>& parts, dnnl::stream& s) {
  const bool plain =
      std::all_of(parts.begin(), parts.end(), [](const WeightPart& p) { return p.view == p.want; });
  const std::shared_ptr<Allocation>& block = w.Holder();
  if (plain || !block || block->shared_outside()) return PackAll(w, parts, s);
  const uint64_t writes = block->inplace_version().Writes();
  const std::shared_ptr<const DerivedCopy> held = HeldCopy(*block, WeightCopyKind::kPacked);
  const auto* last = dynamic_cast<const PackedCopy*>(held.get());
  const bool unchanged = last != nullptr && last->writes == writes && last->offset == w.offset() &&
                         last->parts == parts;
  if (unchanged && !last->packed.empty()) return last->packed;
  std::vector<dnnl::memory> packed = PackAll(w, parts, s);
  auto copy = std::make_shared<PackedCopy>();
  copy->writes = writes;
  copy->offset = w.offset();
  copy->parts = parts;
  if (unchanged) copy->packed = packed;
  Hold(*block, WeightCopyKind::kPacked, std::move(copy));
  return packed;
}

dnnl::memory PackedWeight(const DenseTensor& w, const dnnl::memory& user,
                          const dnnl::memory::desc& want, dnnl::stream& s) {
  if (want == user.get_desc()) return user;
  const auto offset =
      static_cast<const char*>(user.get_data_handle()) - static_cast<const char*>(w.data());
  return PackedWeightParts(w, {{user.get_desc(), want, offset}}, s).front();
}

bool HoldsPackedWeight(const DenseTensor& w) {
  if (!w.Holder()) return false;
  const std::shared_ptr<const DerivedCopy> held = HeldCopy(*w.Holder(), WeightCopyKind::kPacked);
  const auto* copy = dynamic_cast<const PackedCopy*>(held.get());
  return copy != nullptr && !copy->packed.empty();
}

}  // namespace oar::conv_engine
