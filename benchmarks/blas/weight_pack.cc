// oar's packers (src/oar/kernels/cpu/weight_pack.h) against oneDNN's own reorder
// into the same layouts. Checks that each packer writes what the reorder writes.
//
// bfloat16 (Note [Packing bfloat16 weights for oneDNN] in matmul_onednn.cc):
// oneDNN's matmul given B plain against given B packed, with the pack's time added,
// in alternating rounds; the two products must be equal bit for bit. Columns: GFLOP/s
// of the plain call, ms of the reorder and of the pack, GFLOP/s of the packed call
// alone and with the pack, and plain time over pack + packed time (> 1: packing
// wins).
//
// float32 (Note [A recurrent weight is packed once] in matmul_onednn.h): the
// recurrent weights of an LSTM step, packed once per sequence; ms of the reorder and
// of the pack with B in cache and with the caches flushed first (a 64 MiB write), as
// in a model, where other layers ran since B was last touched.
//
//   g++ -O2 -std=c++20 -fopenmp -Isrc benchmarks/blas/weight_pack.cc -Lbuild -loar -ldnnl \
//     -Wl,-rpath,$PWD/build -o /tmp/weight_pack && OMP_NUM_THREADS=2 /tmp/weight_pack
//
// Each figure is the best of the calls in 0.4 s.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "oar/kernels/cpu/weight_pack.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace {

using dnnl::memory;
using tag = memory::format_tag;

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <typename F>
double Best(F f) {
  double best = 1e9;
  for (const double start = Now(); Now() - start < 0.4;) {
    const double t = Now();
    f();
    best = std::min(best, Now() - t);
  }
  return best;
}

struct Shape {
  int64_t m, k, n;
  bool b_transposed;
};

// The float32 table; false if the packer's layout differs from the reorder's.
bool Float32(const dnnl::engine& eng, dnnl::stream& s) {
  const Shape shapes[] = {{20, 512, 2048, true},
                          {20, 2048, 512, false},
                          {20, 1024, 4096, true},
                          {20, 4096, 1024, false}};
  std::puts("\nfloat32, m x k x n, B | reorder ms | pack ms | reorder ms, cold | pack ms, cold");
  std::vector<char> junk(64 << 20);
  for (const Shape& sh : shapes) {
    const auto [m, k, n, bt] = sh;
    const memory::desc a(memory::dims{m, k}, memory::data_type::f32, tag::ab);
    const memory::desc b(memory::dims{k, n}, memory::data_type::f32, bt ? tag::ba : tag::ab);
    const memory::desc c(memory::dims{m, n}, memory::data_type::f32, tag::ab);
    const memory::desc b_any(memory::dims{k, n}, memory::data_type::f32, tag::any);
    std::vector<float> bv(k * n);
    for (size_t i = 0; i < bv.size(); ++i) bv[i] = static_cast<float>(i % 977) * 0.001f;
    memory bm(b, eng, bv.data());
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b_any, c), eng);
    memory reordered(pd.weights_desc(), eng), ours(pd.weights_desc(), eng);
    const dnnl::reorder reorder(bm, reordered);
    auto* ours_data = static_cast<float*>(ours.get_data_handle());
    const int64_t sr = bt ? 1 : n, sc = bt ? k : 1;
    const auto pack = [&] { oar::onednn::PackF32(bv.data(), k, n, sr, sc, ours_data); };
    const auto run_reorder = [&] {
      reorder.execute(s, bm, reordered);
      s.wait();
    };
    run_reorder();
    pack();
    if (std::memcmp(reordered.get_data_handle(), ours_data, pd.weights_desc().get_size()) != 0) {
      std::printf("%ldx%ldx%ld: MISMATCH (the layout oneDNN asks for is not BA16a64b?)\n", long(m),
                  long(k), long(n));
      return false;
    }
    const auto cold = [&](auto f) {
      double best = 1e9;
      for (int i = 0; i < 20; ++i) {
        std::memset(junk.data(), i, junk.size());
        const double t = Now();
        f();
        best = std::min(best, Now() - t);
      }
      return best;
    };
    for (int round = 0; round < 2; ++round) {
      std::printf("%ld x %ld x %ld, %s | %.3f | %.3f | %.3f | %.3f\n", long(m), long(k), long(n),
                  bt ? "col" : "row", Best(run_reorder) * 1e3, Best(pack) * 1e3,
                  cold(run_reorder) * 1e3, cold(pack) * 1e3);
    }
  }
  return true;
}

}  // namespace

