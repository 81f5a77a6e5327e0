#include "oar/autograd/saved_tensors_hooks.h"

#include <vector>

#include "oar/core/errors.h"
#include "oar/core/macros.h"

namespace oar {
namespace {
thread_local std::vector<std::shared_ptr<const SavedTensorsHooks>> tls_hooks_stack;
// Mirrors !tls_hooks_stack.empty() for the check made on every saved tensor.
OAR_HOT_TLS thread_local bool tls_has_hooks = false;
}  // namespace

bool HasSavedTensorsHooks() { return tls_has_hooks; }

std::shared_ptr<const SavedTensorsHooks> CurrentSavedTensorsHooks() {
  return tls_hooks_stack.empty() ? nullptr : tls_hooks_stack.back();
}

void PushSavedTensorsHooks(SavedTensorsHooks::PackHook pack, SavedTensorsHooks::UnpackHook unpack) {
  OAR_ENFORCE(pack && unpack,
              errors::InvalidArgument("saved_tensors_hooks(): both pack_hook and unpack_hook are "
                                      "required"));
  auto hooks = std::make_shared<SavedTensorsHooks>();
  hooks->pack = std::move(pack);
  hooks->unpack = std::move(unpack);
  tls_hooks_stack.push_back(std::move(hooks));
  tls_has_hooks = true;
}

void PopSavedTensorsHooks() {
  OAR_ENFORCE(!tls_hooks_stack.empty(),
              errors::PreconditionNotMet("saved_tensors_hooks(): no hooks scope is active"));
  tls_hooks_stack.pop_back();
  tls_has_hooks = !tls_hooks_stack.empty();
}

SavedTensorsHooksGuard::SavedTensorsHooksGuard(SavedTensorsHooks::PackHook pack,
                                               SavedTensorsHooks::UnpackHook unpack) {
  PushSavedTensorsHooks(std::move(pack), std::move(unpack));
}

SavedTensorsHooksGuard::~SavedTensorsHooksGuard() { PopSavedTensorsHooks(); }

}  // namespace oar
