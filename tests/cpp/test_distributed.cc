// src/oar/distributed from C++: ranks as threads of this process (each with its
// own store connection and Gloo context, as separate processes would have).
// tests/python/test_distributed.py runs real processes.
#ifdef OAR_WITH_DISTRIBUTED
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <exception>
#include <thread>

#include "oar/oar.h"
#include "test_util.h"

namespace oar::distributed {
namespace {

using testing::Values;

int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

template <typename F>
void RunRanks(int n, F body) {
  const int port = FreePort();
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      try {
        Options o;
        o.rank = r;
        o.world_size = n;
        o.master_port = port;
        o.timeout = std::chrono::seconds(30);
        auto group = ProcessGroup::Init(o);
        body(std::move(group), r);  // the body holds the only reference
      } catch (...) {
        errors[r] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

TEST(Distributed, CollectivesAcrossThreeRanks) {
  RunRanks(3, [](std::shared_ptr<ProcessGroup> g, int r) {
    Tensor x = full({4}, r + 1.0, DType::kFloat64);
    g->AllReduce(x, ReduceOp::kSum)->Wait();
    EXPECT_EQ(Values(x), std::vector<double>(4, 6.0));
    Tensor m = full({2}, r, DType::kInt32);
    g->AllReduce(m, ReduceOp::kMax)->Wait();
    EXPECT_EQ(Values(m), std::vector<double>(2, 2.0));
    Tensor b = full({3}, r, DType::kFloat32);
    g->Broadcast(b, 1)->Wait();
    EXPECT_EQ(Values(b), std::vector<double>(3, 1.0));
    std::vector<Tensor> parts{zeros({2}), zeros({2}), zeros({2})};
    g->AllGather(parts, full({2}, 10.0 * r))->Wait();
    for (int k = 0; k < 3; ++k) EXPECT_EQ(Values(parts[k]), std::vector<double>(2, 10.0 * k));
    g->Barrier()->Wait();
    auto sub = g->NewGroup({0, 2});
    if (r == 1) {
      EXPECT_EQ(sub, nullptr);
    } else {
      ASSERT_NE(sub, nullptr);
      Tensor s = full({1}, r);
      sub->AllReduce(s, ReduceOp::kSum)->Wait();
      EXPECT_EQ(Values(s), std::vector<double>{2.0});
    }
  });
}

TEST(Distributed, ReduceGatherScatterAllToAllAcrossThreeRanks) {
  RunRanks(3, [](std::shared_ptr<ProcessGroup> g, int r) {
    Tensor x = full({2}, r + 1.0, DType::kFloat32);
    g->Reduce(x, 2, ReduceOp::kSum)->Wait();
    EXPECT_EQ(Values(x), std::vector<double>(2, r == 2 ? 6.0 : r + 1.0));  // others unchanged
    std::vector<Tensor> got;
    if (r == 0) got = {zeros({2}), zeros({2}), zeros({2})};
    g->Gather(got, full({2}, 5.0 * r), 0)->Wait();
    for (size_t k = 0; k < got.size(); ++k) {
      EXPECT_EQ(Values(got[k]), std::vector<double>(2, 5.0 * k));
    }
    std::vector<Tensor> parts;
    if (r == 1)
      parts = {full({3}, 7.0, DType::kUInt8), full({3}, 8.0, DType::kUInt8),
               full({3}, 9.0, DType::kUInt8)};
    Tensor mine = zeros({3}, DType::kUInt8);  // a dtype without a reduction moves as bytes
    g->Scatter(mine, parts, 1)->Wait();
    EXPECT_EQ(Values(mine), std::vector<double>(3, 7.0 + r));
    // Rank r sends k + 1 elements of value 10 r + k to rank k.
    std::vector<double> send;
    std::vector<int64_t> in_counts, out_counts(3, r + 1);
    for (int k = 0; k < 3; ++k) {
      in_counts.push_back(k + 1);
      for (int i = 0; i <= k; ++i) send.push_back(10.0 * r + k);
    }
    Tensor in = testing::Make(send, {static_cast<int64_t>(send.size())}, DType::kInt64);
    Tensor out = zeros({3 * (r + 1)}, DType::kInt64);
    g->AllToAll(out, out_counts, in, in_counts)->Wait();
    std::vector<double> want;
    for (int k = 0; k < 3; ++k) {
      for (int i = 0; i <= r; ++i) want.push_back(10.0 * k + r);
    }
    EXPECT_EQ(Values(out), want);
    // Counts that do not agree pairwise: every rank throws instead of Gloo aborting.
    Tensor a = zeros({3}), b = zeros({3});
    const std::vector<int64_t> bad =
        r == 0 ? std::vector<int64_t>{2, 1, 0} : std::vector<int64_t>{1, 1, 1};
    testing::Catch(
        [&] {
          g->AllToAll(a, bad, b, {1, 1, 1})->Wait();
        },
        ErrorCode::kInvalidArgument, {"alltoall()", "agree between every pair"});
  });
}

TEST(Distributed, RanksThatDisagreeAllRaiseInsteadOfGlooAborting) {
  RunRanks(2, [](std::shared_ptr<ProcessGroup> g, int r) {
    Tensor x = zeros({3 + r});
    testing::Catch([&] { g->AllReduce(x, ReduceOp::kSum)->Wait(); }, ErrorCode::kInvalidArgument,
                   {"all_reduce(): the ranks of the group disagree",
                    "rank 0 called all_reduce "
                    "with 3 elements",
                    "rank 1 called all_reduce with 4 elements"});
    Tensor y = full({2}, r + 1.0);
    g->AllReduce(y, ReduceOp::kSum)->Wait();  // the group still works
    EXPECT_EQ(Values(y), std::vector<double>(2, 3.0));
  });
}

TEST(Distributed, PointToPointChecksSizesAndDtypes) {
  RunRanks(2, [](std::shared_ptr<ProcessGroup> g, int r) {
    const int other = 1 - r;
    // Each rank posts its receive, then sends (the usual exchange): no deadlock.
    Tensor got = zeros({4});
    WorkPtr recv = g->Recv(got, other);
    g->Send(full({4}, r + 1.0), other)->Wait();
    recv->Wait();
    EXPECT_EQ(Values(got), std::vector<double>(4, other + 1.0));
    // Rank 0 sends 5 elements where rank 1 expects 3: rank 1 raises, naming both.
    if (r == 0) {
      g->Send(full({5}, 1.0), 1)->Wait();  // its data is drained: the send completes
    } else {
      testing::Catch([&] { g->Recv(zeros({3}), 0)->Wait(); }, ErrorCode::kInvalidArgument,
                     {"recv(): rank 0 sent 5 elements of float32 (20 bytes)",
                      "holds 3 elements of float32 (12 bytes)"});
    }
    // Same bytes, another dtype: raised too, not reinterpreted.
    if (r == 1) {
      g->Send(full({2}, 7.0, DType::kFloat64), 0)->Wait();
    } else {
      testing::Catch([&] { g->Recv(zeros({4}), 1)->Wait(); }, ErrorCode::kInvalidArgument,
                     {"sent 2 elements of float64 (16 bytes)", "4 elements of float32"});
    }
    // Past 64 KB the header travels alone and a thread posts the data's receive: the
    // exchange, a longer send, a large send to a small tensor and a small one to a
    // large tensor.
    constexpr int64_t kBig = 100000;
    Tensor big = zeros({kBig});
    WorkPtr big_recv = g->Recv(big, other);
    g->Send(full({kBig}, r + 3.0), other)->Wait();
    big_recv->Wait();
    EXPECT_EQ(Values(big), std::vector<double>(kBig, other + 3.0));
    const std::vector<std::pair<int64_t, int64_t>> wrong = {
        {kBig, kBig / 2}, {kBig, 3}, {3, kBig}};  // {sent, expected}
    for (const auto& [sent, expected] : wrong) {
      if (r == 0) {
        g->Send(zeros({sent}), 1)->Wait();
      } else {
        testing::Catch([&] { g->Recv(zeros({expected}), 0)->Wait(); },
                       ErrorCode::kInvalidArgument,
                       {StrCat("sent ", sent, " elements of float32"),
                        StrCat("holds ", expected, " elements of float32")});
      }
    }
    // Empty tensors, then the pair still works.
    Tensor none = zeros({0});
    if (r == 0) {
      g->Send(none, 1)->Wait();
    } else {
      g->Recv(none, 0)->Wait();
    }
    Tensor y = zeros({2});
    if (r == 0) {
      g->Send(full({2}, 9.0), 1)->Wait();
    } else {
      g->Recv(y, 0)->Wait();
      EXPECT_EQ(Values(y), std::vector<double>(2, 9.0));
    }
    g->Barrier()->Wait();
  });
}

TEST(Distributed, DestroyingAGroupEndsAPendingRecv) {
  std::atomic<bool> done{false};
  RunRanks(2, [&done](std::shared_ptr<ProcessGroup> g, int r) {
    g->Barrier()->Wait();
    if (r == 1) {
      // rank 0 never sends: a small and a large (receiver thread) recv are pending
      WorkPtr small = g->Recv(zeros({2}), 0);
      WorkPtr large = g->Recv(zeros({100000}), 0);
      g.reset();
      for (const WorkPtr& pending : {small, large}) {
        testing::Catch([&] { pending->Wait(); }, ErrorCode::kPreconditionNotMet,
                       {"recv(): the process group was destroyed"});
      }
      done = true;
    } else {
      while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(1));  // stay connected
    }
  });
}

TEST(Distributed, BadArgumentsNameTheCall) {
  RunRanks(1, [](std::shared_ptr<ProcessGroup> g, int) {
    testing::Catch([&] { g->AllReduce(full({2}, true, DType::kBool), ReduceOp::kSum); },
                   ErrorCode::kInvalidType, {"all_reduce()", "bool"});
    testing::Catch([&] { g->Broadcast(zeros({2}), 5); }, ErrorCode::kInvalidArgument,
                   {"broadcast(): src", "rank 5"});
  });
}

TEST(Distributed, DataParallelAveragesGradientsInBuckets) {
  RunRanks(2, [](std::shared_ptr<ProcessGroup> g, int r) {
    DefaultCPUGenerator().Seed(static_cast<uint64_t>(r + 7));  // different starts
    auto net = std::make_shared<nn::Sequential>();
    net->Add(std::make_shared<nn::Linear>(3, 4)).Add(std::make_shared<nn::Linear>(4, 2));
    ReducerOptions o;
    o.bucket_bytes = 16;  // one parameter per bucket
    o.first_bucket_bytes = 16;
    DataParallel model(net, g, o);
    // 16-byte buckets: [bias 2 (8 B) + weight 4x2], [bias 4], [weight 3x4].
    EXPECT_EQ(model.reducer().buckets().size(), 3u);
    // Every rank holds rank 0's parameters now; d(sum(out))/d(last bias) = batch rows.
    Tensor x = full({5, 3}, r + 1.0);
    sum(model(x)).backward();
    EXPECT_EQ(Values(net->Parameters()[3].grad()), std::vector<double>(2, 5.0));
    Tensor w = net->Parameters()[0];
    std::vector<Tensor> both{zeros(w.shape()), zeros(w.shape())};
    g->AllGather(both, w)->Wait();
    EXPECT_EQ(Values(both[0]), Values(both[1]));
    {
      auto guard = model.no_sync();
      sum(model(x)).backward();  // accumulates locally: 5 + 5
    }
    EXPECT_EQ(Values(net->Parameters()[3].grad()), std::vector<double>(2, 10.0));
  });
}

}  // namespace
}  // namespace oar::distributed
#endif  // OAR_WITH_DISTRIBUTED
