// float32 GEMM on OpenBLAS (one cblas_sgemm per matrix of a batch, as oar's
// matmul loop called it) against oneDNN's matmul primitive (one primitive for
// the batch, descriptors made on every call as oar's kernels make them, so the
// primitive cache's lookup is included), for the shapes oar's models run:
// attention's batched scores, recurrent steps with few rows, the layers of the
// GPT decoder and the LSTM's vocabulary head with their gradients' transposes.
// The table picked the rule in Note [float32 GEMMs on oneDNN]
// (src/oar/kernels/cpu/matmul_onednn.h). Built and run by matmul_backends.sh.
//
// A second table: a recurrent layer's 35 steps with one weight, oneDNN reading
// the plain weight at every step against the weight reordered once into
// oneDNN's own layout (Note [A recurrent weight is packed once]). A third: A read
// transposed (the weight gradients of linear layers), by OpenBLAS, by oneDNN, and by
// oneDNN after a transposed copy of A. A fourth: plain products with few rows, every
// operand 64-byte aligned (as oar's tensors are) against 16 bytes past that, where
// oneDNN's AVX2 GEMM packs them.
//
// Each cell: the median of 7 samples of 20 calls after 5 warm-up calls.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <dnnl.hpp>
#include <utility>
#include <vector>

namespace {

using dnnl::memory;

struct Shape {
  int batch, m, n, k;
  bool ta, tb;
  const char* what;
};

constexpr Shape kShapes[] = {
    {32, 128, 128, 64, false, true, "attention scores, GPT b8 (q k^T)"},
    {32, 128, 64, 128, false, false, "attention output, GPT b8 (w v)"},
    {1, 20, 2048, 512, false, true, "LSTM step, batch 20 (h w_hh^T)"},
    {1, 20, 512, 2048, false, false, "LSTM step gradient (dg w_hh)"},
    {1, 700, 10000, 512, false, false, "LSTM head"},
    {1, 700, 512, 10000, false, true, "LSTM head, input gradient"},
    {1, 512, 10000, 700, true, false, "LSTM head, weight gradient"},
    {1, 512, 8192, 700, true, false, "the same with 8192 columns"},
    {1, 1024, 768, 256, false, false, "GPT qkv projections"},
    {1, 1024, 256, 1024, false, true, "GPT FFN, input gradient"},
    {1, 256, 1024, 1024, true, false, "GPT FFN, weight gradient"},
    {1, 128, 256, 256, false, false, "GPT b1 attention projection"},
    {1, 128, 1024, 256, false, false, "GPT b1 FFN up"},
    {1, 128, 256, 1024, false, false, "GPT b1 FFN down"},
    {1, 128, 1000, 256, false, false, "GPT b1 head"},
    {1, 8, 1000, 512, false, false, "classifier head, batch 8"},
    {1, 2048, 2048, 2048, false, false, "square 2048"},
    {1, 128, 128, 128, false, false, "square 128"},
    {1, 96, 96, 96, false, false, "square 96"},
    {1, 64, 64, 64, false, false, "square 64"},
};

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <typename F>
double MedianMicros(F f) {
  for (int i = 0; i < 5; ++i) f();
  std::vector<double> v;
  for (int r = 0; r < 7; ++r) {
    const double t0 = Now();
    for (int i = 0; i < 20; ++i) f();
    v.push_back((Now() - t0) / 20);
  }
  std::sort(v.begin(), v.end());
  return v[3] * 1e6;
}

memory::desc Desc(int batch, int rows, int cols, bool trans) {
  // op(t) is [rows, cols]; t itself is stored row-major as [cols, rows] when trans.
  const memory::dim r = rows, c = cols, size = memory::dim{rows} * cols;
  return {{batch, r, c},
          memory::data_type::f32,
          trans ? memory::dims{size, 1, r} : memory::dims{size, c, 1}};
}

}  // namespace

