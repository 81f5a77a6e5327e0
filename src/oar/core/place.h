// Where a tensor's memory lives. Only the CPU exists today; every dispatch
// point switches on AllocationType so a GPU slots in without new plumbing.
#pragma once

#include <cstdint>
#include <ostream>

namespace oar {

enum class AllocationType : uint8_t { kUndefined = 0, kCPU = 1, kGPU = 2 };

struct Place {
  AllocationType type = AllocationType::kUndefined;
  int8_t device = 0;

  constexpr Place() = default;
  constexpr Place(AllocationType t, int dev = 0) : type(t), device(static_cast<int8_t>(dev)) {}
  constexpr bool is_cpu() const { return type == AllocationType::kCPU; }
  constexpr bool is_gpu() const { return type == AllocationType::kGPU; }
  friend constexpr bool operator==(const Place& a, const Place& b) {
    return a.type == b.type && a.device == b.device;
  }
};

constexpr Place CPUPlace() { return Place(AllocationType::kCPU); }
constexpr Place GPUPlace(int device = 0) { return Place(AllocationType::kGPU, device); }

inline std::ostream& operator<<(std::ostream& os, const Place& p) {
  switch (p.type) {
    case AllocationType::kCPU:
      return os << "Place(cpu)";
    case AllocationType::kGPU:
      return os << "Place(gpu:" << int(p.device) << ")";
    default:
      return os << "Place(undefined)";
  }
}

}  // namespace oar
