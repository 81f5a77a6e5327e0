// Collectives between processes on Gloo (docs/distributed.md): a ProcessGroup
// is a set of ranks with one Gloo context (full mesh of TCP pairs) and one
// worker thread that runs its operations in the order they were issued, so
// every rank issues the same sequence and the caller's thread is free while
// they run (Work::Wait joins). Ranks given to and returned from the API are
// global ranks, as in Paddle's collective API.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "oar/core/tensor.h"

namespace oar::distributed {

enum class ReduceOp { kSum = 0, kMax, kMin, kProd, kAvg };
const char* ReduceOpName(ReduceOp op);

// Where this process sits and how to rendezvous. FromEnvironment reads what
// Paddle's launcher sets (PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM, PADDLE_MASTER
// or the first of PADDLE_TRAINER_ENDPOINTS) or the PyTorch-style RANK,
// WORLD_SIZE, MASTER_ADDR, MASTER_PORT; OAR_DIST_TIMEOUT (seconds) sets the
// timeout and GLOO_SOCKET_IFNAME the interface Gloo binds to.
struct Options {
  int rank = 0;
  int world_size = 1;
  std::string master_addr = "127.0.0.1";
  int master_port = 0;
  std::chrono::milliseconds timeout{std::chrono::seconds(1800)};
  std::string iface;  // empty: the address this host uses to reach the master
  static Options FromEnvironment();
};

// The handle of an issued operation (Paddle's task / PyTorch's Work).
class Work {
 public:
  explicit Work(std::string what) : what_(std::move(what)) {}
  bool IsCompleted();
  // Blocks until done; rethrows the operation's error.
  void Wait();
  const std::string& what() const { return what_; }
  // Profiler-clock times (profiler::NowNs) of the operation's start and end on
  // the worker, 0 until then.
  int64_t start_ns() const { return start_ns_; }
  int64_t end_ns() const { return end_ns_; }

 private:
  friend class ProcessGroup;
  friend struct ProcessGroupImpl;
  void Finish(std::exception_ptr error);
  std::string what_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::exception_ptr error_;
  int64_t start_ns_ = 0, end_ns_ = 0;
  std::function<void()> wait_extra_;  // a point-to-point transfer's completion
};
using WorkPtr = std::shared_ptr<Work>;

struct ProcessGroupImpl;
class TcpStore;

class ProcessGroup {
 public:
  // The world group: starts rank 0's store server, connects to it and builds
  // the full mesh. Blocks until every rank joined or the timeout passed.
  static std::shared_ptr<ProcessGroup> Init(const Options& options);
  ~ProcessGroup();

  int rank() const;                       // this process's rank in the group
  int size() const;                       // the group's size
  int global_rank() const;                // this process's rank in the world
  const std::vector<int>& ranks() const;  // the members' global ranks
  int id() const;
  std::chrono::milliseconds timeout() const;
  // The group rank of a global rank; throws naming `what` if it is no member.
  int GroupRank(int global_rank, const char* what) const;

  // In place on contiguous CPU tensors; each returns at once with a handle. Every
  // rank must make the same calls in the same order with tensors of one size and
  // dtype; a collective first checks that they do and raises on every rank when not
  // (Note [Ranks agree before Gloo runs a collective] in process_group.cc), unless a
  // caller that guarantees it passes agree = false (DataParallel's buckets).
  WorkPtr AllReduce(Tensor tensor, ReduceOp op, bool agree = true);
  WorkPtr Broadcast(Tensor tensor, int src);  // src: global rank
  // out: size() tensors shaped like `in`, filled in group-rank order.
  WorkPtr AllGather(std::vector<Tensor> out, Tensor in);
  // in: size() tensors shaped like `out`; out gets the reduction of the
  // in[rank()] of every rank.
  WorkPtr ReduceScatter(Tensor out, std::vector<Tensor> in, ReduceOp op);
  // dst (a global rank) gets the reduction of every rank's tensor in place;
  // the other ranks' tensors are left as they were.
  WorkPtr Reduce(Tensor tensor, int dst, ReduceOp op);
  // On dst, out (size() tensors shaped like `in`) gets every rank's `in` in
  // group-rank order; other ranks pass an empty `out`.
  WorkPtr Gather(std::vector<Tensor> out, Tensor in, int dst);
  // out gets src's in[rank()]; only src passes `in` (size() tensors shaped
  // like `out`), the others an empty one.
  WorkPtr Scatter(Tensor out, std::vector<Tensor> in, int src);
  // Every rank sends the in_counts[r] elements of `in` at offset
  // sum(in_counts[:r]) to group rank r, and receives into `out` at offset
  // sum(out_counts[:r]) the out_counts[r] elements rank r sends it (Paddle's
  // alltoall_single; the counts must agree pairwise).
  WorkPtr AllToAll(Tensor out, std::vector<int64_t> out_counts, Tensor in,
                   std::vector<int64_t> in_counts);
  WorkPtr Send(Tensor tensor, int dst);
  WorkPtr Recv(Tensor tensor, int src);
  WorkPtr Barrier();
  // Completes when every operation issued on this group before it has run (a
  // point-to-point transfer: its send or receive was posted). Local: no message.
  WorkPtr Fence();

  // A group of the given global ranks (sorted, unique). Every rank of this
  // group must call it, in the same order (Paddle's rule); a non-member gets
  // nullptr.
  std::shared_ptr<ProcessGroup> NewGroup(std::vector<int> ranks);

 private:
  explicit ProcessGroup(std::unique_ptr<ProcessGroupImpl> impl);
  std::unique_ptr<ProcessGroupImpl> impl_;
};

}  // namespace oar::distributed
