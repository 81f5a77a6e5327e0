// The Chrome trace format (the "JSON Object Format" of the Trace Event
// Format), which chrome://tracing and ui.perfetto.dev open:
//   spans       ph "X" with ts and dur in microseconds (floats, ns precision)
//   counters    ph "C" (allocator bytes in use)
//   flows       ph "s" on the forward op, ph "f" on its grad node, same id,
//               bp "e" (bound to the enclosing slice): Note [Forward-backward flows]
//   metadata    ph "M" process and thread names
//
// Note [Forward-backward flows]
// A forward op's event carries the sequence number of the grad node it
// created (set when the node is created, at the end of the dygraph function,
// because composite ops create inner nodes first), and the engine's event for
// that node carries the node's sequence_nr(). Numbers are unique per
// recording thread, so a grad node pairs with the latest forward op that has
// its number on the thread that recorded the forward (the same thread as the
// backward in the common case; otherwise the latest one on any thread).
#include <unistd.h>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "oar/core/profiler/profiler.h"

namespace oar::profiler {

namespace {

void AppendEscaped(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

void AppendMicros(std::string& out, int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1000.0);
  out += buf;
}

// `"key": ` after a comma when not first.
void Key(std::string& out, bool& first, const char* key) {
  if (!first) out += ", ";
  first = false;
  out += '"';
  out += key;
  out += "\": ";
}

}  // namespace

std::string ChromeTraceJson(const std::vector<Event>& events, int64_t base_ns) {
  const int pid = static_cast<int>(::getpid());
  const std::string pid_s = std::to_string(pid);
  std::string out = "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  out += "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": " + pid_s +
         ", \"tid\": 0, \"args\": {\"name\": \"oar\"}}";

  std::set<uint32_t> tids;
  for (const Event& e : events) tids.insert(e.tid);
  for (uint32_t tid : tids) {
    out += ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " + pid_s +
           ", \"tid\": " + std::to_string(tid) + ", \"args\": {\"name\": \"thread " +
           std::to_string(tid) + (tid == static_cast<uint32_t>(pid) ? " (main)" : "") + "\"}}";
  }

  // Forward ops by (tid, sequence number): Note [Forward-backward flows].
  std::map<std::pair<uint32_t, int64_t>, size_t> forward_on_thread;
  std::map<int64_t, size_t> forward_any;
  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    if (e.kind == EventKind::kOperator && e.sequence_nr >= 0) {
      forward_on_thread[{e.tid, e.sequence_nr}] = i;  // events are in start order: the latest wins
      forward_any[e.sequence_nr] = i;
    }
  }

  int64_t flow_id = 0;
  for (const Event& e : events) {
    out += ",\n{";
    bool first = true;
    if (e.kind == EventKind::kMemory) {
      Key(out, first, "ph");
      out += "\"C\"";
    } else {
      Key(out, first, "ph");
      out += "\"X\"";
    }
    Key(out, first, "name");
    AppendEscaped(out, e.Name());
    Key(out, first, "cat");
    AppendEscaped(out, EventKindName(e.kind));
    Key(out, first, "ts");
    AppendMicros(out, e.start_ns - base_ns);
    if (e.kind != EventKind::kMemory) {
      Key(out, first, "dur");
      AppendMicros(out, e.duration_ns());
    }
    Key(out, first, "pid");
    out += pid_s;
    Key(out, first, "tid");
    out += std::to_string(e.tid);
    Key(out, first, "args");
    out += "{";
    bool afirst = true;
    if (e.kind == EventKind::kMemory) {
      Key(out, afirst, "bytes_in_use");
      out += std::to_string(e.value);
    }
    if (e.sequence_nr >= 0) {
      Key(out, afirst, "sequence_nr");
      out += std::to_string(e.sequence_nr);
    }
    if (e.layer_path) {
      Key(out, afirst, "layer");
      AppendEscaped(out, *e.layer_path);
    }
    if (!e.input_shapes.empty()) {
      Key(out, afirst, "input_shapes");
      out += e.input_shapes;
      Key(out, afirst, "input_dtypes");
      out += e.input_dtypes;
    }
    if (e.flops >= 0) {
      Key(out, afirst, "flops");
      out += std::to_string(e.flops);
    }
    out += "}}";

    if (e.kind == EventKind::kBackward && e.sequence_nr >= 0) {
      auto it = forward_on_thread.find({e.tid, e.sequence_nr});
      const Event* fwd = nullptr;
      if (it != forward_on_thread.end()) {
        fwd = &events[it->second];
      } else if (auto any = forward_any.find(e.sequence_nr); any != forward_any.end()) {
        fwd = &events[any->second];
      }
      if (fwd && fwd->start_ns <= e.start_ns) {
        const std::string id = std::to_string(++flow_id);
        out += ",\n{\"ph\": \"s\", \"id\": " + id +
               ", \"name\": \"forward_backward\", \"cat\": \"Flow\", \"bp\": \"e\", \"ts\": ";
        AppendMicros(out, fwd->start_ns - base_ns);
        out += ", \"pid\": " + pid_s + ", \"tid\": " + std::to_string(fwd->tid) + "}";
        out += ",\n{\"ph\": \"f\", \"id\": " + id +
               ", \"name\": \"forward_backward\", \"cat\": \"Flow\", \"bp\": \"e\", \"ts\": ";
        AppendMicros(out, e.start_ns - base_ns);
        out += ", \"pid\": " + pid_s + ", \"tid\": " + std::to_string(e.tid) + "}";
      }
    }
  }
  out += "\n]}\n";
  return out;
}

}  // namespace oar::profiler
