#include "oar/distributed/process_group.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <thread>

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/rendezvous/store.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>

#include "oar/core/errors.h"
#include "oar/core/profiler/record_event.h"
#include "oar/core/profiler/recorder.h"
#include "oar/distributed/p2p.h"
#include "oar/distributed/reduce_kernels.h"
#include "oar/distributed/tcp_store.h"

namespace oar::distributed {

// Note [Naming the lost rank]
// Gloo reports a failed transfer with the peer's socket address, and a
// collective whose ring does not touch the dead process only times out. So
// the failing rank asks the rendezvous store which ranks' store connections
// closed without goodbye (the kernel closes a killed process's sockets at
// once); if the store itself is gone, rank 0 (its host) was lost. The error
// names the collective, this rank and the lost ranks, or says that no process
// died and a peer is stuck or did not make the call.

const char* ReduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "SUM";
    case ReduceOp::kMax:
      return "MAX";
    case ReduceOp::kMin:
      return "MIN";
    case ReduceOp::kProd:
      return "PROD";
    case ReduceOp::kAvg:
      return "AVG";
  }
  return "?";
}

namespace {

const char* Env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

int EnvInt(const char* name, const char* v) {
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  if (end == v || *end) {
    throw errors::InvalidArgument("init_parallel_env(): environment variable ", name, "='", v,
                                  "' is not an integer");
  }
  return static_cast<int>(x);
}

void SplitHostPort(const std::string& ep, const char* name, std::string* host, int* port) {
  const auto colon = ep.rfind(':');
  if (colon == std::string::npos) {
    throw errors::InvalidArgument("init_parallel_env(): ", name, "='", ep,
                                  "' is not of the form host:port");
  }
  *host = ep.substr(0, colon);
  *port = EnvInt(name, ep.c_str() + colon + 1);
}

// The local address this host uses to reach `host` (no packet is sent: a UDP
// connect only picks the route), so Gloo binds where the peers can reach it.
std::string LocalAddressToward(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port ? port : 1).c_str(), &hints, &res) != 0) {
    return "127.0.0.1";
  }
  std::string out = "127.0.0.1";
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && ::connect(fd, res->ai_addr, res->ai_addrlen) == 0) {
    sockaddr_in me{};
    socklen_t len = sizeof me;
    char buf[INET_ADDRSTRLEN];
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&me), &len) == 0 &&
        ::inet_ntop(AF_INET, &me.sin_addr, buf, sizeof buf)) {
      out = buf;
    }
  }
  if (fd >= 0) ::close(fd);
  ::freeaddrinfo(res);
  return out;
}

// Gloo's view of the store: keys under the group's prefix.
class GlooStore final : public gloo::rendezvous::Store {
 public:
  explicit GlooStore(std::shared_ptr<TcpStore> store) : store_(std::move(store)) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    store_->Set(key, data);
  }
  std::vector<char> get(const std::string& key) override {
    return store_->Get(key, store_->timeout());
  }
  void wait(const std::vector<std::string>& keys) override { wait(keys, store_->timeout()); }
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override {
    for (const auto& k : keys) store_->Get(k, timeout);
  }

 private:
  std::shared_ptr<TcpStore> store_;
};

std::string JoinRanks(const std::vector<int>& r);
std::string RankList(const std::vector<int>& r) { return "[" + JoinRanks(r) + "]"; }

// A collective that only moves data moves bytes and takes any dtype; one that
// reduces needs a reduction for the dtype (`reduces`).
void CheckTensor(const Tensor& t, const char* api, const char* arg, bool reduces = false) {
  if (!t.defined() || !t.initialized()) {
    throw errors::InvalidArgument(api, "(): ", arg, " must be an initialized tensor");
  }
  if (!t.is_cpu()) throw errors::InvalidArgument(api, "(): ", arg, " must be on the CPU");
  if (!t.is_contiguous()) {
    throw errors::InvalidArgument(api, "(): ", arg, " must be contiguous (call .contiguous())");
  }
  if (reduces) CheckCollectiveDType(t.dtype(), api);
}

// Calls f(T{}) with the element type of dtype: Gloo sizes its segments in
// elements of the type it is given, so a segment never splits an element.
template <typename F>
void WithElementType(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kFloat32:
      return f(float{});
    case DType::kFloat64:
      return f(double{});
    case DType::kInt32:
      return f(int32_t{});
    case DType::kInt64:
      return f(int64_t{});
    case DType::kFloat16:
      return f(float16{});
    case DType::kBFloat16:
      return f(bfloat16{});
    default:
      CheckCollectiveDType(dtype, "collective");
  }
}

