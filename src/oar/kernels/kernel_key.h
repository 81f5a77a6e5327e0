// Which kernel runs: (backend, layout, dtype), as phi's KernelKey.
#pragma once

#include <cstdint>
#include <ostream>

#include "oar/core/dense_tensor.h"
#include "oar/core/dtype.h"
#include "oar/core/place.h"

namespace oar {

enum class Backend : uint8_t { kUndefined = 0, kCPU, kGPU, kNumBackends };
inline constexpr int kNumBackends = static_cast<int>(Backend::kNumBackends);
inline constexpr int kNumLayouts = 5;  // DataLayout's enumerators

inline Backend BackendOf(const Place& p) {
  switch (p.type) {
    case AllocationType::kCPU:
      return Backend::kCPU;
    case AllocationType::kGPU:
      return Backend::kGPU;
    default:
      return Backend::kUndefined;
  }
}
inline Place PlaceOf(Backend b) { return b == Backend::kGPU ? GPUPlace() : CPUPlace(); }

struct KernelKey {
  Backend backend = Backend::kUndefined;
  DataLayout layout = DataLayout::kAny;
  DType dtype = DType::kUndefined;
};

std::ostream& operator<<(std::ostream& os, Backend b);
std::ostream& operator<<(std::ostream& os, DataLayout l);
std::ostream& operator<<(std::ostream& os, const KernelKey& k);

}  // namespace oar
