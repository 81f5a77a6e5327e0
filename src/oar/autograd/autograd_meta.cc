#include "oar/autograd/autograd_meta.h"

#include "oar/api/api.h"
#include "oar/core/grad_mode.h"

namespace oar {

// Note [A cleared gradient is zeroed when read]
void AutogradMeta::SetPendingZeros(const Place& place) {
  std::lock_guard<std::mutex> lock(mutex_);
  grad_->dense().ResetHolder(nullptr);
  zeros_place_ = place;
  zeros_pending_.store(true, std::memory_order_release);
}

void AutogradMeta::FillPendingZeros() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!zeros_pending_.load(std::memory_order_acquire)) return;  // another reader filled them
  NoGradGuard no_grad;
  grad_->dense().AllocateFrom(zeros_place_);
  api::fill_(*grad_, 0.0);
  zeros_pending_.store(false, std::memory_order_release);
}

}  // namespace oar