std::string JoinRanks(const std::vector<int>& r) {
  std::string s;
  for (size_t i = 0; i < r.size(); ++i) s += (i ? ", " : "") + std::to_string(r[i]);
  return s;
}

size_t Bytes(const Tensor& t) { return static_cast<size_t>(t.numel()) * SizeOf(t.dtype()); }
void* Ptr(const Tensor& t) { return t.dense().data(); }

}  // namespace

Options Options::FromEnvironment() {
  Options o;
  if (const char* v = Env("PADDLE_TRAINER_ID")) {
    o.rank = EnvInt("PADDLE_TRAINER_ID", v);
  } else if (const char* r = Env("RANK")) {
    o.rank = EnvInt("RANK", r);
  }
  if (const char* v = Env("PADDLE_TRAINERS_NUM")) {
    o.world_size = EnvInt("PADDLE_TRAINERS_NUM", v);
  } else if (const char* w = Env("WORLD_SIZE")) {
    o.world_size = EnvInt("WORLD_SIZE", w);
  }
  const char* endpoints = Env("PADDLE_TRAINER_ENDPOINTS");
  if (const char* m = Env("MASTER_ADDR")) {
    o.master_addr = m;
    const char* p = Env("MASTER_PORT");
    if (!p)
      throw errors::InvalidArgument(
          "init_parallel_env(): MASTER_ADDR is set but MASTER_PORT is not");
    o.master_port = EnvInt("MASTER_PORT", p);
  } else if (const char* pm = Env("PADDLE_MASTER")) {
    SplitHostPort(pm, "PADDLE_MASTER", &o.master_addr, &o.master_port);
  } else if (endpoints) {
    std::string first(endpoints);
    first = first.substr(0, first.find(','));
    SplitHostPort(first, "PADDLE_TRAINER_ENDPOINTS", &o.master_addr, &o.master_port);
    if (!Env("PADDLE_TRAINERS_NUM")) {
      o.world_size =
          static_cast<int>(std::count(endpoints, endpoints + std::strlen(endpoints), ',')) + 1;
    }
  } else if (o.world_size > 1) {
    throw errors::InvalidArgument(
        "init_parallel_env(): world size ", o.world_size,
        " but no rendezvous address: set PADDLE_MASTER, PADDLE_TRAINER_ENDPOINTS or "
        "MASTER_ADDR/MASTER_PORT (python -m oar.distributed.launch sets them)");
  }
  if (const char* t = Env("OAR_DIST_TIMEOUT")) {
    char* end = nullptr;
    double s = std::strtod(t, &end);
    if (end == t || *end || !(s > 0)) {
      throw errors::InvalidArgument("init_parallel_env(): OAR_DIST_TIMEOUT='", t,
                                    "' must be a positive number of seconds");
    }
    o.timeout = std::chrono::milliseconds(static_cast<int64_t>(s * 1000));
  }
  if (const char* i = Env("GLOO_SOCKET_IFNAME")) o.iface = i;
  if (o.world_size < 1 || o.rank < 0 || o.rank >= o.world_size) {
    throw errors::InvalidArgument("init_parallel_env(): rank ", o.rank,
                                  " is not in [0, world size ", o.world_size, ")");
  }
  return o;
}

// --- Work ---------------------------------------------------------------------

void Work::Finish(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
    error_ = std::move(error);
    end_ns_ = profiler::NowNs();
  }
  cv_.notify_all();
}

bool Work::IsCompleted() {
  std::lock_guard<std::mutex> lock(mu_);
  return done_ && !wait_extra_;
}

void Work::Wait() {
  std::function<void()> extra;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return done_; });
    if (error_) std::rethrow_exception(error_);
    extra = std::move(wait_extra_);
    wait_extra_ = nullptr;
  }
  if (extra) extra();
}

// Note [Ranks agree before Gloo runs a collective]
// Gloo aborts the process (an EnforceNotMet thrown on its transport thread) when a
// rank sends more bytes than its peer posted for them: an all_reduce of 3 elements on
// one rank and 5 on another killed the first with SIGABRT. So every collective first
// all-gathers a fixed-size signature from every rank (which collective, the dtype, the
// element count, the root, the reduction) and, when they differ, raises the same
// typed error on every rank, naming both sides. The signature has one size for every
// collective, so ranks that call different collectives are caught too. It costs one
// small all-gather per collective; DataParallel's bucket all-reduces skip it (their
// sizes come from one model on every rank, checked when its parameters are broadcast).
namespace {
enum class Call : int64_t {
  kAllReduce = 1,
  kBroadcast,
  kAllGather,
  kReduceScatter,
  kReduce,
  kGather,
  kScatter,
  kAllToAll,
  kBarrier
};
constexpr const char* kCallNames[] = {
    "?",      "all_reduce", "broadcast", "all_gather", "reduce_scatter",
    "reduce", "gather",     "scatter",   "alltoall",   "barrier"};

struct Signature {
  int64_t call = 0, dtype = 0, numel = 0, root = -1, op = -1;
};

std::string Describe(const Signature& s, int global_rank) {
  const auto call = static_cast<size_t>(s.call);
  std::string d = StrCat("rank ", global_rank, " called ",
                         call < std::size(kCallNames) ? kCallNames[call] : "?");
  if (static_cast<Call>(s.call) != Call::kBarrier) {
    d += StrCat(" with ", s.numel, " elements of ", DTypeName(static_cast<DType>(s.dtype)));
  }
  if (s.root >= 0) d += StrCat(", root ", s.root);
  if (s.op >= 0) d += StrCat(", op ", ReduceOpName(static_cast<ReduceOp>(s.op)));
  return d;
}
}  // namespace

