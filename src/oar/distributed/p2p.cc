// Note [Point-to-point sizes]
// Gloo aborts the receiving process (an EnforceNotMet on its transport thread) when a
// message is longer than the buffer posted for it, and a shorter one, or one of another
// dtype with the same byte count, fills the tensor silently wrong. So every send carries
// a 16-byte header (byte count, dtype) that its recv checks:
// - A tensor of at most kInlineBytes travels with its header in one message, copied
//   into a staging buffer. Every recv posts a staging buffer that size when it is
//   issued, so no message can overflow it, and its Wait() checks the header and copies
//   the data out: one message, no extra thread.
// - A larger tensor sends its header alone, then the data in the next slot. The data's
//   receive can be posted only after the header matched, and that cannot wait for the
//   caller's Wait(): in the usual exchange each rank issues an irecv and then a blocking
//   send, which completes only once the peer has posted its receive. So one thread per
//   peer (PeerReceiver, started at the first large recv from it) takes that peer's large
//   receives in issue order, waits for each header and posts the data's receive.
// A header that does not match makes the receiver take the data anyway into scratch (so
// that the sender's send completes) and raise a ValueError naming both sides; the
// sending rank is not told. Cost: benchmarks/distributed.py's round trips
// (docs/distributed.md).
#include "oar/distributed/p2p.h"

#include <gloo/context.h>
#include <gloo/transport/unbound_buffer.h>

#include <cstring>
#include <utility>
#include <vector>

#include "oar/core/dtype.h"

namespace oar::distributed {

namespace {
using Buffer = std::shared_ptr<gloo::transport::UnboundBuffer>;

constexpr size_t kInlineBytes = 64 * 1024;

struct Header {
  int64_t bytes = 0;
  int64_t dtype = 0;
};

size_t BytesOf(const Tensor& t) { return static_cast<size_t>(t.numel()) * SizeOf(t.dtype()); }

// Runs a Gloo wait, turning its failure or timeout into failure(...); a wait aborted
// because the group was destroyed raises that.
template <typename F>
void GlooWait(F&& wait, InFlight& in_flight, const char* api, const FailureFn& failure) {
  bool done = false;
  try {
    done = wait();
  } catch (const std::exception& e) {
    if (in_flight.stopped())
      done = false;
    else
      throw failure(e.what());
  }
  if (done) return;
  if (in_flight.stopped())
    throw errors::PreconditionNotMet(api, "(): the process group was destroyed");
  throw failure("Timed out");
}
}  // namespace

void InFlight::Add(std::weak_ptr<gloo::transport::UnboundBuffer> buffer, bool receiving) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) {
    if (auto b = buffer.lock()) receiving ? b->abortWaitRecv() : b->abortWaitSend();
    return;
  }
  if (buffers_.size() >= 64) {  // keep the list to the transfers still alive
    std::erase_if(buffers_, [](const auto& e) { return e.first.expired(); });
  }
  buffers_.emplace_back(std::move(buffer), receiving);
}

void InFlight::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  for (auto& [weak, receiving] : buffers_) {
    if (auto b = weak.lock()) receiving ? b->abortWaitRecv() : b->abortWaitSend();
  }
  buffers_.clear();
}

bool InFlight::stopped() {
  std::lock_guard<std::mutex> lock(mu_);
  return stopped_;
}

// One recv: the staging buffer is posted when it is issued; for a large tensor the
// peer's receiver thread posts the data's receive once the header has matched.
struct RecvJob {
  Tensor tensor;
  int src = 0;
  uint64_t data_slot = 0;
  std::unique_ptr<char[]> staging =
      std::make_unique_for_overwrite<char[]>(sizeof(Header) + kInlineBytes);
  Buffer staging_buffer, data_buffer;

  std::mutex mu;
  std::condition_variable cv;
  bool resolved = false;
  std::exception_ptr error;

  Header Sent() const {
    Header h;
    std::memcpy(&h, staging.get(), sizeof h);
    return h;
  }
  bool Matches(const Header& sent) const {
    return sent.bytes == static_cast<int64_t>(BytesOf(tensor)) &&
           sent.dtype == static_cast<int64_t>(tensor.dtype());
  }
  // Takes a large mismatched message's data, so that its sender's send completes.
  void Drain(gloo::Context& context, InFlight& in_flight, int peer, const Header& sent,
             std::chrono::milliseconds timeout, const FailureFn& failure) const {
    if (sent.bytes <= static_cast<int64_t>(kInlineBytes)) return;  // it came inline
    std::vector<char> sink(static_cast<size_t>(sent.bytes));
    Buffer drain = context.createUnboundBuffer(sink.data(), sink.size());
    drain->recv(peer, data_slot);
    in_flight.Add(drain, true);
    GlooWait([&] { return drain->waitRecv(timeout); }, in_flight, "recv", failure);
  }
  Error Mismatch(const Header& sent) const {
    const auto dtype = static_cast<DType>(sent.dtype);
    const int64_t numel = sent.bytes / static_cast<int64_t>(SizeOf(dtype));
    return errors::InvalidArgument(
        "recv(): rank ", src, " sent ", numel, " elements of ", DTypeName(dtype), " (", sent.bytes,
        " bytes), but the tensor here holds ", tensor.numel(), " elements of ",
        DTypeName(tensor.dtype()), " (", BytesOf(tensor),
        " bytes); a send and its recv need tensors of one size and dtype (the data was "
        "discarded; the sending rank is not told)");
  }
  void Resolve(std::exception_ptr e) {
    {
      std::lock_guard<std::mutex> lock(mu);
      resolved = true;
      error = std::move(e);
    }
    cv.notify_all();
  }
};

