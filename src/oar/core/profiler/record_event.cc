#include "oar/core/profiler/record_event.h"

#include "oar/core/allocator.h"
#include "oar/core/layer_scope.h"

namespace oar::profiler {

void RecordEvent::Begin(const char* static_name, std::string_view name, EventKind kind) {
  Event& e = event_.emplace();
  e.name = static_name;
  if (!static_name) e.dynamic_name.assign(name);
  e.kind = kind;
  e.layer_path = CurrentLayerPath();
  e.start_ns = NowNs();
}

void RecordEvent::End() {
  if (!event_) return;
  event_->end_ns = NowNs();
  const bool sample_memory = event_->kind == EventKind::kOperator && ProfileMemory();
  const int64_t end = event_->end_ns;
  Append(std::move(*event_));
  event_.reset();
  if (sample_memory) {
    // One sample after each op: the counter track moves where ops allocate and free.
    Event m;
    m.name = "bytes_in_use";
    m.kind = EventKind::kMemory;
    m.start_ns = m.end_ns = end;
    m.value = GetAllocatorStats(CPUPlace()).bytes_in_use;
    Append(std::move(m));
  }
}

void RecordEvent::InputsWriter::Add(const Tensor& t) {
  if (shapes.size() > 1) {
    shapes += ", ";
    dtypes += ", ";
  }
  if (!t.defined()) {
    shapes += "[]";
    dtypes += "\"undefined\"";
    return;
  }
  shapes += "[";
  const DDim& d = t.dims();
  for (size_t i = 0; i < d.size(); ++i) {
    if (i) shapes += ", ";
    shapes += std::to_string(d[i]);
  }
  shapes += "]";
  dtypes += "\"";
  dtypes += DTypeName(t.dtype());
  dtypes += "\"";
}

void RecordEvent::InputsWriter::Add(const std::vector<Tensor>& ts) {
  // A Tensor[] argument: one nested list of shapes and of dtypes.
  InputsWriter inner;
  for (const Tensor& t : ts) inner.Add(t);
  if (shapes.size() > 1) {
    shapes += ", ";
    dtypes += ", ";
  }
  shapes += inner.shapes + "]";
  dtypes += inner.dtypes + "]";
}

void RecordEvent::InputsWriter::Finish(Event& e) {
  e.input_shapes = std::move(shapes) + "]";
  e.input_dtypes = std::move(dtypes) + "]";
}

}  // namespace oar::profiler

namespace oar::profiler {

void RecordSpan(std::string_view name, EventKind kind, int64_t start_ns, int64_t end_ns) {
  if (!IsRecording()) return;
  Event e;
  e.dynamic_name.assign(name);
  e.kind = kind;
  e.start_ns = start_ns;
  e.end_ns = end_ns;
  e.layer_path = CurrentLayerPath();
  Append(std::move(e));
}

}  // namespace oar::profiler
