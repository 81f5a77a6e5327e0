// The C++ profiler (src/oar/core/profiler/): spans of ops, kernels, grad
// nodes and user code; nesting; the Chrome trace; nothing recorded when off.
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "oar/core/layer_scope.h"
#include "test_util.h"

namespace oar {
namespace {

using profiler::Event;
using profiler::EventKind;
using profiler::Profiler;
using profiler::RecordEvent;
using testing::Make;

std::vector<const Event*> OfKind(const Profiler& p, EventKind kind, std::string_view name = {}) {
  std::vector<const Event*> out;
  for (const Event& e : p.events()) {
    if (e.kind == kind && (name.empty() || e.Name() == name)) out.push_back(&e);
  }
  return out;
}

bool Contains(const Event& outer, const Event& inner) {
  return outer.tid == inner.tid && outer.start_ns <= inner.start_ns && inner.end_ns <= outer.end_ns;
}

TEST(Profiler, RecordsOpsKernelsAndUserSpans) {
  Profiler prof;
  prof.Start();
  {
    RecordEvent span("my block");
    Tensor y = add(Make({1, 2}, {2}), Make({3, 4}, {2}));
  }
  prof.Stop();
  auto user = OfKind(prof, EventKind::kUserDefined, "my block");
  auto ops = OfKind(prof, EventKind::kOperator, "add");
  auto kernels = OfKind(prof, EventKind::kKernel, "add kernel");
  ASSERT_EQ(user.size(), 1u);
  ASSERT_EQ(ops.size(), 1u);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_TRUE(Contains(*user[0], *ops[0]));
  EXPECT_TRUE(Contains(*ops[0], *kernels[0]));
  EXPECT_EQ(ops[0]->tid, profiler::ThisThreadId());
  EXPECT_EQ(ops[0]->sequence_nr, -1);  // no grad node: nothing requires grad
}

TEST(Profiler, NothingRecordedWhenOff) {
  EXPECT_FALSE(profiler::IsRecording());
  Tensor x = Make({1, 2}, {2});
  {
    RecordEvent span("before");
    Tensor y = add(x, x);
  }
  Profiler prof;
  prof.Start();
  prof.Stop();
  {
    RecordEvent span("after");
    Tensor y = add(x, x);
  }
  EXPECT_TRUE(prof.events().empty());
  EXPECT_FALSE(profiler::IsRecording());
  // A span open across Stop is dropped: it ends outside the window.
  Profiler p2;
  p2.Start();
  auto open = std::make_unique<RecordEvent>("straddles");
  p2.Stop();
  open.reset();
  EXPECT_TRUE(p2.events().empty());
}

TEST(Profiler, BackwardNodesShareSequenceNumbersWithTheirOps) {
  Tensor x = Make({1, 2, 3, 4}, {2, 2}, DType::kFloat32, false);
  Tensor w = Make({1, 0, 0, 1}, {2, 2}, DType::kFloat32, false);
  Profiler prof({.record_shapes = true, .with_flops = true});
  prof.Start();
  Tensor loss;
  {
    LayerScopeGuard layer("Net.fc");
    loss = sum(tanh(matmul(x, w, false, false)));
  }
  loss.backward();
  prof.Stop();
  auto backward = OfKind(prof, EventKind::kBackward);
  ASSERT_FALSE(backward.empty());
  std::map<int64_t, const Event*> forward;
  for (const Event* e : OfKind(prof, EventKind::kOperator)) {
    if (e->sequence_nr >= 0) forward[e->sequence_nr] = e;
  }
  int paired = 0;
  for (const Event* b : backward) {
    if (b->Name() == "GradNodeAccumulation") continue;
    ASSERT_TRUE(forward.count(b->sequence_nr)) << b->Name();
    ++paired;
    EXPECT_NE(forward[b->sequence_nr]->layer_path, nullptr);
    EXPECT_EQ(*b->layer_path, "Net.fc");
  }
  EXPECT_EQ(paired, 3);  // matmul, tanh, sum
  // The forward matmul (the backward's formulas call matmul too, outside the layer).
  auto mm = OfKind(prof, EventKind::kOperator, "matmul");
  std::erase_if(mm, [](const Event* e) { return e->layer_path == nullptr; });
  ASSERT_EQ(mm.size(), 1u);
  EXPECT_GE(mm[0]->sequence_nr, 0);
  EXPECT_EQ(mm[0]->flops, 2 * 2 * 2 * 2);
  EXPECT_EQ(mm[0]->input_shapes, "[[2, 2], [2, 2]]");
  EXPECT_EQ(mm[0]->input_dtypes, "[\"float32\", \"float32\"]");
  EXPECT_EQ(*mm[0]->layer_path, "Net.fc");
}

TEST(Profiler, ExportWritesAChromeTraceThatParses) {
  Tensor x = Make({1, 2}, {2}, DType::kFloat32, false);
  Profiler prof({.profile_memory = true});
  prof.Start();
  Tensor y = sum(multiply(x, x));
  y.backward();
  prof.Stop();
  const std::string path = testing::TempPath("profiler_trace.json");
  prof.Export(path);
  std::ifstream in(path);
  nlohmann::json trace = nlohmann::json::parse(in);
  std::filesystem::remove(path);
  ASSERT_TRUE(trace.contains("traceEvents"));
  std::map<std::string, int> phases;
  std::map<int64_t, int> flow_ends;
  for (const auto& e : trace["traceEvents"]) {
    const std::string ph = e["ph"];
    ++phases[ph];
    if (ph == "X") {
      EXPECT_TRUE(e["ts"].is_number());
      EXPECT_TRUE(e["dur"].is_number());
      EXPECT_TRUE(e.contains("pid") && e.contains("tid") && e.contains("cat") &&
                  e.contains("args"));
    }
    if (ph == "s" || ph == "f") {
      EXPECT_EQ(e["bp"], "e");
      flow_ends[e["id"].get<int64_t>()] += ph == "s" ? 1 : 10;
    }
    if (ph == "C") {
      EXPECT_TRUE(e["args"]["bytes_in_use"].is_number());
    }
  }
  EXPECT_GE(phases["X"], 4);
  EXPECT_GE(phases["C"], 2);        // one sample per op
  EXPECT_EQ(flow_ends.size(), 2u);  // multiply and sum
  for (const auto& [id, n] : flow_ends) EXPECT_EQ(n, 11) << id;
}

TEST(Profiler, OtherThreadsOnlyWhenAsked) {
  Tensor x = Make({1}, {1});
  auto run_in_thread = [&](const profiler::ProfilerOptions& o) {
    Profiler prof(o);
    prof.Start();
    std::thread t([&] { Tensor y = exp(x); });
    t.join();
    prof.Stop();
    return OfKind(prof, EventKind::kOperator, "exp").size();
  };
  EXPECT_EQ(run_in_thread({}), 0u);
  EXPECT_EQ(run_in_thread({.all_threads = true}), 1u);
}

// Threads record while profilers start and stop around them: the collector
// drains buffers that are being appended to (Note [Profiler recording]).
TEST(Profiler, ThreadsRecordWhileProfilersStartAndStop) {
  std::atomic<bool> stop{false};
  std::vector<std::thread> workers;
  for (int t = 0; t < 3; ++t) {
    workers.emplace_back([&] {
      Tensor x = Make({1, 2}, {2});
      while (!stop.load()) {
        RecordEvent span("work");
        Tensor y = add(x, x);
      }
    });
  }
  // 50 windows at least; more while none has caught an op, since on a loaded
  // machine the workers may not run during the first windows of 200 us.
  size_t seen = 0;
  for (int i = 0; i < 50 || (seen == 0 && i < 5000); ++i) {
    Profiler prof({.all_threads = true});
    prof.Start();
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    prof.Stop();
    for (const Event& e : prof.events()) {
      EXPECT_GE(e.start_ns, 0);
      EXPECT_LE(e.start_ns, e.end_ns);
    }
    seen += OfKind(prof, EventKind::kOperator, "add").size();
  }
  stop.store(true);
  for (auto& w : workers) w.join();
  EXPECT_GT(seen, 0u);
  EXPECT_FALSE(profiler::IsRecording());
}

TEST(Profiler, SummaryListsOpsAndErrors) {
  Profiler prof;
  prof.Start();
  Tensor y = add(Make({1}, {1}), Make({2}, {1}));
  prof.Stop();
  const std::string s = prof.Summary({.time_unit = profiler::TimeUnit::kUs});
  EXPECT_NE(s.find("Operator Summary"), std::string::npos) << s;
  EXPECT_NE(s.find("add kernel"), std::string::npos) << s;
  testing::Catch([&] { prof.Stop(); }, ErrorCode::kPreconditionNotMet, {"Stop()", "not running"});
  prof.Start();
  testing::Catch([&] { prof.Start(); }, ErrorCode::kPreconditionNotMet, {"already running"});
  prof.Stop();
  testing::Catch([&] { prof.Export("/nonexistent-dir/x.json"); }, ErrorCode::kInvalidArgument,
                 {"Export()", "/nonexistent-dir/x.json"});
}

}  // namespace
}  // namespace oar
