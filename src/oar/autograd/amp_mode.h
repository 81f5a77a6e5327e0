// Auto-cast (mixed precision) mode: which level and low dtype ops on this
// thread run under. Thread-local, like grad mode, so an auto_cast block in
// one thread never affects another. The state lives here, beside grad mode,
// because the engine switches it off while it runs grad nodes
// (Note [Auto-cast happens in the forward pass]); the casting itself is at
// the top of each eager function (src/oar/eager/amp.h).
#pragma once

#include <memory>
#include <string>
#include <unordered_set>

#include "oar/core/dtype.h"
#include "oar/core/macros.h"

namespace oar::amp {

// O0: off. O1: white-list ops in the low dtype, black-list ops in float32,
// the rest follow their inputs. O2: everything in the low dtype except the
// black list (Paddle's levels; O3 is not offered).
enum class Level : unsigned char { kO0 = 0, kO1 = 1, kO2 = 2 };

// Op names added to or moved between the default lists for one auto_cast
// block; shared, immutable once set.
struct CustomLists {
  std::unordered_set<std::string> white, black;
};

struct State {
  Level level = Level::kO0;
  DType dtype = DType::kBFloat16;
  bool use_promote = true;
  std::shared_ptr<const CustomLists> lists;  // null: the defaults only
};

namespace detail {
// The level on this thread, read inline by every op (CurrentLevel).
extern constinit OAR_HOT_TLS thread_local Level tls_level;
}  // namespace detail

// The level on this thread: the one read every op, so it is kept apart from
// the rest of the state, and read inline.
inline Level CurrentLevel() { return detail::tls_level; }
const State& CurrentState();
void SetState(State state);

// Sets the state for a scope and restores the previous one on exit: the
// auto_cast block, and the re-entrant call of an eager function (level O0).
class AutoCastGuard {
 public:
  explicit AutoCastGuard(State state) : prev_(CurrentState()) { SetState(std::move(state)); }
  explicit AutoCastGuard(Level level) : prev_(CurrentState()) {
    State s = prev_;
    s.level = level;
    SetState(std::move(s));
  }
  ~AutoCastGuard() { SetState(std::move(prev_)); }
  AutoCastGuard(const AutoCastGuard&) = delete;
  AutoCastGuard& operator=(const AutoCastGuard&) = delete;

 private:
  State prev_;
};

}  // namespace oar::amp
