// Per-device execution context handed to every kernel.
#pragma once

#include "oar/core/place.h"
#include "oar/kernels/kernel_key.h"

namespace oar {

class DeviceContext {
 public:
  explicit DeviceContext(Place place) : place_(place) {}
  virtual ~DeviceContext() = default;
  const Place& GetPlace() const { return place_; }

 private:
  Place place_;
};

class CPUContext final : public DeviceContext {
 public:
  CPUContext() : DeviceContext(CPUPlace()) {}
};

// Immutable per-backend contexts; a backend without one is a clear error.
const DeviceContext& GetDeviceContextByBackend(Backend backend);

}  // namespace oar
