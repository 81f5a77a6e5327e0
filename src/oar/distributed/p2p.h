// Point-to-point send and recv that check sizes and dtypes (Note [Point-to-point sizes]
// in p2p.cc).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "oar/core/errors.h"
#include "oar/core/tensor.h"

namespace gloo {
class Context;
namespace transport {
class UnboundBuffer;
}  // namespace transport
}  // namespace gloo

namespace oar::distributed {

// Builds the error for a transfer that Gloo failed or timed out, from Gloo's message.
using FailureFn = std::function<Error(const std::string&)>;

struct RecvJob;
class PeerReceiver;

// A group's transfers still in flight. When the group is destroyed, Stop() aborts their
// waits, and a Wait() then raises that the group was destroyed instead of waiting out
// the timeout (the group's own state is gone by then).
class InFlight {
 public:
  void Add(std::weak_ptr<gloo::transport::UnboundBuffer> buffer, bool receiving);
  void Stop();
  bool stopped();

 private:
  std::mutex mu_;
  bool stopped_ = false;
  std::vector<std::pair<std::weak_ptr<gloo::transport::UnboundBuffer>, bool>> buffers_;
};

// Posts the send of t to group rank `peer` in slots `slot` and `slot + 1`; returns what
// the send's Wait() runs (it waits until the peer has taken the data).
std::function<void()> PostSend(const std::shared_ptr<gloo::Context>& context,
                               const std::shared_ptr<InFlight>& in_flight, int peer, uint64_t slot,
                               const Tensor& t, std::chrono::milliseconds timeout,
                               FailureFn failure);

// Posts the receive into t from group rank `peer` (global rank `src`, for messages);
// returns what the recv's Wait() runs. `receiver` gives the peer's PeerReceiver, used
// for tensors too large to arrive with their header.
std::function<void()> PostRecv(const std::shared_ptr<gloo::Context>& context,
                               const std::shared_ptr<InFlight>& in_flight, int peer, uint64_t slot,
                               Tensor t, int src, std::chrono::milliseconds timeout,
                               FailureFn failure, const std::function<PeerReceiver&()>& receiver);

// The thread that serves one peer's large receives in the order they were issued:
// waits for each header and posts the data's receive.
class PeerReceiver {
 public:
  PeerReceiver(std::shared_ptr<gloo::Context> context, std::shared_ptr<InFlight> in_flight,
               int peer, std::chrono::milliseconds timeout, FailureFn failure);
  ~PeerReceiver();  // aborts a pending header wait and joins the thread
  PeerReceiver(const PeerReceiver&) = delete;
  PeerReceiver& operator=(const PeerReceiver&) = delete;

  void Push(std::shared_ptr<RecvJob> job);

 private:
  void Loop();
  void Serve(RecvJob& job);

  std::shared_ptr<gloo::Context> context_;
  std::shared_ptr<InFlight> in_flight_;
  int peer_;
  std::chrono::milliseconds timeout_;
  FailureFn failure_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<RecvJob>> jobs_;
  std::shared_ptr<RecvJob> current_;  // the job whose header is awaited
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace oar::distributed
