// How many times a buffer was written in place. A TensorWrapper snapshots it
// when it saves a tensor and compares on recovery
// (Note [TensorWrapper lifetimes] in autograd/tensor_wrapper.h). The counter
// lives with the memory, so all views of a buffer share it. Paddle's API can
// reset the version to zero; the count of writes beside it never goes back,
// so a copy derived from the memory can tell whether it is still current
// (Note [A convolution's weight packed across calls] in
// kernels/cpu/conv_weight_cache.h).
#pragma once

#include <atomic>
#include <cstdint>

namespace oar {

class InplaceVersion {
 public:
  void Bump() {
    version_.fetch_add(1, std::memory_order_relaxed);
    writes_.fetch_add(1, std::memory_order_relaxed);
  }
  uint32_t CurrentVersion() const { return version_.load(std::memory_order_relaxed); }
  void SetInplaceVersionToZero() { version_.store(0, std::memory_order_relaxed); }
  // Every Bump so far; SetInplaceVersionToZero leaves it.
  uint64_t Writes() const { return writes_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint32_t> version_{0};
  std::atomic<uint64_t> writes_{0};
};

}  // namespace oar