int main() {
  if (!oar::onednn::CanPack()) {
    std::puts("this CPU has no AVX512BW: nothing to measure");
    return 0;
  }
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(eng);
  const Shape shapes[] = {
      {512, 512, 512, false},    {640, 640, 640, false},   {768, 768, 768, false},
      {512, 1024, 1024, false},  {1024, 512, 1024, false}, {1024, 1024, 512, false},
      {1024, 1024, 1024, false}, {1024, 1024, 1024, true}, {2048, 2048, 2048, false},
      {2048, 2048, 2048, true},  {4096, 512, 512, false},  {128, 784, 512, false},
      {128, 512, 784, true}};
  std::puts(
      "m x k x n, B | plain GF/s | reorder ms | pack ms | packed GF/s | pack+packed GF/s | gain");
  for (const Shape& sh : shapes) {
    const auto [m, k, n, bt] = sh;
    const memory::desc a(memory::dims{m, k}, memory::data_type::bf16, tag::ab);
    const memory::desc b(memory::dims{k, n}, memory::data_type::bf16, bt ? tag::ba : tag::ab);
    const memory::desc c(memory::dims{m, n}, memory::data_type::bf16, tag::ab);
    const memory::desc b_any(memory::dims{k, n}, memory::data_type::bf16, tag::any);
    std::vector<uint16_t> av(m * k), bv(k * n), c1(m * n), c2(m * n);
    for (size_t i = 0; i < av.size(); ++i) av[i] = static_cast<uint16_t>(0x3f80 + i * 7 % 13);
    for (size_t i = 0; i < bv.size(); ++i) bv[i] = static_cast<uint16_t>(0x3f00 + i * 11 % 17);
    memory am(a, eng, av.data()), bm(b, eng, bv.data()), cm1(c, eng, c1.data()),
        cm2(c, eng, c2.data());
    const dnnl::matmul::primitive_desc plain_pd(dnnl::matmul::desc(a, b, c), eng);
    const dnnl::matmul::primitive_desc packed_pd(dnnl::matmul::desc(a, b_any, c), eng);
    const dnnl::matmul plain(plain_pd), packed(packed_pd);
    memory reordered(packed_pd.weights_desc(), eng), ours(packed_pd.weights_desc(), eng);
    const dnnl::reorder reorder(bm, reordered);
    auto* ours_data = static_cast<uint16_t*>(ours.get_data_handle());
    const int64_t sr = bt ? 1 : n, sc = bt ? k : 1;
    const auto pack = [&] { oar::onednn::PackBf16(bv.data(), k, n, sr, sc, ours_data); };
    reorder.execute(s, bm, reordered);
    s.wait();
    pack();
    const bool same_layout = std::memcmp(reordered.get_data_handle(), ours_data,
                                         packed_pd.weights_desc().get_size()) == 0;
    plain.execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm1}});
    packed.execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, ours}, {DNNL_ARG_DST, cm2}});
    s.wait();
    if (!same_layout || c1 != c2) {
      std::printf("%ldx%ldx%ld: MISMATCH (layout %d, product %d)\n", long(m), long(k), long(n),
                  int(same_layout), int(c1 == c2));
      return 1;
    }
    const double flop = 2.0 * m * k * n;
    for (int round = 0; round < 2; ++round) {
      const double t_plain = Best([&] {
        plain.execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm1}});
        s.wait();
      });
      const double t_reorder = Best([&] {
        reorder.execute(s, bm, reordered);
        s.wait();
      });
      const double t_pack = Best(pack);
      const double t_packed = Best([&] {
        packed.execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, ours}, {DNNL_ARG_DST, cm2}});
        s.wait();
      });
      const double t_both = Best([&] {
        pack();
        packed.execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, ours}, {DNNL_ARG_DST, cm2}});
        s.wait();
      });
      std::printf("%ld x %ld x %ld, %s | %.0f | %.3f | %.3f | %.0f | %.0f | %.3f\n", long(m),
                  long(k), long(n), bt ? "col" : "row", flop / t_plain / 1e9, t_reorder * 1e3,
                  t_pack * 1e3, flop / t_packed / 1e9, flop / t_both / 1e9, t_plain / t_both);
    }
  }
  return Float32(eng, s) ? 0 : 1;
}
