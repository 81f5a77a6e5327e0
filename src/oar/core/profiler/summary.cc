// The summary table: per category, per op (with its kernels), per layer, per
// grad node and per user span, each row's calls, total, average, max, min and
// share of the recorded time (docs/profiler.md shows one).
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "oar/core/profiler/profiler.h"

namespace oar::profiler {

namespace {

struct Stat {
  int64_t calls = 0;
  int64_t total = 0;
  int64_t max = 0;
  int64_t min = 0;
  int64_t flops = 0;
  bool has_flops = false;

  void Add(int64_t d, int64_t f) {
    min = calls == 0 ? d : std::min(min, d);
    max = calls == 0 ? d : std::max(max, d);
    ++calls;
    total += d;
    if (f >= 0) {
      flops += f;
      has_flops = true;
    }
  }
  double avg() const { return calls ? static_cast<double>(total) / calls : 0.0; }
};

double UnitDivisor(TimeUnit u) {
  switch (u) {
    case TimeUnit::kS:
      return 1e9;
    case TimeUnit::kMs:
      return 1e6;
    case TimeUnit::kUs:
      return 1e3;
    case TimeUnit::kNs:
      return 1.0;
  }
  return 1e6;
}

const char* UnitName(TimeUnit u) {
  switch (u) {
    case TimeUnit::kS:
      return "s";
    case TimeUnit::kMs:
      return "ms";
    case TimeUnit::kUs:
      return "us";
    case TimeUnit::kNs:
      return "ns";
  }
  return "ms";
}

const char* SortName(SortKey k) {
  switch (k) {
    case SortKey::kTotal:
      return "CPUTotal";
    case SortKey::kAverage:
      return "CPUAvg";
    case SortKey::kMax:
      return "CPUMax";
    case SortKey::kMin:
      return "CPUMin";
  }
  return "CPUTotal";
}

double SortValue(const Stat& s, SortKey k) {
  switch (k) {
    case SortKey::kTotal:
      return static_cast<double>(s.total);
    case SortKey::kAverage:
      return s.avg();
    case SortKey::kMax:
      return static_cast<double>(s.max);
    case SortKey::kMin:
      return static_cast<double>(s.min);
  }
  return 0;
}

class Table {
 public:
  Table(const SummaryOptions& o, int64_t recorded_ns, bool flops_column)
      : o_(o), div_(UnitDivisor(o.time_unit)), recorded_(recorded_ns), flops_(flops_column) {}

  void Header(std::string& out, const std::string& title, const char* first_col) const {
    std::string line(kWidth, '-');
    out += line + "\n" + title + " (sorted by " + SortName(o_.sorted_by) + ", time in " +
           UnitName(o_.time_unit) + ")\n" + line + "\n";
    char buf[256];
    std::snprintf(buf, sizeof buf, "%-44s %8s %14s %14s %14s %14s %9s", first_col, "Calls", "Total",
                  "Avg", "Max", "Min", "Ratio(%)");
    out += buf;
    if (flops_) out += "     GFLOPs";
    out += "\n" + line + "\n";
  }

  void Row(std::string& out, const std::string& name, const Stat& s) const {
    char buf[512];
    std::string n = name.size() > 44 ? name.substr(0, 41) + "..." : name;
    const double ratio = recorded_ > 0 ? 100.0 * static_cast<double>(s.total) / recorded_ : 0.0;
    std::snprintf(buf, sizeof buf, "%-44s %8lld %14.3f %14.3f %14.3f %14.3f %9.2f", n.c_str(),
                  static_cast<long long>(s.calls), s.total / div_, s.avg() / div_, s.max / div_,
                  s.min / div_, ratio);
    out += buf;
    if (flops_) {
      if (s.has_flops) {
        std::snprintf(buf, sizeof buf, " %10.6f", static_cast<double>(s.flops) / 1e9);
        out += buf;
      } else {
        out += "          -";
      }
    }
    out += "\n";
  }

  std::vector<std::pair<std::string, Stat>> Sorted(const std::map<std::string, Stat>& m) const {
    std::vector<std::pair<std::string, Stat>> rows(m.begin(), m.end());
    std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
      return SortValue(a.second, o_.sorted_by) > SortValue(b.second, o_.sorted_by);
    });
    return rows;
  }

  static constexpr size_t kWidth = 140;

 private:
  const SummaryOptions& o_;
  double div_;
  int64_t recorded_;
  bool flops_;
};

// The kernel events nested in an op event on the same thread, by op event index.
std::map<size_t, std::vector<size_t>> KernelsOfOps(const std::vector<const Event*>& ev) {
  std::map<size_t, std::vector<size_t>> out;
  std::vector<size_t> open;  // op events enclosing the current position
  for (size_t i = 0; i < ev.size(); ++i) {
    const Event& e = *ev[i];
    while (!open.empty() && ev[open.back()]->end_ns < e.start_ns) open.pop_back();
    if (e.kind == EventKind::kOperator) open.push_back(i);
    if (e.kind == EventKind::kKernel && !open.empty()) out[open.back()].push_back(i);
  }
  return out;
}