// --- the group ------------------------------------------------------------------

struct ProcessGroupImpl {
  int id = 0;
  int rank = 0;  // in the group
  int global_rank = 0;
  int world_size = 1;
  std::vector<int> ranks;  // global ranks of the members
  std::chrono::milliseconds timeout{};
  std::shared_ptr<TcpStore> store;
  std::shared_ptr<TcpStoreServer> server;  // the world group of rank 0 only
  std::shared_ptr<gloo::transport::Device> device;
  std::shared_ptr<gloo::rendezvous::Context> context;
  std::shared_ptr<int> group_counter;  // shared by a world and its subgroups
  uint32_t next_tag = 0;
  std::map<int, uint64_t> sends, recvs;  // point-to-point sequence numbers per peer
  // Note [Point-to-point sizes] (p2p.cc); created by the worker, per peer.
  std::map<int, std::unique_ptr<PeerReceiver>> receivers;
  std::shared_ptr<InFlight> in_flight = std::make_shared<InFlight>();

  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::pair<WorkPtr, std::function<void(Work&)>>> queue;
  bool stopping = false;
  std::thread worker;

  void Start() {
    worker = std::thread([this] { Loop(); });
  }
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu);
      stopping = true;
    }
    cv.notify_all();
    if (worker.joinable()) worker.join();
    receivers.clear();  // each aborts its pending header wait and joins its thread
    in_flight->Stop();  // pending transfers' waits raise instead of timing out
  }

  PeerReceiver& Receiver(int peer, int src) {
    auto& r = receivers[peer];
    if (!r) {
      r = std::make_unique<PeerReceiver>(
          context, in_flight, peer, timeout,
          [this, src](const std::string& c) { return Failure(StrCat("recv from rank ", src), c); });
    }
    return *r;
  }

  void Loop() {
    for (;;) {
      std::pair<WorkPtr, std::function<void(Work&)>> item;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [this] { return stopping || !queue.empty(); });
        if (queue.empty()) return;  // stopping, and all issued work ran
        item = std::move(queue.front());
        queue.pop_front();
      }
      Work& w = *item.first;
      w.start_ns_ = profiler::NowNs();
      std::exception_ptr error;
      try {
        profiler::RecordEvent span(std::string_view(w.what()), profiler::EventKind::kUserDefined);
        item.second(w);
      } catch (const Error&) {
        error = std::current_exception();  // oar's own check (AllToAll's sizes): as it is
      } catch (const std::exception& e) {
        error = std::make_exception_ptr(Failure(w.what(), e.what()));
      }
      w.Finish(error);
    }
  }

  WorkPtr Enqueue(std::string what, std::function<void(Work&)> fn) {
    auto w = std::make_shared<Work>(std::move(what));
    {
      std::lock_guard<std::mutex> lock(mu);
      if (stopping)
        throw errors::PreconditionNotMet(w->what(), "(): the process group was destroyed");
      queue.emplace_back(w, std::move(fn));
    }
    cv.notify_one();
    return w;
  }

  // Note [Ranks agree before Gloo runs a collective]. On the worker thread.
  void Agree(const Signature& mine) {
    const size_t n = ranks.size();
    if (n == 1) return;
    constexpr size_t kWords = sizeof(Signature) / sizeof(int64_t);
    std::vector<Signature> all(n);
    gloo::AllgatherOptions opts(context);
    opts.setInput(reinterpret_cast<int64_t*>(const_cast<Signature*>(&mine)), kWords);
    opts.setOutput(reinterpret_cast<int64_t*>(all.data()), kWords * n);
    opts.setTag(next_tag++);
    opts.setTimeout(timeout);
    gloo::allgather(opts);
    for (size_t r = 1; r < n; ++r) {
      const Signature& a = all[0];
      const Signature& b = all[r];
      if (a.call != b.call || a.dtype != b.dtype || a.numel != b.numel || a.root != b.root ||
          a.op != b.op) {
        const auto call = static_cast<size_t>(mine.call);
        throw errors::InvalidArgument(
            call < std::size(kCallNames) ? kCallNames[call] : "?",
            "(): the ranks of the group disagree: ", Describe(a, ranks[0]), ", but ",
            Describe(b, ranks[r]),
            " (every rank must make the same call with tensors of one size and dtype; every "
            "rank raises this)");
      }
    }
  }

  // Note [Naming the lost rank].
  Error Failure(const std::string& what, const std::string& cause) const {
    std::vector<int> dead;
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
    do {
      dead = store->DeadRanks(world_size);
      if (!dead.empty()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    } while (std::chrono::steady_clock::now() < until);
    std::string msg =
        StrCat(what, " failed on rank ", global_rank, " (group ", RankList(ranks), "): ");
    if (!dead.empty()) {
      msg += StrCat("lost rank", dead.size() > 1 ? "s " : " ", JoinRanks(dead),
                    " (its process exited or its connection closed)");
    } else if (cause.find("imed out") != std::string::npos) {
      msg += StrCat("timed out after ", timeout.count() / 1000.0,
                    " s (OAR_DIST_TIMEOUT); no process was lost, so a peer is stuck or did not "
                    "call ",
                    what);
    } else {
      msg += "a peer failed";
    }
    return errors::PreconditionNotMet(msg, " [gloo: ", cause, "]");
  }

  void Connect(const std::string& bind_host) {
    if (!device) {
      gloo::transport::tcp::attr attr;
      attr.hostname = bind_host;
      device = gloo::transport::tcp::CreateDevice(attr);
    }
    context = std::make_shared<gloo::rendezvous::Context>(rank, static_cast<int>(ranks.size()));
    context->setTimeout(timeout);
    GlooStore base(store);
    gloo::rendezvous::PrefixStore prefixed("group/" + std::to_string(id), base);
    try {
      context->connectFullMesh(prefixed, device);
    } catch (const std::exception& e) {
      throw Failure(id == 0 ? "init_parallel_env" : "new_group", e.what());
    }
  }
};

