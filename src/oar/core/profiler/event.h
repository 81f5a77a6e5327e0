// What the profiler records: one Event per finished span (a forward op, the
// kernel it called, a grad node the engine ran, an optimizer step, a wait for
// the next batch, a user span, a profiler step) or per counter sample.
#pragma once

#include <cstdint>
#include <string>

namespace oar::profiler {

// The kind of an event; its category ("cat") in the trace and the table it is
// summed in by the summary.
enum class EventKind : uint8_t {
  kOperator,     // a forward op at the eager layer (oar::<op>)
  kKernel,       // the kernel call inside the C++ API (oar::api::<op>)
  kBackward,     // a grad node run by the engine
  kOptimizer,    // Optimizer.step()
  kDataLoader,   // time spent getting the next batch
  kUserDefined,  // RecordEvent
  kProfileStep,  // one Profiler.step() interval
  kMemory,       // a counter sample of allocator bytes in use
};

const char* EventKindName(EventKind kind);

struct Event {
  // A string literal (op and kernel names), or null when `dynamic_name` holds
  // the name (grad nodes, user spans): literals keep the op path free of
  // allocation, and an empty std::string allocates nothing.
  const char* name = nullptr;
  std::string dynamic_name;
  EventKind kind = EventKind::kUserDefined;
  uint32_t tid = 0;                         // the profiler's id of the recording thread
  int64_t start_ns = 0;                     // steady clock, Note [Profiler clock] in recorder.h
  int64_t end_ns = 0;                       // == start_ns for counters
  int64_t sequence_nr = -1;                 // forward op and its grad node share it; -1: none
  const std::string* layer_path = nullptr;  // Note [Interned layer paths]
  int64_t flops = -1;                       // -1: not computed
  int64_t value = 0;                        // counters: bytes in use
  std::string input_shapes;                 // with record_shapes: "[[2, 3], [3, 4]]"
  std::string input_dtypes;                 // with record_shapes: "[float32, float32]"

  std::string_view Name() const { return name ? std::string_view(name) : dynamic_name; }
  int64_t duration_ns() const { return end_ns - start_ns; }
};

}  // namespace oar::profiler