std::function<void()> PostSend(const std::shared_ptr<gloo::Context>& context,
                               const std::shared_ptr<InFlight>& in_flight, int peer, uint64_t slot,
                               const Tensor& t, std::chrono::milliseconds timeout,
                               FailureFn failure) {
  const size_t bytes = BytesOf(t);
  const Header header{static_cast<int64_t>(bytes), static_cast<int64_t>(t.dtype())};
  if (bytes <= kInlineBytes) {
    auto staging = std::make_shared<std::vector<char>>(sizeof header + bytes);
    std::memcpy(staging->data(), &header, sizeof header);
    if (bytes > 0) std::memcpy(staging->data() + sizeof header, t.dense().data(), bytes);
    Buffer one = context->createUnboundBuffer(staging->data(), staging->size());
    one->send(peer, slot);
    in_flight->Add(one, false);
    return [staging, one, in_flight, timeout, failure] {
      GlooWait([&] { return one->waitSend(timeout); }, *in_flight, "send", failure);
    };
  }
  auto head = std::make_shared<Header>(header);
  Buffer head_buffer = context->createUnboundBuffer(head.get(), sizeof(Header));
  head_buffer->send(peer, slot);
  Buffer data = context->createUnboundBuffer(t.dense().data(), bytes);
  data->send(peer, slot + 1);
  in_flight->Add(head_buffer, false);
  in_flight->Add(data, false);
  return [head, head_buffer, data, t, in_flight, timeout, failure] {
    GlooWait([&] { return head_buffer->waitSend(timeout) && data->waitSend(timeout); }, *in_flight,
             "send", failure);
  };
}

std::function<void()> PostRecv(const std::shared_ptr<gloo::Context>& context,
                               const std::shared_ptr<InFlight>& in_flight, int peer, uint64_t slot,
                               Tensor t, int src, std::chrono::milliseconds timeout,
                               FailureFn failure, const std::function<PeerReceiver&()>& receiver) {
  auto job = std::make_shared<RecvJob>();
  job->tensor = std::move(t);
  job->src = src;
  job->data_slot = slot + 1;
  job->staging_buffer =
      context->createUnboundBuffer(job->staging.get(), sizeof(Header) + kInlineBytes);
  job->staging_buffer->recv(peer, slot);
  in_flight->Add(job->staging_buffer, true);
  if (BytesOf(job->tensor) <= kInlineBytes) {
    return [job, context, in_flight, peer, timeout, failure] {
      GlooWait([&] { return job->staging_buffer->waitRecv(timeout); }, *in_flight, "recv", failure);
      const Header sent = job->Sent();
      if (!job->Matches(sent)) {
        job->Drain(*context, *in_flight, peer, sent, timeout, failure);
        throw job->Mismatch(sent);
      }
      if (sent.bytes > 0) {
        std::memcpy(job->tensor.dense().data(), job->staging.get() + sizeof(Header),
                    static_cast<size_t>(sent.bytes));
      }
    };
  }
  receiver().Push(job);
  return [job, in_flight, timeout, failure] {
    Buffer data;
    {
      std::unique_lock<std::mutex> lock(job->mu);
      job->cv.wait(lock, [&] { return job->resolved; });
      if (job->error) std::rethrow_exception(job->error);
      data = job->data_buffer;
    }
    GlooWait([&] { return data->waitRecv(timeout); }, *in_flight, "recv", failure);
  };
}

PeerReceiver::PeerReceiver(std::shared_ptr<gloo::Context> context,
                           std::shared_ptr<InFlight> in_flight, int peer,
                           std::chrono::milliseconds timeout, FailureFn failure)
    : context_(std::move(context)),
      in_flight_(std::move(in_flight)),
      peer_(peer),
      timeout_(timeout),
      failure_(std::move(failure)),
      thread_([this] { Loop(); }) {}

PeerReceiver::~PeerReceiver() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    if (current_) current_->staging_buffer->abortWaitRecv();
  }
  cv_.notify_all();
  thread_.join();
}

void PeerReceiver::Push(std::shared_ptr<RecvJob> job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void PeerReceiver::Loop() {
  for (;;) {
    std::shared_ptr<RecvJob> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_) break;
      job = jobs_.front();
      jobs_.pop_front();
      current_ = job;
    }
    std::exception_ptr error;
    try {
      Serve(*job);
    } catch (...) {
      error = std::current_exception();  // oar Errors, failure_'s included
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      current_.reset();
    }
    job->Resolve(error);
  }
  // The group is going away: receives still queued fail instead of hanging.
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& job : jobs_) {
    job->Resolve(std::make_exception_ptr(
        errors::PreconditionNotMet("recv(): the process group was destroyed")));
  }
  jobs_.clear();
}

void PeerReceiver::Serve(RecvJob& job) {
  bool arrived = false;
  try {
    arrived = job.staging_buffer->waitRecv(timeout_);
  } catch (const std::exception& e) {
    throw failure_(e.what());
  }
  if (!arrived) {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) throw errors::PreconditionNotMet("recv(): the process group was destroyed");
    throw failure_("Timed out");
  }
  const Header sent = job.Sent();
  if (!job.Matches(sent)) {
    job.Drain(*context_, *in_flight_, peer_, sent, timeout_, failure_);
    throw job.Mismatch(sent);
  }
  job.data_buffer = context_->createUnboundBuffer(job.tensor.dense().data(), BytesOf(job.tensor));
  job.data_buffer->recv(peer_, job.data_slot);
  in_flight_->Add(job.data_buffer, true);
}

}  // namespace oar::distributed
