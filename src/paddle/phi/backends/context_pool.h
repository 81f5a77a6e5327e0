// Paddle's device-context pool for custom operators:
// paddle::experimental::DeviceContextPool::Instance().Get<phi::AllocationType::CPU>(place)
// gives the CPU context, whose GetPlace() is the CPU place.
//
// oar's kernels are its own loops, not Eigen expressions, so a context has no
// Eigen device: eigen_device() is an Unimplemented error rather than a pointer
// a kernel could not use. oar has no GPU backend, so asking the pool for a GPU
// context is an Unimplemented error too.
#pragma once

#include "oar/core/errors.h"
#include "oar/extension/place.h"

namespace Eigen {
struct DefaultDevice;
}  // namespace Eigen

namespace phi {

class DeviceContext {
 public:
  explicit DeviceContext(const Place& place) : place_(place) {}
  virtual ~DeviceContext() = default;
  const Place& GetPlace() const { return place_; }

 private:
  Place place_;
};

class CPUContext : public DeviceContext {
 public:
  CPUContext() : DeviceContext(CPUPlace()) {}
  [[noreturn]] Eigen::DefaultDevice* eigen_device() const {
    throw oar::errors::Unimplemented(
        "phi::CPUContext::eigen_device(): oar's CPU kernels do not run on Eigen, so there is ",
        "no Eigen device; write the kernel as a loop over data<T>()");
  }
};

// Declared so that code naming it compiles; the pool never hands one out.
class GPUContext : public DeviceContext {
 public:
  explicit GPUContext(const Place& place) : DeviceContext(place) {}
};

template <AllocationType T>
struct DefaultDeviceContextType;
template <>
struct DefaultDeviceContextType<AllocationType::CPU> {
  using TYPE = CPUContext;
};
template <>
struct DefaultDeviceContextType<AllocationType::GPU> {
  using TYPE = GPUContext;
};

}  // namespace phi

namespace paddle::experimental {

class DeviceContextPool {
 public:
  static DeviceContextPool& Instance() {
    static DeviceContextPool pool;
    return pool;
  }

  // The context of `place`: the CPU's; any other place is Unimplemented.
  const phi::DeviceContext* Get(const Place& place) const {
    if (!place.is_cpu()) {
      throw oar::errors::Unimplemented(
          "paddle::experimental::DeviceContextPool::Get: oar has no GPU backend, so there is ",
          "no context for ", place.DebugString(), "; only the CPU's");
    }
    return &cpu_;
  }
  template <phi::AllocationType T>
  const typename phi::DefaultDeviceContextType<T>::TYPE* Get(const Place& place) const {
    if (T != phi::AllocationType::CPU || place.GetType() != T) {
      throw oar::errors::Unimplemented("paddle::experimental::DeviceContextPool::Get<",
                                       static_cast<int>(T), ">(", place.DebugString(),
                                       "): oar has no GPU backend, so only the CPU context exists");
    }
    if constexpr (T == phi::AllocationType::CPU) {
      return &cpu_;
    } else {
      return nullptr;  // not reached: the check above threw
    }
  }

 private:
  DeviceContextPool() = default;
  phi::CPUContext cpu_;
};

}  // namespace paddle::experimental
