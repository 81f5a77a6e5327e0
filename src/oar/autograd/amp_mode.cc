#include "oar/autograd/amp_mode.h"

#include "oar/core/macros.h"

namespace oar::amp {

namespace detail {
constinit OAR_HOT_TLS thread_local Level tls_level = Level::kO0;
}  // namespace detail

namespace {
thread_local State tls_state;
}  // namespace

const State& CurrentState() { return tls_state; }

void SetState(State state) {
  detail::tls_level = state.level;
  tls_state = std::move(state);
}

}  // namespace oar::amp
