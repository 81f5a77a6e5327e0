// Gloo's all-reduce called directly (no oar): the engine's own speed, for
// benchmarks/distributed.py. Usage: oar_bench_gloo_allreduce RANK SIZE STORE_DIR REPS;
// rank 0 prints "MB median_seconds" per size. Rendezvous through a FileStore.
#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s RANK SIZE STORE_DIR REPS\n", argv[0]);
    return 2;
  }
  const int rank = std::atoi(argv[1]), size = std::atoi(argv[2]), reps = std::atoi(argv[4]);
  gloo::rendezvous::FileStore store(argv[3]);
  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  auto dev = gloo::transport::tcp::CreateDevice(attr);
  auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, size);
  ctx->connectFullMesh(store, dev);
  for (size_t mb : {1, 4, 16, 64}) {
    std::vector<float> x(mb * 1024 * 1024 / 4, 1.0f);
    auto once = [&] {
      gloo::AllreduceOptions o(ctx);
      o.setOutput(x.data(), x.size());
      o.setReduceFunction(
          static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
      gloo::allreduce(o);
    };
    once();
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      once();
      t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
    if (rank == 0) std::printf("%zu %.6f\n", mb, t[t.size() / 2]);
  }
  return 0;
}
