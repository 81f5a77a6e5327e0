// Saved-tensor hooks: while a scope is active, a TensorWrapper calls `pack`
// on every tensor saved for backward and stores what it returns instead of
// the tensor; `unpack` turns that back into a tensor when backward needs it
// (to offload to disk, compress, or trace what is saved). Scopes are
// thread-local and nest.
#pragma once

#include <functional>
#include <memory>

#include "oar/core/tensor.h"

namespace oar {

struct SavedTensorsHooks {
  using PackHook = std::function<std::shared_ptr<void>(const Tensor&)>;
  using UnpackHook = std::function<Tensor(const std::shared_ptr<void>&)>;
  PackHook pack;
  UnpackHook unpack;
};

// Whether a hooks scope is active on this thread (cheap; checked per save).
bool HasSavedTensorsHooks();
// The innermost active hooks on this thread, or null.
std::shared_ptr<const SavedTensorsHooks> CurrentSavedTensorsHooks();

class SavedTensorsHooksGuard {
 public:
  SavedTensorsHooksGuard(SavedTensorsHooks::PackHook pack, SavedTensorsHooks::UnpackHook unpack);
  ~SavedTensorsHooksGuard();
  SavedTensorsHooksGuard(const SavedTensorsHooksGuard&) = delete;
  SavedTensorsHooksGuard& operator=(const SavedTensorsHooksGuard&) = delete;
};

// For bindings that cannot hold a C++ scope object: push/pop explicitly.
void PushSavedTensorsHooks(SavedTensorsHooks::PackHook pack, SavedTensorsHooks::UnpackHook unpack);
void PopSavedTensorsHooks();

}  // namespace oar
