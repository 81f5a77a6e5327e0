#include "oar/core/profiler/recorder.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <mutex>
#include <thread>

#include "oar/core/macros.h"

namespace oar::profiler {

const char* EventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::kOperator:
      return "Operator";
    case EventKind::kKernel:
      return "Kernel";
    case EventKind::kBackward:
      return "Backward";
    case EventKind::kOptimizer:
      return "Optimizer";
    case EventKind::kDataLoader:
      return "Dataloader";
    case EventKind::kUserDefined:
      return "UserDefined";
    case EventKind::kProfileStep:
      return "ProfileStep";
    case EventKind::kMemory:
      return "Memory";
  }
  return "Unknown";
}

namespace detail {

std::atomic<int> g_sessions_on{0};

namespace {
// Sessions recording every thread, and those asking for each detail.
std::atomic<int> g_all_threads{0};
std::atomic<int> g_record_shapes{0};
std::atomic<int> g_profile_memory{0};
std::atomic<int> g_with_flops{0};
}  // namespace

// A thread's events (Note [Profiler recording]).
struct ThreadBuffer {
  uint32_t tid = 0;
  std::atomic<int> own_sessions{0};  // sessions this thread started
  std::atomic<bool> writing{false};
  // Owned: a raw pointer because the collector swaps it atomically; Drain
  // hands the old one to a unique_ptr, the destructor frees the last one.
  std::atomic<std::deque<Event>*> events{nullptr};
  std::atomic<bool> alive{true};

  ThreadBuffer() : events(std::make_unique<std::deque<Event>>().release()) {}
  ~ThreadBuffer() { std::unique_ptr<std::deque<Event>> last(events.load()); }
  ThreadBuffer(const ThreadBuffer&) = delete;
  ThreadBuffer& operator=(const ThreadBuffer&) = delete;

  void Push(Event&& e) {
    writing.store(true, std::memory_order_seq_cst);
    events.load(std::memory_order_seq_cst)->push_back(std::move(e));
    writing.store(false, std::memory_order_release);
  }

  // Under the registry mutex only.
  std::unique_ptr<std::deque<Event>> Drain() {
    std::unique_ptr<std::deque<Event>> old(events.exchange(
        std::make_unique<std::deque<Event>>().release(), std::memory_order_seq_cst));
    while (writing.load(std::memory_order_seq_cst)) std::this_thread::yield();
    return old;
  }
};

namespace {

struct Registry {
  std::mutex mu;
  std::vector<std::shared_ptr<ThreadBuffer>> buffers;
  std::vector<Event> store;  // collected events (Note [Profiler recording])
  int open_sessions = 0;

  // Moves every buffer's events into the store; forgets finished threads.
  void CollectLocked() {
    for (auto& b : buffers) {
      auto events = b->Drain();
      std::move(events->begin(), events->end(), std::back_inserter(store));
    }
    std::erase_if(buffers, [](const auto& b) { return !b->alive.load(); });
  }
};

Registry& GetRegistry() {
  static Registry registry;
  return registry;
}

OAR_HOT_TLS thread_local ThreadBuffer* tls_buffer = nullptr;
OAR_HOT_TLS thread_local bool tls_exiting = false;  // set by ~ThreadBufferOwner

// Marks the thread's buffer finished when the thread exits, so the registry
// drops it once its events are collected; the thread stops recording (a
// later span in another thread-local's destructor is not recorded).
struct ThreadBufferOwner {
  std::shared_ptr<ThreadBuffer> buffer;
  ~ThreadBufferOwner() {
    if (buffer) buffer->alive.store(false);
    tls_buffer = nullptr;
    tls_exiting = true;
  }
};

thread_local ThreadBufferOwner tls_owner;

}  // namespace

ThreadBuffer& ThisThreadBuffer() {
  if (tls_buffer) [[likely]]
    return *tls_buffer;
  auto b = std::make_shared<ThreadBuffer>();
  b->tid = static_cast<uint32_t>(::syscall(SYS_gettid));
  {
    Registry& r = GetRegistry();
    std::lock_guard<std::mutex> lock(r.mu);
    r.buffers.push_back(b);
  }
  tls_owner.buffer = b;
  tls_buffer = b.get();
  return *b;
}

bool ThisThreadIsRecorded() {
  if (tls_exiting) return false;
  if (g_all_threads.load(std::memory_order_relaxed) > 0) return true;
  const ThreadBuffer* b = tls_buffer;
  return b && b->own_sessions.load(std::memory_order_relaxed) > 0;
}

}  // namespace detail

using detail::GetRegistry;
using detail::ThisThreadBuffer;

bool RecordShapes() { return detail::g_record_shapes.load(std::memory_order_relaxed) > 0; }
bool ProfileMemory() { return detail::g_profile_memory.load(std::memory_order_relaxed) > 0; }
bool WithFlops() { return detail::g_with_flops.load(std::memory_order_relaxed) > 0; }

uint32_t ThisThreadId() { return ThisThreadBuffer().tid; }

void Append(Event&& event) {
  if (detail::tls_exiting) return;  // a span that began before the thread's buffer went away
  detail::ThreadBuffer& b = ThisThreadBuffer();
  event.tid = b.tid;
  b.Push(std::move(event));
}

namespace {
void AddCounts(const SessionOptions& o, int d) {
  using namespace detail;
  if (o.all_threads) g_all_threads.fetch_add(d);
  if (o.record_shapes) g_record_shapes.fetch_add(d);
  if (o.profile_memory) g_profile_memory.fetch_add(d);
  if (o.with_flops) g_with_flops.fetch_add(d);
}
}  // namespace

Session::Session(const SessionOptions& options) : options_(options) {
  ThisThreadBuffer();
  owner_ = detail::tls_owner.buffer;
  detail::Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.CollectLocked();
  store_begin_ = r.store.size();
  ++r.open_sessions;
  open_ = true;
  start_ns_ = NowNs();
  AddCounts(options_, 1);
  owner_->own_sessions.fetch_add(1);
  detail::g_sessions_on.fetch_add(1);
}

Session::~Session() {
  if (open_) Finish();
}

std::vector<Event> Session::Finish() {
  std::vector<Event> mine;
  if (!open_) return mine;
  open_ = false;
  detail::g_sessions_on.fetch_sub(1);
  owner_->own_sessions.fetch_sub(1);
  AddCounts(options_, -1);
  end_ns_ = NowNs();
  detail::Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.CollectLocked();
  for (size_t i = store_begin_; i < r.store.size(); ++i) {
    const Event& e = r.store[i];
    if (!options_.all_threads && e.tid != owner_->tid) continue;
    if (e.start_ns < start_ns_ || e.end_ns > end_ns_) continue;
    mine.push_back(e);
  }
  if (--r.open_sessions == 0) {
    r.store.clear();
    r.store.shrink_to_fit();
  }
  std::stable_sort(mine.begin(), mine.end(),
                   [](const Event& a, const Event& b) { return a.start_ns < b.start_ns; });
  return mine;
}

}  // namespace oar::profiler