ProcessGroup::ProcessGroup(std::unique_ptr<ProcessGroupImpl> impl) : impl_(std::move(impl)) {}

ProcessGroup::~ProcessGroup() { impl_->Stop(); }

std::shared_ptr<ProcessGroup> ProcessGroup::Init(const Options& o) {
  auto impl = std::make_unique<ProcessGroupImpl>();
  impl->rank = impl->global_rank = o.rank;
  impl->world_size = o.world_size;
  impl->timeout = o.timeout;
  for (int r = 0; r < o.world_size; ++r) impl->ranks.push_back(r);
  int port = o.master_port;
  if (o.rank == 0) {
    impl->server = std::make_shared<TcpStoreServer>(o.master_addr, port);
    port = impl->server->port();
  }
  impl->store = std::make_shared<TcpStore>(o.master_addr, port, o.rank, o.timeout);
  impl->group_counter = std::make_shared<int>(0);
  std::string bind = o.iface.empty() ? LocalAddressToward(o.master_addr, port) : "";
  if (!o.iface.empty()) {
    gloo::transport::tcp::attr attr;
    attr.iface = o.iface;
    impl->device = gloo::transport::tcp::CreateDevice(attr);
  }
  impl->Connect(bind);
  impl->Start();
  return std::shared_ptr<ProcessGroup>(new ProcessGroup(std::move(impl)));
}

int ProcessGroup::rank() const { return impl_->rank; }
int ProcessGroup::size() const { return static_cast<int>(impl_->ranks.size()); }
int ProcessGroup::global_rank() const { return impl_->global_rank; }
const std::vector<int>& ProcessGroup::ranks() const { return impl_->ranks; }
int ProcessGroup::id() const { return impl_->id; }
std::chrono::milliseconds ProcessGroup::timeout() const { return impl_->timeout; }

int ProcessGroup::GroupRank(int global_rank, const char* what) const {
  auto it = std::find(impl_->ranks.begin(), impl_->ranks.end(), global_rank);
  if (it == impl_->ranks.end()) {
    throw errors::InvalidArgument(what, ": rank ", global_rank, " is not in the group ",
                                  RankList(impl_->ranks));
  }
  return static_cast<int>(it - impl_->ranks.begin());
}

