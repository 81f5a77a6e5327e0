// The intra-op thread pool behind ParallelFor (Note [A late worker never delays
// an op] in parallel.h): IntraOpThreads() - 1 workers that stay awake briefly after
// a job (back-to-back ops find them awake) and then sleep on a futex.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "oar/core/parallel.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define OAR_CPU_RELAX() _mm_pause()
#else
#define OAR_CPU_RELAX() std::this_thread::yield()
#endif

namespace oar::detail {
namespace {

thread_local bool tl_in_parallel = false;

// The next chunk of one range, alone on its cache line.
struct alignas(64) Cursor {
  std::atomic<int64_t> next{0};
};

// Note [Each thread walks its own range of chunks]
// The chunks are cut into one contiguous range per thread. A thread draws the
// chunks of its own range in order and, once that is empty, the remaining chunks
// of the others' ranges, so a late or absent worker's share is still done by
// whoever is free (Note [A late worker never delays an op]). With one shared
// counter the two threads of a 2-core machine took alternate chunks, and every
// chunk started a new memory stream that the hardware prefetchers had to pick up
// again: exact gelu over 10^6 floats took 0.147-0.150 ms with alternate chunks and
// 0.125-0.128 ms with contiguous ranges (the same chunks and kernel).
struct Job {
  void (*body)(void*, int64_t) = nullptr;
  void* ctx = nullptr;
  int64_t chunks = 0;
  int64_t ranges = 1;                 // range r is [r * chunks / ranges, (r + 1) * chunks / ranges)
  std::unique_ptr<Cursor[]> cursors;  // one per range, counting from the range's start
  std::atomic<int64_t> arrivals{0};   // the order in which threads join: their first range
  std::atomic<int64_t> done{0};       // chunks finished
  std::mutex error_mu;
  std::exception_ptr error;

  int64_t RangeBegin(int64_t r) const { return r * chunks / ranges; }
};

// Note [Libraries inside a chunk run on one thread]
// A chunk that calls BLAS or LAPACK (a convolution's per-sample GEMM, the halves of a
// split eigensolver) must not fan out again: the pool's workers are not an OpenMP
// team, so OpenBLAS's OpenMP build would open a team of OMP_NUM_THREADS inside each of
// them (4 threads on 2 cores: a 1x1 convolution's forward took 3.6 ms on two threads
// against 2.0 on one, docs/benchmarks.md). OpenBLAS reads the calling thread's
// omp_get_max_threads() at each call, so every worker sets its own to 1 once, and the
// calling thread sets its own to 1 while it draws chunks (OneOpenMPThread, parallel.h).
void RunOne(Job& job, int64_t c) {
  tl_in_parallel = true;
  try {
    job.body(job.ctx, c);
  } catch (...) {
    std::lock_guard<std::mutex> lock(job.error_mu);
    if (!job.error) job.error = std::current_exception();
  }
  tl_in_parallel = false;
  job.done.fetch_add(1, std::memory_order_release);
}

// Draws chunks until none are left. `body` and `ctx` live on the caller's stack;
// they are only touched after a successful draw, and the caller cannot return
// before every drawn chunk is done.
void Work(Job& job) {
  const int64_t first = job.arrivals.fetch_add(1) % job.ranges;
  for (int64_t k = 0; k < job.ranges; ++k) {
    const int64_t r = (first + k) % job.ranges;
    const int64_t begin = job.RangeBegin(r), size = job.RangeBegin(r + 1) - begin;
    std::atomic<int64_t>& next = job.cursors[static_cast<size_t>(r)].next;
    for (int64_t c = next.fetch_add(1); c < size; c = next.fetch_add(1)) RunOne(job, begin + c);
  }
}

class Pool {
 public:
  explicit Pool(int64_t workers) {
    for (int64_t i = 0; i < workers; ++i) threads_.emplace_back([this] { Loop(0); });
  }
  ~Pool() {
    stop_.store(true);
    generation_.fetch_add(1);
    generation_.notify_all();
    for (auto& t : threads_) t.join();
  }

