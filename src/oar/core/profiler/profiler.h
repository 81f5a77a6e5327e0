// oar::profiler::Profiler: records what this thread (or every thread) does
// between Start() and Stop(), and writes it as a Chrome trace or a summary
// table. docs/profiler.md describes the events and the trace format.
//
//   oar::profiler::Profiler prof({.record_shapes = true});
//   prof.Start();
//   ... forward, backward, optimizer step ...
//   prof.Stop();
//   prof.Export("trace.json");
//   std::cout << prof.Summary();
//
// Start/Stop may alternate: the events of every window accumulate until
// Clear(). Not thread-safe itself: one thread drives a Profiler (the threads
// it records need no coordination).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "oar/core/profiler/event.h"
#include "oar/core/profiler/recorder.h"

namespace oar::profiler {

using ProfilerOptions = SessionOptions;

enum class SortKey { kTotal, kAverage, kMax, kMin };
enum class TimeUnit { kS, kMs, kUs, kNs };

struct SummaryOptions {
  SortKey sorted_by = SortKey::kTotal;
  bool op_detail = true;    // kernel rows under each op
  bool thread_sep = false;  // one set of tables per thread
  TimeUnit time_unit = TimeUnit::kMs;
};

class Profiler {
 public:
  explicit Profiler(ProfilerOptions options = {});
  ~Profiler();
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;

  // Errors: Start while running, Stop while stopped (kPreconditionNotMet).
  void Start();
  void Stop();
  bool running() const { return session_ != nullptr; }
  // Forgets the events recorded so far.
  void Clear();

  const std::vector<Event>& events() const { return events_; }
  const ProfilerOptions& options() const { return options_; }
  // The time spent recording (the sum of the Start..Stop windows).
  int64_t recorded_ns() const { return recorded_ns_; }

  // The Chrome trace (JSON), and writing it to a file (kInvalidArgument if
  // the file cannot be written).
  std::string ChromeTrace() const;
  void Export(const std::string& path) const;
  std::string Summary(const SummaryOptions& options = {}) const;

 private:
  ProfilerOptions options_;
  std::unique_ptr<Session> session_;
  std::vector<Event> events_;
  int64_t base_ns_ = -1;  // the first Start: the trace's time zero
  int64_t recorded_ns_ = 0;
};

// The Chrome trace of `events`, timestamps relative to base_ns.
std::string ChromeTraceJson(const std::vector<Event>& events, int64_t base_ns);
std::string SummaryTable(const std::vector<Event>& events, int64_t recorded_ns,
                         const SummaryOptions& options);

}  // namespace oar::profiler