WorkPtr ProcessGroup::AllReduce(Tensor t, ReduceOp op, bool agree) {
  CheckTensor(t, "all_reduce", "tensor", true);
  t.bump_inplace_version();
  auto* impl = impl_.get();
  return impl->Enqueue("all_reduce", [impl, t, op, agree](Work&) {
    if (agree) {
      impl->Agree({static_cast<int64_t>(Call::kAllReduce), static_cast<int64_t>(t.dtype()),
                   t.numel(), -1, static_cast<int64_t>(op)});
    }
    const size_t n = static_cast<size_t>(t.numel());
    if (n == 0) return;
    gloo::AllreduceOptions opts(impl->context);
    WithElementType(t.dtype(),
                    [&](auto zero) { opts.setOutput(static_cast<decltype(zero)*>(Ptr(t)), n); });
    opts.setReduceFunction(MakeReduceFn(t.dtype(), op));
    opts.setTag(impl->next_tag++);
    opts.setTimeout(impl->timeout);
    gloo::allreduce(opts);
    if (op == ReduceOp::kAvg)
      DivideInPlace(Ptr(t), n, t.dtype(), static_cast<int>(impl->ranks.size()));
  });
}

WorkPtr ProcessGroup::Broadcast(Tensor t, int src) {
  CheckTensor(t, "broadcast", "tensor");
  const int root = GroupRank(src, "broadcast(): src");
  t.bump_inplace_version();
  auto* impl = impl_.get();
  return impl->Enqueue("broadcast", [impl, t, root](Work&) {
    impl->Agree({static_cast<int64_t>(Call::kBroadcast), static_cast<int64_t>(t.dtype()), t.numel(),
                 root, -1});
    if (t.numel() == 0) return;
    gloo::BroadcastOptions opts(impl->context);
    opts.setOutput(static_cast<char*>(Ptr(t)), Bytes(t));
    opts.setRoot(root);
    opts.setTag(impl->next_tag++);
    opts.setTimeout(impl->timeout);
    gloo::broadcast(opts);
  });
}

WorkPtr ProcessGroup::AllGather(std::vector<Tensor> out, Tensor in) {
  CheckTensor(in, "all_gather", "tensor");
  if (out.size() != impl_->ranks.size()) {
    throw errors::InvalidArgument("all_gather(): expected ", impl_->ranks.size(),
                                  " output tensors (the group size), got ", out.size());
  }
  for (auto& o : out) {
    CheckTensor(o, "all_gather", "tensor_list[i]");
    if (o.numel() != in.numel() || o.dtype() != in.dtype()) {
      throw errors::InvalidArgument("all_gather(): every output must match tensor's dtype ",
                                    DTypeName(in.dtype()), " and numel ", in.numel());
    }
    o.bump_inplace_version();
  }
  auto* impl = impl_.get();
  return impl->Enqueue("all_gather", [impl, out, in](Work&) {
    impl->Agree({static_cast<int64_t>(Call::kAllGather), static_cast<int64_t>(in.dtype()),
                 in.numel(), -1, -1});
    const size_t b = Bytes(in);
    if (b == 0) return;
    std::vector<char> flat(b * out.size());
    gloo::AllgatherOptions opts(impl->context);
    opts.setInput(static_cast<char*>(Ptr(in)), b);
    opts.setOutput(flat.data(), flat.size());
    opts.setTag(impl->next_tag++);
    opts.setTimeout(impl->timeout);
    gloo::allgather(opts);
    for (size_t i = 0; i < out.size(); ++i) std::memcpy(Ptr(out[i]), flat.data() + i * b, b);
  });
}

WorkPtr ProcessGroup::ReduceScatter(Tensor out, std::vector<Tensor> in, ReduceOp op) {
  CheckTensor(out, "reduce_scatter", "tensor", true);
  if (in.size() != impl_->ranks.size()) {
    throw errors::InvalidArgument("reduce_scatter(): expected ", impl_->ranks.size(),
                                  " input tensors (the group size), got ", in.size());
  }
  for (auto& i : in) {
    CheckTensor(i, "reduce_scatter", "tensor_list[i]", true);
    if (i.numel() != out.numel() || i.dtype() != out.dtype()) {
      throw errors::InvalidArgument("reduce_scatter(): every input must match tensor's dtype ",
                                    DTypeName(out.dtype()), " and numel ", out.numel());
    }
  }
  out.bump_inplace_version();
  auto* impl = impl_.get();
  // Gloo 0.5 has no typed reduce-scatter collective: all-reduce the
  // concatenation and keep this rank's part (twice the traffic of a ring
  // reduce-scatter; docs/distributed.md).
  return impl->Enqueue("reduce_scatter", [impl, out, in, op](Work&) {
    impl->Agree({static_cast<int64_t>(Call::kReduceScatter), static_cast<int64_t>(out.dtype()),
                 out.numel(), -1, static_cast<int64_t>(op)});
    const size_t b = Bytes(out);
    if (b == 0) return;
    std::vector<char> flat(b * in.size());
    for (size_t i = 0; i < in.size(); ++i) std::memcpy(flat.data() + i * b, Ptr(in[i]), b);
    gloo::AllreduceOptions opts(impl->context);
    WithElementType(out.dtype(), [&](auto zero) {
      using T = decltype(zero);
      opts.setOutput(reinterpret_cast<T*>(flat.data()), flat.size() / sizeof(T));
    });
    opts.setReduceFunction(MakeReduceFn(out.dtype(), op));
    opts.setTag(impl->next_tag++);
    opts.setTimeout(impl->timeout);
    gloo::allreduce(opts);
    std::memcpy(Ptr(out), flat.data() + static_cast<size_t>(impl->rank) * b, b);
    if (op == ReduceOp::kAvg) {
      DivideInPlace(Ptr(out), static_cast<size_t>(out.numel()), out.dtype(),
                    static_cast<int>(impl->ranks.size()));
    }
  });
}

