// RecordEvent: a span recorded from construction to destruction (or End())
// on the constructing thread, when a profiler records that thread (Paddle's
// platform::RecordEvent). Ops, kernels and grad nodes use it with a literal
// name; users with any name:
//
//   { oar::profiler::RecordEvent span("load batch"); ... }
//
// Off, construction is IsRecording() (Note [Profiler cost when off]) and
// destruction one branch on the same state.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "oar/core/profiler/event.h"
#include "oar/core/profiler/recorder.h"
#include "oar/core/tensor.h"

namespace oar::profiler {

// A name that outlives the profiler (a string literal): recorded without copying.
struct StaticName {
  const char* value;
  explicit constexpr StaticName(const char* v) : value(v) {}
};

class RecordEvent {
 public:
  // always_inline: off, the span is a load and a branch, and GCC had kept a clone
  // of this constructor as a call in the generated API functions.
  [[gnu::always_inline]] explicit RecordEvent(StaticName name,
                                              EventKind kind = EventKind::kUserDefined) {
    if (IsRecording()) [[unlikely]]
      Begin(name.value, {}, kind);
  }
  explicit RecordEvent(std::string_view name, EventKind kind = EventKind::kUserDefined) {
    if (IsRecording()) [[unlikely]]
      Begin(nullptr, name, kind);
  }
  ~RecordEvent() {
    if (event_) [[unlikely]]
      End();
  }
  RecordEvent(const RecordEvent&) = delete;
  RecordEvent& operator=(const RecordEvent&) = delete;

  // Ends the span now (the destructor then does nothing).
  void End();

  // The event being recorded, or null when this span is not recorded.
  Event* event() { return event_ ? &*event_ : nullptr; }

  // Details a running profiler asked for; false when not recorded.
  bool wants_shapes() const { return event_ && RecordShapes(); }
  bool wants_flops() const { return event_ && WithFlops(); }
  void set_sequence_nr(uint64_t n) {
    if (event_) event_->sequence_nr = static_cast<int64_t>(n);
  }
  void set_flops(int64_t flops) {
    if (event_) event_->flops = flops;
  }
  // Records the shapes and dtypes of an op's tensor inputs (Tensor or
  // std::vector<Tensor>), as JSON arrays.
  template <typename... Ts>
  void SetInputs(const Ts&... inputs) {
    if (!event_) return;
    InputsWriter w;
    (w.Add(inputs), ...);
    w.Finish(*event_);
  }

 private:
  struct InputsWriter {
    std::string shapes = "[";
    std::string dtypes = "[";
    void Add(const Tensor& t);
    void Add(const std::vector<Tensor>& ts);
    void Finish(Event& e);
  };

  void Begin(const char* static_name, std::string_view name, EventKind kind);

  std::optional<Event> event_;
};

}  // namespace oar::profiler

namespace oar::profiler {

// Records an already measured span [start_ns, end_ns) on this thread if a
// profiler records it (front ends that time spans themselves: Python's
// RecordEvent, Profiler.step).
void RecordSpan(std::string_view name, EventKind kind, int64_t start_ns, int64_t end_ns);

}  // namespace oar::profiler
