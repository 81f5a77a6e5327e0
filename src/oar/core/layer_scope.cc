#include "oar/core/layer_scope.h"

#include <mutex>
#include <unordered_set>

#include "oar/core/macros.h"

namespace oar {

namespace {
OAR_HOT_TLS thread_local const std::string* tls_layer_path = nullptr;
}  // namespace

// Note [Interned layer paths] in layer_scope.h.
const std::string* InternLayerPath(std::string_view path) {
  static std::mutex mu;
  static std::unordered_set<std::string> paths;
  std::lock_guard<std::mutex> lock(mu);
  return &*paths.emplace(path).first;  // node-based: the address is stable
}

const std::string* CurrentLayerPath() { return tls_layer_path; }

const std::string* EnterLayerScope(std::string_view path) {
  const std::string* previous = tls_layer_path;
  tls_layer_path = InternLayerPath(path);
  return previous;
}

void ExitLayerScope(const std::string* previous) { tls_layer_path = previous; }

}  // namespace oar