// Tensors that must all match `like` in dtype and numel (`api`'s `arg`).
void CheckSameAs(const std::vector<Tensor>& ts, const Tensor& like, const char* api,
                 const char* arg, size_t want) {
  if (ts.size() != want) {
    throw errors::InvalidArgument(api, "(): expected ", want, " tensors in ", arg,
                                  " (the group size), got ", ts.size());
  }
  for (const auto& t : ts) {
    CheckTensor(t, api, arg);
    if (t.numel() != like.numel() || t.dtype() != like.dtype()) {
      throw errors::InvalidArgument(api, "(): every tensor of ", arg, " must match tensor's dtype ",
                                    DTypeName(like.dtype()), " and numel ", like.numel(), ", got ",
                                    DTypeName(t.dtype()), " and ", t.numel());
    }
  }
}

WorkPtr ProcessGroup::Reduce(Tensor t, int dst, ReduceOp op) {
  CheckTensor(t, "reduce", "tensor", true);
  const int root = GroupRank(dst, "reduce(): dst");
  auto* impl = impl_.get();
  if (impl->rank == root) t.bump_inplace_version();
  return impl->Enqueue("reduce", [impl, t, root, op](Work&) {
    impl->Agree({static_cast<int64_t>(Call::kReduce), static_cast<int64_t>(t.dtype()), t.numel(),
                 root, static_cast<int64_t>(op)});
    const size_t n = static_cast<size_t>(t.numel());
    if (n == 0) return;
    // Gloo accumulates into the output on every rank: a rank other than the root
    // reads its tensor and accumulates in scratch, so its tensor stays as it was.
    std::vector<char> scratch(impl->rank == root ? 0 : Bytes(t));
    gloo::ReduceOptions opts(impl->context);
    WithElementType(t.dtype(), [&](auto zero) {
      using T = decltype(zero);
      if (impl->rank == root) {
        opts.setOutput(static_cast<T*>(Ptr(t)), n);
      } else {
        opts.setInput(static_cast<T*>(Ptr(t)), n);
        opts.setOutput(reinterpret_cast<T*>(scratch.data()), n);
      }
    });
    opts.setRoot(root);
    opts.setReduceFunction(MakeReduceFn(t.dtype(), op));
    opts.setTag(impl->next_tag++);
    opts.setTimeout(impl->timeout);
    gloo::reduce(opts);
    if (op == ReduceOp::kAvg && impl->rank == root) {
      DivideInPlace(Ptr(t), n, t.dtype(), static_cast<int>(impl->ranks.size()));
    }
  });
}

WorkPtr ProcessGroup::Gather(std::vector<Tensor> out, Tensor in, int dst) {
  CheckTensor(in, "gather", "tensor");
  const int root = GroupRank(dst, "gather(): dst");
  auto* impl = impl_.get();
  if (impl->rank == root) {
    CheckSameAs(out, in, "gather", "gather_list", impl->ranks.size());
    for (auto& o : out) o.bump_inplace_version();
  } else {
    out.clear();
  }
  return impl->Enqueue("gather", [impl, out, in, root](Work&) {
    impl->Agree({static_cast<int64_t>(Call::kGather), static_cast<int64_t>(in.dtype()), in.numel(),
                 root, -1});
    const size_t b = Bytes(in);
    if (b == 0) return;
    std::vector<char> flat(impl->rank == root ? b * out.size() : 0);
    gloo::GatherOptions opts(impl->context);
    opts.setInput(static_cast<char*>(Ptr(in)), b);
    if (impl->rank == root) opts.setOutput(flat.data(), flat.size());
    opts.setRoot(root);
    opts.setTag(impl->next_tag++);
    opts.setTimeout(impl->timeout);
    gloo::gather(opts);
    for (size_t i = 0; i < out.size(); ++i) std::memcpy(Ptr(out[i]), flat.data() + i * b, b);
  });
}

