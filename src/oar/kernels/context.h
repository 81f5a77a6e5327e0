// Per-device execution context handed to every kernel.
#pragma once

#include "oar/core/place.h"
#include "oar/kernels/kernel_key.h"

namespace oar {

class DeviceContext {
 public:
  constexpr explicit DeviceContext(Place place) : place_(place) {}
  virtual ~DeviceContext() = default;
  const Place& GetPlace() const { return place_; }

 private:
  Place place_;
};

class CPUContext final : public DeviceContext {
 public:
  constexpr CPUContext() : DeviceContext(CPUPlace()) {}
};

namespace detail {
// Constant-initialised: reading it needs no guard (every op asks for it).
extern const CPUContext cpu_context;
// The context of a backend other than the CPU: the error for a backend without one,
// which in this CPU-only build is every other backend.
const DeviceContext& OtherDeviceContext(Backend backend);
}  // namespace detail

// Immutable per-backend contexts; a backend without one is a clear error.
inline const DeviceContext& GetDeviceContextByBackend(Backend backend) {
  if (backend == Backend::kCPU) [[likely]]
    return detail::cpu_context;
  return detail::OtherDeviceContext(backend);
}

}  // namespace oar