void Tables(std::string& out, const std::vector<const Event*>& ev, int64_t recorded_ns,
            const SummaryOptions& o) {
  bool any_flops = false;
  for (const Event* e : ev) any_flops |= e->flops >= 0;
  Table plain(o, recorded_ns, false);
  Table with_flops(o, recorded_ns, any_flops);

  // Overview: one row per category.
  std::map<std::string, Stat> kinds;
  for (const Event* e : ev) {
    if (e->kind != EventKind::kMemory) kinds[EventKindName(e->kind)].Add(e->duration_ns(), -1);
  }
  plain.Header(out, "Overview Summary", "Category");
  for (const auto& [name, s] : plain.Sorted(kinds)) plain.Row(out, name, s);

  // Operators, with their kernels below them.
  std::map<std::string, Stat> ops;
  std::map<std::string, std::map<std::string, Stat>> kernels_of;
  const auto kernels = KernelsOfOps(ev);
  for (size_t i = 0; i < ev.size(); ++i) {
    const Event& e = *ev[i];
    if (e.kind != EventKind::kOperator) continue;
    const std::string name(e.Name());
    ops[name].Add(e.duration_ns(), e.flops);
    if (auto it = kernels.find(i); it != kernels.end()) {
      for (size_t k : it->second)
        kernels_of[name][std::string(ev[k]->Name())].Add(ev[k]->duration_ns(), -1);
    }
  }
  if (!ops.empty()) {
    out += "\n";
    with_flops.Header(out, "Operator Summary", "Operator");
    for (const auto& [name, s] : with_flops.Sorted(ops)) {
      with_flops.Row(out, name, s);
      if (!o.op_detail) continue;
      for (const auto& [k, ks] : with_flops.Sorted(kernels_of[name]))
        with_flops.Row(out, "  " + k, ks);
    }
  }

  // Layers: forward ops by the layer running them, grad nodes by the layer
  // their forward op ran in; a layer's row includes its sublayers.
  std::map<std::string, Stat> layers;
  for (const Event* e : ev) {
    if (!e->layer_path || (e->kind != EventKind::kOperator && e->kind != EventKind::kBackward))
      continue;
    const std::string& path = *e->layer_path;
    const std::string suffix = e->kind == EventKind::kOperator ? " (forward)" : " (backward)";
    for (size_t dot = 0;; ++dot) {
      dot = path.find('.', dot);
      layers[path.substr(0, dot) + suffix].Add(e->duration_ns(), e->flops);
      if (dot == std::string::npos) break;
    }
  }
  if (!layers.empty()) {
    out += "\n";
    with_flops.Header(out, "Layer Summary", "Layer");
    for (const auto& [name, s] : with_flops.Sorted(layers)) with_flops.Row(out, name, s);
  }

  auto by_name = [&](EventKind kind, const char* title, const char* col) {
    std::map<std::string, Stat> m;
    for (const Event* e : ev) {
      if (e->kind == kind) m[std::string(e->Name())].Add(e->duration_ns(), -1);
    }
    if (m.empty()) return;
    out += "\n";
    plain.Header(out, title, col);
    for (const auto& [name, s] : plain.Sorted(m)) plain.Row(out, name, s);
  };
  by_name(EventKind::kBackward, "Backward Summary", "Grad node");
  by_name(EventKind::kOptimizer, "Optimizer Summary", "Optimizer");
  by_name(EventKind::kDataLoader, "Dataloader Summary", "Dataloader");
  by_name(EventKind::kUserDefined, "UserDefined Summary", "Name");
}

}  // namespace

std::string SummaryTable(const std::vector<Event>& events, int64_t recorded_ns,
                         const SummaryOptions& o) {
  std::string out;
  char buf[160];
  int64_t steps = 0;
  for (const Event& e : events) steps += e.kind == EventKind::kProfileStep;
  std::snprintf(
      buf, sizeof buf,
      "Recorded time: %.3f %s in %lld profiled step(s); Ratio(%%) is of the recorded time\n",
      recorded_ns / UnitDivisor(o.time_unit), UnitName(o.time_unit), static_cast<long long>(steps));
  out += buf;
  if (!o.thread_sep) {
    std::vector<const Event*> all;
    for (const Event& e : events) all.push_back(&e);
    Tables(out, all, recorded_ns, o);
    return out;
  }
  std::map<uint32_t, std::vector<const Event*>> by_thread;
  for (const Event& e : events) by_thread[e.tid].push_back(&e);
  for (const auto& [tid, evs] : by_thread) {
    out += "\n==================== Thread " + std::to_string(tid) + " ====================\n";
    Tables(out, evs, recorded_ns, o);
  }
  return out;
}

}  // namespace oar::profiler