WorkPtr ProcessGroup::Scatter(Tensor out, std::vector<Tensor> in, int src) {
  CheckTensor(out, "scatter", "tensor");
  const int root = GroupRank(src, "scatter(): src");
  auto* impl = impl_.get();
  if (impl->rank == root) {
    CheckSameAs(in, out, "scatter", "tensor_list", impl->ranks.size());
  } else {
    in.clear();
  }
  out.bump_inplace_version();
  return impl->Enqueue("scatter", [impl, out, in, root](Work&) {
    impl->Agree({static_cast<int64_t>(Call::kScatter), static_cast<int64_t>(out.dtype()),
                 out.numel(), root, -1});
    const size_t b = Bytes(out);
    if (b == 0) return;
    gloo::ScatterOptions opts(impl->context);
    std::vector<char*> ptrs;
    for (const auto& t : in) ptrs.push_back(static_cast<char*>(Ptr(t)));
    if (impl->rank == root) opts.setInputs(ptrs, b);
    opts.setOutput(static_cast<char*>(Ptr(out)), b);
    opts.setRoot(root);
    opts.setTag(impl->next_tag++);
    opts.setTimeout(impl->timeout);
    gloo::scatter(opts);
  });
}

WorkPtr ProcessGroup::AllToAll(Tensor out, std::vector<int64_t> out_counts, Tensor in,
                               std::vector<int64_t> in_counts) {
  CheckTensor(out, "alltoall", "out_tensor");
  CheckTensor(in, "alltoall", "in_tensor");
  const size_t n = impl_->ranks.size();
  if (in.dtype() != out.dtype()) {
    throw errors::InvalidArgument("alltoall(): in_tensor and out_tensor must have one dtype, got ",
                                  DTypeName(in.dtype()), " and ", DTypeName(out.dtype()));
  }
  const auto check = [n](const std::vector<int64_t>& counts, const Tensor& t, const char* arg,
                         const char* tensor) {
    if (counts.size() != n) {
      throw errors::InvalidArgument("alltoall(): ", arg, " must have ", n,
                                    " entries (the group size), got ", counts.size());
    }
    int64_t total = 0;
    for (int64_t c : counts) {
      if (c < 0) throw errors::InvalidArgument("alltoall(): ", arg, " holds a negative size ", c);
      total += c;
    }
    if (total != t.numel()) {
      throw errors::InvalidArgument("alltoall(): ", arg, " add up to ", total, " elements, but ",
                                    tensor, " has ", t.numel());
    }
  };
  check(in_counts, in, "in_split_sizes", "in_tensor");
  check(out_counts, out, "out_split_sizes", "out_tensor");
  out.bump_inplace_version();
  auto* impl = impl_.get();
  return impl->Enqueue("alltoall", [impl, out, in, out_counts, in_counts](Work&) {
    // Gloo counts in elements of the type it is given: bytes here. Its buffers
    // need a valid pointer even when a side is empty.
    const auto bytes = [&](std::vector<int64_t> c) {
      for (auto& v : c) v *= static_cast<int64_t>(SizeOf(out.dtype()));
      return c;
    };
    // Every rank learns every rank's counts first and checks that they agree pairwise
    // (what r sends to p is what p expects from r): Gloo aborts the process from its
    // transport thread when a message is longer than the buffer posted for it (Note
    // [Ranks agree before Gloo runs a collective]; the counts vary by rank, so the
    // signature carries none).
    impl->Agree(
        {static_cast<int64_t>(Call::kAllToAll), static_cast<int64_t>(out.dtype()), 0, -1, -1});
    const size_t n = impl->ranks.size();
    std::vector<int64_t> mine(in_counts);
    mine.insert(mine.end(), out_counts.begin(), out_counts.end());
    std::vector<int64_t> all(2 * n * n);
    gloo::AllgatherOptions agree(impl->context);
    agree.setInput(mine.data(), mine.size());
    agree.setOutput(all.data(), all.size());
    agree.setTag(impl->next_tag++);
    agree.setTimeout(impl->timeout);
    gloo::allgather(agree);
    for (size_t r = 0; r < n; ++r) {
      for (size_t p = 0; p < n; ++p) {
        const int64_t sends = all[r * 2 * n + p], expects = all[p * 2 * n + n + r];
        if (sends != expects) {
          throw errors::InvalidArgument(
              "alltoall(): group rank ", r, " sends ", sends, " elements to group rank ", p,
              ", which expects ", expects,
              " from it (in_split_sizes and out_split_sizes must "
              "agree between every pair of ranks; every rank raises this)");
        }
      }
    }
    char dummy_in = 0, dummy_out = 0;
    char* ip = in.numel() ? static_cast<char*>(Ptr(in)) : &dummy_in;
    char* op = out.numel() ? static_cast<char*>(Ptr(out)) : &dummy_out;
    gloo::AlltoallvOptions opts(impl->context);
    opts.setInput(ip, bytes(in_counts));
    opts.setOutput(op, bytes(out_counts));
    opts.setTag(impl->next_tag++);
    opts.setTimeout(impl->timeout);
    gloo::alltoallv(opts);
  });
}

