#include "oar/autograd/forward_stack.h"

#include <atomic>

#include "oar/autograd/grad_node.h"
#include "oar/core/errors.h"
#include "oar/core/flags.h"

namespace oar {

namespace {
std::atomic<ForwardStackRecorder> g_recorder{nullptr};
}  // namespace

std::string ForwardStack::CallSite() const {
  if (frames.empty()) return "";
  const ForwardFrame& f = frames.front();
  return StrCat(f.file, ":", f.line, " in ", f.function);
}

void SetForwardStackRecorder(ForwardStackRecorder recorder) { g_recorder.store(recorder); }

std::shared_ptr<const ForwardStack> RecordForwardStack() {
  if (!FLAGS_record_forward_stack()) return nullptr;
  const ForwardStackRecorder recorder = g_recorder.load(std::memory_order_acquire);
  return recorder ? recorder() : nullptr;
}

std::string DescribeForwardSite(const GradNodeBase& node) {
  const ForwardStack* stack = node.forward_stack();
  const std::string site = stack ? stack->CallSite() : "";
  const std::string* layer = node.layer_path();
  if (site.empty() && !layer) return "";
  std::string s = " (forward op";
  if (!site.empty()) s += " at " + site;
  if (layer) s += (site.empty() ? " in layer " : ", layer ") + *layer;
  return s + ")";
}

}  // namespace oar
