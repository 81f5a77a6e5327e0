#include "oar/autograd/amp_mode.h"

#include "oar/core/macros.h"

namespace oar::amp {

namespace {
OAR_HOT_TLS thread_local Level tls_level = Level::kO0;
thread_local State tls_state;
}  // namespace

Level CurrentLevel() { return tls_level; }
const State& CurrentState() { return tls_state; }

void SetState(State state) {
  tls_level = state.level;
  tls_state = std::move(state);
}

}  // namespace oar::amp