namespace {
constexpr uint64_t kP2PSlot = uint64_t{1} << 56;
}

// Point-to-point transfers take two slots each (Note [Point-to-point sizes] in p2p.cc),
// numbered per peer in issue order. The transfer completes when the peer posts its
// recv: Wait() waits for it on the caller's thread, so the worker can run the next
// operation.
WorkPtr ProcessGroup::Send(Tensor t, int dst) {
  CheckTensor(t, "send", "tensor");
  const int peer = GroupRank(dst, "send(): dst");
  if (peer == impl_->rank) throw errors::InvalidArgument("send(): dst ", dst, " is this rank");
  auto* impl = impl_.get();
  return impl->Enqueue("send", [impl, t, peer, dst](Work& w) {
    const uint64_t slot = kP2PSlot + 2 * impl->sends[peer]++;
    w.wait_extra_ = PostSend(impl->context, impl->in_flight, peer, slot, t, impl->timeout,
                             [impl, dst](const std::string& cause) {
                               return impl->Failure(StrCat("send to rank ", dst), cause);
                             });
  });
}

WorkPtr ProcessGroup::Recv(Tensor t, int src) {
  CheckTensor(t, "recv", "tensor");
  const int peer = GroupRank(src, "recv(): src");
  if (peer == impl_->rank) throw errors::InvalidArgument("recv(): src ", src, " is this rank");
  t.bump_inplace_version();
  auto* impl = impl_.get();
  return impl->Enqueue("recv", [impl, t, peer, src](Work& w) {
    const uint64_t slot = kP2PSlot + 2 * impl->recvs[peer]++;
    w.wait_extra_ = PostRecv(
        impl->context, impl->in_flight, peer, slot, t, src, impl->timeout,
        [impl, src](const std::string& cause) {
          return impl->Failure(StrCat("recv from rank ", src), cause);
        },
        [impl, peer, src]() -> PeerReceiver& { return impl->Receiver(peer, src); });
  });
}

WorkPtr ProcessGroup::Barrier() {
  auto* impl = impl_.get();
  return impl->Enqueue("barrier", [impl](Work&) {
    impl->Agree({static_cast<int64_t>(Call::kBarrier), 0, 0, -1, -1});
    gloo::BarrierOptions opts(impl->context);
    opts.setTag(impl->next_tag++);
    opts.setTimeout(impl->timeout);
    gloo::barrier(opts);
  });
}

WorkPtr ProcessGroup::Fence() {
  return impl_->Enqueue("wait", [](Work&) {});  // the worker runs operations in order
}

std::shared_ptr<ProcessGroup> ProcessGroup::NewGroup(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  if (ranks.empty()) throw errors::InvalidArgument("new_group(): ranks must not be empty");
  for (int r : ranks) GroupRank(r, "new_group(): ranks");
  const int id = ++*impl_->group_counter;
  auto it = std::find(ranks.begin(), ranks.end(), impl_->global_rank);
  if (it == ranks.end()) return nullptr;
  auto impl = std::make_unique<ProcessGroupImpl>();
  impl->id = id;
  impl->rank = static_cast<int>(it - ranks.begin());
  impl->global_rank = impl_->global_rank;
  impl->world_size = impl_->world_size;
  impl->ranks = std::move(ranks);
  impl->timeout = impl_->timeout;
  impl->store = impl_->store;
  impl->group_counter = impl_->group_counter;
  // The subgroup's own context (and pairs) on the world's device.
  impl->device = impl_->device;
  impl->context =
      std::make_shared<gloo::rendezvous::Context>(impl->rank, static_cast<int>(impl->ranks.size()));
  impl->context->setTimeout(impl->timeout);
  GlooStore base(impl->store);
  gloo::rendezvous::PrefixStore prefixed("group/" + std::to_string(id), base);
  try {
    impl->context->connectFullMesh(prefixed, impl->device);
  } catch (const std::exception& e) {
    throw impl->Failure("new_group", e.what());
  }
  impl->Start();
  return std::shared_ptr<ProcessGroup>(new ProcessGroup(std::move(impl)));
}

}  // namespace oar::distributed