int main() {
  const dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  std::printf("| shape | batch x M x N x K | OpenBLAS us | oneDNN us | oneDNN / OpenBLAS |\n");
  std::printf("| --- | --- | ---: | ---: | ---: |\n");
  for (const Shape& s : kShapes) {
    const size_t sa = size_t(s.m) * s.k, sb = size_t(s.k) * s.n, sc = size_t(s.m) * s.n;
    std::vector<float> a(s.batch * sa, 1.0f), b(s.batch * sb, 0.5f), c(s.batch * sc);
    const double blas = MedianMicros([&] {
      for (int i = 0; i < s.batch; ++i) {
        cblas_sgemm(CblasRowMajor, s.ta ? CblasTrans : CblasNoTrans,
                    s.tb ? CblasTrans : CblasNoTrans, s.m, s.n, s.k, 1.0f, a.data() + i * sa,
                    s.ta ? s.m : s.k, b.data() + i * sb, s.tb ? s.k : s.n, 0.0f, c.data() + i * sc,
                    s.n);
      }
    });
    const double onednn = MedianMicros([&] {
      const memory::desc ad = Desc(s.batch, s.m, s.k, s.ta), bd = Desc(s.batch, s.k, s.n, s.tb),
                         cd = Desc(s.batch, s.m, s.n, false);
      const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(ad, bd, cd), eng);
      dnnl::stream st(eng);
      dnnl::matmul(pd).execute(st, {{DNNL_ARG_SRC, memory(ad, eng, a.data())},
                                    {DNNL_ARG_WEIGHTS, memory(bd, eng, b.data())},
                                    {DNNL_ARG_DST, memory(cd, eng, c.data())}});
      st.wait();
    });
    std::printf("| %s | %d x %d x %d x %d%s%s | %.1f | %.1f | %.2f |\n", s.what, s.batch, s.m, s.n,
                s.k, s.ta ? " (A^T)" : "", s.tb ? " (B^T)" : "", blas, onednn, onednn / blas);
  }
  std::printf("\n| 35 recurrent steps | M x N x K | plain weight us | packed once us | ratio |\n");
  std::printf("| --- | --- | ---: | ---: | ---: |\n");
  constexpr Shape kSteps[] = {
      {1, 20, 2048, 512, false, true, "LSTM forward (h w_hh^T)"},
      {1, 20, 512, 2048, false, false, "LSTM backward (dg w_hh)"},
      {1, 20, 1536, 512, false, true, "GRU forward"},
  };
  for (const Shape& s : kSteps) {
    std::vector<float> a(size_t(s.m) * s.k, 1.0f), b(size_t(s.k) * s.n, 0.5f), c(size_t(s.m) * s.n);
    const memory::desc ad = Desc(1, s.m, s.k, false), bd = Desc(1, s.k, s.n, s.tb),
                       cd = Desc(1, s.m, s.n, false);
    const memory::desc any({1, s.k, s.n}, memory::data_type::f32, memory::format_tag::any);
    dnnl::stream st(eng);
    const memory am(ad, eng, a.data()), bm(bd, eng, b.data()), cm(cd, eng, c.data());
    const double plain = MedianMicros([&] {
      const dnnl::matmul prim(dnnl::matmul::primitive_desc(dnnl::matmul::desc(ad, bd, cd), eng));
      for (int i = 0; i < 35; ++i) {
        prim.execute(st, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
        st.wait();
      }
    });
    const double packed = MedianMicros([&] {
      const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(ad, any, cd), eng);
      memory bp(pd.weights_desc(), eng);
      memory src = bm;
      dnnl::reorder(src, bp).execute(st, src, bp);
      const dnnl::matmul prim(pd);
      for (int i = 0; i < 35; ++i) {
        prim.execute(st, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bp}, {DNNL_ARG_DST, cm}});
        st.wait();
      }
    });
    std::printf("| %s | %d x %d x %d%s | %.1f | %.1f | %.2f |\n", s.what, s.m, s.n, s.k,
                s.tb ? " (B^T)" : "", plain, packed, packed / plain);
  }
  std::printf(
      "\n| A read transposed | M x N x K | OpenBLAS us | oneDNN us | oneDNN, A copied us |"
      " oneDNN / OpenBLAS | copied / OpenBLAS |\n");
  std::printf("| --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
  constexpr Shape kTransposedA[] = {
      {1, 512, 10000, 700, true, false, "LSTM head, weight gradient"},
      {1, 512, 8192, 700, true, false, "the same with 8192 columns"},
      {1, 1024, 16384, 128, true, false, "a wide weight gradient"},
      {1, 256, 1024, 1024, true, false, "GPT FFN, weight gradient"},
      {1, 1024, 256, 1024, true, false, "GPT FFN down, weight gradient"},
      {1, 256, 768, 1024, true, false, "GPT qkv, weight gradient"},
      {1, 256, 256, 1024, true, false, "GPT attention projection, weight gradient"},
      {1, 2048, 256, 700, true, false, "LSTM layer 1, input weight gradient"},
      {1, 2048, 512, 700, true, false, "LSTM layer 2 and recurrent weight gradients"},
      {1, 320, 49, 1280, true, false, "1x1 convolution's input gradient, 7x7"},
      {1, 96, 196, 576, true, false, "1x1 convolution's input gradient, 14x14"},
      {1, 128, 128, 128, true, false, "few sums: 128^3"},
      {1, 512, 1000, 8, true, false, "classifier head at batch 8, weight gradient"},
  };
  for (const Shape& s : kTransposedA) {
    std::vector<float> a(size_t(s.m) * s.k, 1.0f), at(a.size()), b(size_t(s.k) * s.n, 0.5f),
        c(size_t(s.m) * s.n);
    const double blas = MedianMicros([&] {
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, s.m, s.n, s.k, 1.0f, a.data(), s.m,
                  b.data(), s.n, 0.0f, c.data(), s.n);
    });
    const auto product = [&](const memory::desc& ad, float* ap) {
      const memory::desc bd = Desc(1, s.k, s.n, false), cd = Desc(1, s.m, s.n, false);
      const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(ad, bd, cd), eng);
      dnnl::stream st(eng);
      dnnl::matmul(pd).execute(st, {{DNNL_ARG_SRC, memory(ad, eng, ap)},
                                    {DNNL_ARG_WEIGHTS, memory(bd, eng, b.data())},
                                    {DNNL_ARG_DST, memory(cd, eng, c.data())}});
      st.wait();
    };
    const double read = MedianMicros([&] { product(Desc(1, s.m, s.k, true), a.data()); });
    // As oar's GEMM does it (Note [float32 GEMMs on oneDNN]): a reorder into a plain
    // copy of op(A), then the plain product; the copy's time included.
    const double copied = MedianMicros([&] {
      const memory::desc plain = Desc(1, s.m, s.k, false);
      memory src(Desc(1, s.m, s.k, true), eng, a.data()), dst(plain, eng, at.data());
      dnnl::stream st(eng);
      dnnl::reorder(src, dst).execute(st, src, dst);
      st.wait();
      product(plain, at.data());
    });
    std::printf("| %s | %d x %d x %d | %.1f | %.1f | %.1f | %.2f | %.2f |\n", s.what, s.m, s.n, s.k,
                blas, read, copied, read / blas, copied / blas);
  }
  std::printf(
      "\n| aligned operands | M x N x K | OpenBLAS us | oneDNN, 64-byte aligned us |"
      " oneDNN, 16 bytes past us | aligned / OpenBLAS | 16 past / OpenBLAS |\n");
  std::printf("| --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
  constexpr Shape kAligned[] = {
      {1, 128, 1024, 256, false, false, "GPT b1 FFN up"},
      {1, 128, 512, 256, false, false, "512 columns"},
      {1, 128, 2048, 256, false, false, "2048 columns"},
      {1, 128, 1000, 256, false, false, "GPT b1 head, 1000 columns"},
      {1, 128, 768, 256, false, false, "GPT b1 qkv, 768 columns"},
      {1, 64, 1024, 1024, false, false, "64 rows"},
      {1, 300, 1024, 256, false, false, "300 rows"},
      {1, 1024, 1024, 256, false, false, "GPT b8 FFN up, 1024 rows"},
      {1, 20, 512, 2048, false, false, "LSTM step gradient (dg w_hh)"},
  };
  for (const Shape& s : kAligned) {
    const size_t sa = size_t(s.m) * s.k, sb = size_t(s.k) * s.n, sc = size_t(s.m) * s.n;
    // One buffer per operand, 64 bytes longer than it, its start 4 KiB aligned.
    const auto buffer = [](size_t n, float v) {
      std::vector<float> b(n + 16 + 1024, v);
      float* p = b.data();
      while (reinterpret_cast<uintptr_t>(p) % 4096 != 0) ++p;
      return std::pair{std::move(b), p - b.data()};
    };
    auto [av, ai] = buffer(sa, 1.0f);
    auto [bv, bi] = buffer(sb, 0.5f);
    auto [cv, ci] = buffer(sc, 0.0f);
    const auto run = [&](size_t shift) {  // shift in floats past the aligned start
      float *a = av.data() + ai + shift, *b = bv.data() + bi + shift, *c = cv.data() + ci + shift;
      return MedianMicros([&] {
        const memory::desc ad = Desc(1, s.m, s.k, false), bd = Desc(1, s.k, s.n, false),
                           cd = Desc(1, s.m, s.n, false);
        const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(ad, bd, cd), eng);
        dnnl::stream st(eng);
        dnnl::matmul(pd).execute(st, {{DNNL_ARG_SRC, memory(ad, eng, a)},
                                      {DNNL_ARG_WEIGHTS, memory(bd, eng, b)},
                                      {DNNL_ARG_DST, memory(cd, eng, c)}});
        st.wait();
      });
    };
    const double blas = MedianMicros([&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s.m, s.n, s.k, 1.0f, av.data() + ai,
                  s.k, bv.data() + bi, s.n, 0.0f, cv.data() + ci, s.n);
    });
    const double aligned = run(0), shifted = run(4);
    std::printf("| %s | %d x %d x %d | %.1f | %.1f | %.1f | %.2f | %.2f |\n", s.what, s.m, s.n, s.k,
                blas, aligned, shifted, aligned / blas, shifted / blas);
  }
}
