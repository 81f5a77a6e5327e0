// Which oar.nn.Layer is running on this thread, as a dotted path from the
// outermost layer ("Net.block1.conv"). Grad nodes record it when they are
// created, so graph pictures can cluster nodes by layer and error messages and
// traces can name the layer an op belongs to.
//
// Note [Interned layer paths]
// A path is interned once into a process-wide set that is never shrunk, and
// the current path is a thread-local pointer into it: a grad node copies one
// pointer (no allocation, no reference count) and can keep it for as long as
// it lives. The set is bounded by the number of distinct layer paths a
// program's models have, the same strings every step.
#pragma once

#include <string>
#include <string_view>

namespace oar {

// The interned copy of path (valid until exit).
const std::string* InternLayerPath(std::string_view path);

// The path of the innermost layer running on this thread, or null.
const std::string* CurrentLayerPath();

// Enters a layer: returns the path that was current, to hand back to
// ExitLayerScope when the layer's forward returns (or throws). ExitLayerScope
// makes any interned path (or null) current.
const std::string* EnterLayerScope(std::string_view path);
void ExitLayerScope(const std::string* previous);

// RAII form for C++ layers.
class LayerScopeGuard {
 public:
  explicit LayerScopeGuard(std::string_view path) : previous_(EnterLayerScope(path)) {}
  ~LayerScopeGuard() { ExitLayerScope(previous_); }
  LayerScopeGuard(const LayerScopeGuard&) = delete;
  LayerScopeGuard& operator=(const LayerScopeGuard&) = delete;

 private:
  const std::string* previous_;
};

}  // namespace oar