  void Run(int64_t chunks, void (*body)(void*, int64_t), void* ctx) {
    auto job = std::make_shared<Job>();
    job->body = body;
    job->ctx = ctx;
    job->chunks = chunks;
    job->ranges = std::clamp<int64_t>(static_cast<int64_t>(threads_.size()) + 1, 1, chunks);
    job->cursors = std::make_unique<Cursor[]>(static_cast<size_t>(job->ranges));
    // One op at a time uses the workers; an op that starts while another thread's op
    // holds them runs on its own thread (there are no idle cores to give it).
    std::unique_lock<std::mutex> owner(run_mu_, std::try_to_lock);
    if (owner.owns_lock() && !threads_.empty()) {
      {
        std::lock_guard<std::mutex> lock(job_mu_);
        current_ = job;
      }
      generation_.fetch_add(1, std::memory_order_release);
      generation_.notify_all();
    }
    {
      const OneOpenMPThread one;  // Note [Libraries inside a chunk run on one thread]
      Work(*job);
    }
    for (int spins = 0; job->done.load(std::memory_order_acquire) < chunks; ++spins) {
      if (spins < 4096) {
        OAR_CPU_RELAX();
      } else {
        std::this_thread::yield();
      }
    }
    if (owner.owns_lock()) {
      std::lock_guard<std::mutex> lock(job_mu_);
      current_.reset();
    }
    if (job->error) std::rethrow_exception(job->error);
  }

 private:
  // `seen` is the generation the pool had when it started the thread, not the one
  // the thread first reads: a thread the scheduler starts late (after the
  // destructor's bump, in a short C++ program: 11 of 30 runs of one hung at exit)
  // would otherwise take that bump for the past and sleep through it.
  void Loop(uint64_t seen) {
    omp_set_num_threads(1);  // Note [Libraries inside a chunk run on one thread]
    while (true) {
      const uint64_t g = AwaitJob(seen);
      if (g == seen) {
        generation_.wait(seen);
        continue;
      }
      seen = g;
      if (stop_.load()) return;
      std::shared_ptr<Job> job;
      {
        std::lock_guard<std::mutex> lock(job_mu_);
        job = current_;
      }
      if (job) Work(*job);
    }
  }

  // Note [Idle workers spin, then yield, then sleep]
  // A worker that finds no job keeps looking for kAwakeFor before it sleeps on the
  // futex, since waking it costs the next op tens of microseconds on a VM, while the
  // calling thread does the op alone. It looks with pause instructions for kPauseFor,
  // then yields the core between looks: the core is often wanted meanwhile by an
  // OpenMP thread of oneDNN or OpenBLAS (a convolution between two of oar's ops),
  // which a spinning worker would hold off. The limits are times, not counts of pause
  // instructions: 2,000 pauses took about 40 us on a Zen 3 and 20 us on a Xeon.
  // With 2,000 pauses and no yield the worker slept about 30 times in each batch-1
  // step of the GPT decoder; a 200 us pause-only spin made it 15% faster but
  // ResNet-18's batch-1 step (oneDNN's convolutions) 10% slower, and spinning, then
  // yielding made both faster (GPT 6.7-7.0 ms against 7.5-7.9, ResNet-18 20.6-23.1
  // against 22.7-24.0; Xeon with AVX-512, two threads, benchmarks/models.py's worker
  // in alternating processes). A yielding worker gives the core to any other
  // runnable thread, so a loaded machine loses no more than with the short spin.
  static constexpr auto kPauseFor = std::chrono::microseconds(10);
  static constexpr auto kAwakeFor = std::chrono::microseconds(200);

  // The generation once it differs from `seen`, or `seen` after kAwakeFor.
  uint64_t AwaitJob(uint64_t seen) const {
    using Clock = std::chrono::steady_clock;
    const Clock::time_point start = Clock::now();
    while (true) {
      for (int look = 0; look < 64; ++look) {  // about a microsecond between clock reads
        const uint64_t g = generation_.load(std::memory_order_acquire);
        if (g != seen) return g;
        OAR_CPU_RELAX();
      }
      const Clock::duration awake = Clock::now() - start;
      if (awake >= kAwakeFor) return seen;
      if (awake >= kPauseFor) std::this_thread::yield();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex run_mu_;
  std::mutex job_mu_;
  std::shared_ptr<Job> current_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stop_{false};
};

}  // namespace

int64_t IntraOpThreads() {
  static const int64_t n = std::max(1, omp_get_max_threads());
  return n;
}

bool InParallelRegion() { return tl_in_parallel; }

}  // namespace oar::detail

namespace oar {

OneOpenMPThread::OneOpenMPThread() : saved_(omp_get_max_threads()) {
  if (saved_ > 1) omp_set_num_threads(1);
}

OneOpenMPThread::~OneOpenMPThread() {
  if (saved_ > 1) omp_set_num_threads(saved_);
}

}  // namespace oar

namespace oar::detail {

void RunChunks(int64_t chunks, void (*body)(void*, int64_t), void* ctx) {
  // Created on first use; workers are joined at exit.
  static Pool pool(IntraOpThreads() - 1);
  pool.Run(chunks, body, ctx);
}

}  // namespace oar::detail
