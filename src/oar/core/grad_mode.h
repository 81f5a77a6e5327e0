// Grad mode: whether ops record the backward graph. Thread-local, so a
// no_grad block in one thread never affects another. It lives in the core, below
// the kernels, because a kernel may run a faster inference algorithm where no
// graph is recorded (Note [A convolution without a graph runs folded] in
// kernels/cpu/conv_no_grad.h).
#pragma once

#include "oar/core/macros.h"

namespace oar {

namespace detail {
// This thread's grad mode, read inline by every op (HasGrad).
extern constinit OAR_HOT_TLS thread_local bool tls_has_grad;
}  // namespace detail

inline bool HasGrad() { return detail::tls_has_grad; }
inline void SetHasGrad(bool enabled) { detail::tls_has_grad = enabled; }
inline bool is_grad_enabled() { return HasGrad(); }

// Sets grad mode for a scope and restores the previous mode on exit.
class SetGradModeGuard {
 public:
  explicit SetGradModeGuard(bool enabled) : prev_(HasGrad()) { SetHasGrad(enabled); }
  ~SetGradModeGuard() { SetHasGrad(prev_); }
  SetGradModeGuard(const SetGradModeGuard&) = delete;
  SetGradModeGuard& operator=(const SetGradModeGuard&) = delete;

 private:
  bool prev_;
};

class NoGradGuard : public SetGradModeGuard {
 public:
  NoGradGuard() : SetGradModeGuard(false) {}
};

class EnableGradGuard : public SetGradModeGuard {
 public:
  EnableGradGuard() : SetGradModeGuard(true) {}
};

}  // namespace oar
