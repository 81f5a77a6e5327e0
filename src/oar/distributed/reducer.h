// The gradient reducer of data-parallel training (Paddle's imperative
// Reducer): parameters are packed in reverse registration order into buckets
// of one dtype (the first, whose gradients arrive first, capped by
// first_bucket_bytes, the rest by bucket_bytes). A reduce hook on each
// parameter's GradNodeAccumulation copies the fresh .grad into its bucket;
// when a bucket is complete its all-reduce is issued on the group's worker
// while backward goes on (Note [Bucket launch order]); a final-backward
// callback waits for every bucket and writes the averages back into .grad.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "oar/core/tensor.h"
#include "oar/distributed/process_group.h"

namespace oar::distributed {

struct ReducerOptions {
  size_t bucket_bytes = size_t{25} << 20;       // Paddle's comm_buffer_size=25 (MB)
  size_t first_bucket_bytes = size_t{1} << 20;  // Paddle's last_comm_buffer_size=1 (MB)
  bool find_unused_parameters = false;
};

// Timestamps (profiler::NowNs) of the last synced backward, for tests and
// the overlap check in benchmarks/distributed.py.
struct ReducerTimes {
  std::vector<int64_t> bucket_launch_ns;  // when each bucket's all-reduce was issued
  std::vector<int64_t> bucket_start_ns;   // when the worker started it
  int64_t last_hook_ns = 0;               // the last gradient hook of the pass
  int64_t final_ns = 0;                   // the final-backward callback
};

struct ReducerState;

class Reducer {
 public:
  // Parameters must be leaves that need a gradient, on the CPU.
  Reducer(std::vector<Tensor> params, std::shared_ptr<ProcessGroup> group,
          ReducerOptions options = {});
  ~Reducer();  // removes its hooks
  Reducer(const Reducer&) = delete;
  Reducer& operator=(const Reducer&) = delete;

  // false: backward passes accumulate .grad locally without communicating
  // (no_sync); the next synced pass reduces the accumulated gradients.
  void set_require_sync(bool on);
  bool require_sync() const;
  // Parameter indices per bucket, in launch order.
  std::vector<std::vector<size_t>> buckets() const;
  ReducerTimes times() const;

 private:
  std::shared_ptr<ReducerState> state_;
  std::vector<int64_t> hook_ids_;
};

// Copies rank src's values into every rank's tensors (in place).
void BroadcastTensors(const std::vector<Tensor>& tensors, ProcessGroup& group, int src = 0);

}  // namespace oar::distributed
