#include "oar/autograd/saved_tensors_hooks.h"

#include <vector>

#include "oar/core/errors.h"

namespace oar {
namespace {
thread_local std::vector<std::shared_ptr<const SavedTensorsHooks>> tls_hooks_stack;
}  // namespace

bool HasSavedTensorsHooks() { return !tls_hooks_stack.empty(); }

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
}

void PopSavedTensorsHooks() {
  OAR_ENFORCE(!tls_hooks_stack.empty(),
              errors::PreconditionNotMet("saved_tensors_hooks(): no hooks scope is active"));
  tls_hooks_stack.pop_back();
}

SavedTensorsHooksGuard::SavedTensorsHooksGuard(SavedTensorsHooks::PackHook pack,
                                               SavedTensorsHooks::UnpackHook unpack) {
  PushSavedTensorsHooks(std::move(pack), std::move(unpack));
}

SavedTensorsHooksGuard::~SavedTensorsHooksGuard() { tls_hooks_stack.pop_back(); }

}  // namespace oar
