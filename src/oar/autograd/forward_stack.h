// Where a forward op was called, kept on its grad node for debugging.
//
// Note [Forward stacks]
// With FLAGS_record_forward_stack on, every grad node asks the installed
// recorder for the call site of the op that creates it. The Python bindings
// install one that walks the interpreter's frames and keeps those outside the
// oar package (the user's code), innermost first; a C++ program may install
// its own. Backward errors (the in-place version error, NaN/Inf detection, a
// hook's wrong result) then name that call site, and graph tools show it.
// Off, the cost is one relaxed load and a predicted branch per node; the
// layer path (core/layer_scope.h) is recorded either way, since it is one
// thread-local pointer copy.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace oar {

class GradNodeBase;

struct ForwardFrame {
  std::string file;
  int64_t line = 0;
  std::string function;
};

struct ForwardStack {
  std::vector<ForwardFrame> frames;  // innermost (the op's call site) first
  // "x.py:12 in step" for the innermost frame, "" without frames.
  std::string CallSite() const;
};

// Returns the current call site, or null when there is nothing to record.
using ForwardStackRecorder = std::shared_ptr<const ForwardStack> (*)();

// Installs the recorder (null: none). Not thread-safe against nodes being
// created at the same moment: install it once at start-up.
void SetForwardStackRecorder(ForwardStackRecorder recorder);
// What the recorder returns now, or null when the flag is off or none is set.
std::shared_ptr<const ForwardStack> RecordForwardStack();

// " (forward op at x.py:12 in step, layer Net.fc)" for error messages: whatever
// the node knows of where its forward op ran; "" when it knows nothing.
std::string DescribeForwardSite(const GradNodeBase& node);

}  // namespace oar
