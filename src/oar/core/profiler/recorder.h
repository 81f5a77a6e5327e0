// The recording side of the profiler: whether this thread records now, its
// event buffer, and the sessions (one per running Profiler) that collect what
// the threads recorded.
//
// Note [Profiler cost when off]
// Every forward op, kernel call and grad node asks IsRecording(). With no
// profiler running that is one relaxed load of a process-wide atomic and one
// predictable branch: no clock read, no allocation, no thread-local access.
// The span object on the stack adds a flag cleared at its start and tested
// where it ends (and where a dygraph function asks for shapes or FLOPs), all
// predictable. Only when some profiler records does the thread look at its
// own state (is a profiler recording this thread, or one recording every
// thread?).
//
// Note [Profiler recording]
// Each thread appends finished events to its own buffer, registered once
// under a mutex when the thread first records. The append takes no lock: the
// owner raises the buffer's `writing` flag, loads the current vector and
// pushes into it. A collector (always under the registry mutex) swaps in an
// empty vector and waits for `writing` to drop before reading the old one;
// both sides use sequentially consistent operations, so either the writer
// sees the new vector or the collector sees the flag (Dekker's pairing). The
// writer never waits.
// Collected events go to one process-wide store. A session (a Profiler
// between Start and Stop) remembers where the store ended when it started and
// takes, when it stops, the events after that point that lie in its time
// window and come from the threads it records: the thread that started it,
// or every thread for an all-threads session. So two profilers in two
// threads do not see each other's events, and events recorded just before a
// Start or just after a Stop (a thread that read the flag a moment earlier)
// are dropped by the time window. The store is emptied when the last session
// stops.
//
// Note [Profiler clock]
// Timestamps are std::chrono::steady_clock nanoseconds; the trace writes them
// in microseconds relative to the profiler's first Start.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "oar/core/profiler/event.h"

namespace oar::profiler {

namespace detail {
// The number of sessions recording (any thread). Read on every op.
extern std::atomic<int> g_sessions_on;
bool ThisThreadIsRecorded();
struct ThreadBuffer;
}  // namespace detail

inline int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Whether events on this thread are recorded now (Note [Profiler cost when off]).
inline bool IsRecording() {
  if (detail::g_sessions_on.load(std::memory_order_relaxed) == 0) [[likely]]
    return false;
  return detail::ThisThreadIsRecorded();
}

// What a recording session asked for; an event records a detail when any
// running session asked for it.
bool RecordShapes();
bool ProfileMemory();
bool WithFlops();

// Appends a finished event to this thread's buffer (sets its tid).
void Append(Event&& event);
// The id events of this thread carry (the OS thread id).
uint32_t ThisThreadId();

struct SessionOptions {
  bool record_shapes = false;
  bool profile_memory = false;
  bool with_flops = false;
  bool all_threads = false;  // record every thread, not only the starting one
};

// One recording window (Note [Profiler recording]).
class Session {
 public:
  explicit Session(const SessionOptions& options);
  ~Session();  // ends the window if still open, discarding its events
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Closes the window and returns its events, sorted by start time.
  std::vector<Event> Finish();
  int64_t start_ns() const { return start_ns_; }
  int64_t end_ns() const { return end_ns_; }

 private:
  SessionOptions options_;
  std::shared_ptr<detail::ThreadBuffer> owner_;  // the starting thread's state
  size_t store_begin_ = 0;
  int64_t start_ns_ = 0;
  int64_t end_ns_ = 0;
  bool open_ = false;
};

}  // namespace oar::profiler
