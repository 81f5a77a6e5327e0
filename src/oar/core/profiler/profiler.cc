#include "oar/core/profiler/profiler.h"

#include <fstream>

#include "oar/core/errors.h"

namespace oar::profiler {

Profiler::Profiler(ProfilerOptions options) : options_(options) {}

Profiler::~Profiler() = default;  // an open session ends with its events discarded

void Profiler::Start() {
  if (session_) {
    throw errors::PreconditionNotMet("Profiler.Start(): the profiler is already running");
  }
  session_ = std::make_unique<Session>(options_);
  if (base_ns_ < 0) base_ns_ = session_->start_ns();
}

void Profiler::Stop() {
  if (!session_) {
    throw errors::PreconditionNotMet(
        "Profiler.Stop(): the profiler is not running; call Start() first");
  }
  std::vector<Event> events = session_->Finish();
  recorded_ns_ += session_->end_ns() - session_->start_ns();
  session_.reset();
  if (events_.empty()) {
    events_ = std::move(events);
  } else {
    std::move(events.begin(), events.end(), std::back_inserter(events_));
  }
}

void Profiler::Clear() {
  events_.clear();
  recorded_ns_ = 0;
  base_ns_ = session_ ? session_->start_ns() : -1;
}

std::string Profiler::ChromeTrace() const {
  return ChromeTraceJson(events_, base_ns_ < 0 ? 0 : base_ns_);
}

void Profiler::Export(const std::string& path) const {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    throw errors::InvalidArgument("Profiler.Export(): cannot open '", path, "' for writing");
  out << ChromeTrace();
  out.close();
  if (!out) throw errors::InvalidArgument("Profiler.Export(): writing '", path, "' failed");
}

std::string Profiler::Summary(const SummaryOptions& options) const {
  return SummaryTable(events_, recorded_ns_, options);
}

}  // namespace oar::profiler
