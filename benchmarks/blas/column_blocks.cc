// oneDNN's float32 matmul on products of more than 2048 columns, run whole against
// run as blocks of columns as oar runs them (Note [oneDNN's float32 products past 2048
// columns] in src/oar/kernels/cpu/matmul_onednn.h): blocks of equal width, a multiple
// of 64 columns and at most 2048, each block's B and C the columns of the whole
// operands, read and written in place. The last column says which way oar takes (it
// runs widths that are powers of two whole). Built and run by column_blocks.sh.
//
// Each shape's two ways run in turn in one process, 15 pairs after 5 warm-up calls of
// each, a sample being the mean of 2 calls; the table has each way's median sample and
// the median and quartiles of blocks / whole over the pairs, so a slow phase of a shared
// machine falls on both.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <dnnl.hpp>
#include <vector>

namespace {

using dnnl::memory;

struct Shape {
  int64_t m, n, k;
  bool ta;
  const char* what;
};

constexpr Shape kShapes[] = {
    {700, 10000, 512, false, "LSTM LM head (vocabulary 10000)"},
    {512, 10000, 700, true, "its weight gradient, A read transposed"},
    {512, 10000, 700, false, "the same with A copied transposed first (oar's way)"},
    {700, 3072, 512, false, "3072 columns"},
    {700, 5120, 512, false, "5120 columns"},
    {700, 6000, 512, false, "6000 columns"},
    {1024, 3072, 768, false, "BERT-base FFN up, 1024 tokens"},
    {768, 3072, 1024, true, "its weight gradient"},
    {128, 3072, 768, false, "the FFN up, 128 tokens"},
    {1024, 16384, 128, false, "a wide product with few sums"},
    {700, 6144, 512, false, "6144 columns"},
    {700, 12288, 512, false, "12288 columns"},
    {700, 8192, 512, false, "8192 columns, 700 rows"},
    {2048, 8192, 1024, false, "8192 columns, 2048 rows"},
    {256, 4096, 512, false, "4096 columns, 256 rows"},
    {64, 8192, 1024, false, "8192 columns, 64 rows"},
    {256, 32000, 512, false, "a 32000-word vocabulary, 256 rows"},
    {20, 10000, 512, false, "the LSTM head at one step (20 rows)"},
};

constexpr int64_t kMaxColumnBlock = 2048;

// ColumnBlockWidth in matmul_onednn.h, but blocks at powers of two too.
int64_t BlockWidth(int64_t n) {
  if (n <= kMaxColumnBlock) return n;
  const int64_t blocks = (n + kMaxColumnBlock - 1) / kMaxColumnBlock;
  return ((n + blocks - 1) / blocks + 63) / 64 * 64;
}

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

memory::desc Matrix(int64_t rows, int64_t cols, int64_t ld, bool trans) {
  return {{rows, cols}, memory::data_type::f32, trans ? memory::dims{1, ld} : memory::dims{ld, 1}};
}

// c = op(a) b with op(a) [m, k] and b [k, n], in blocks of `width` columns.
void Product(const dnnl::engine& eng, const Shape& s, const float* a, const float* b, float* c,
             int64_t width) {
  const memory::desc amd = Matrix(s.m, s.k, s.ta ? s.m : s.k, s.ta);
  dnnl::stream st(eng);
  for (int64_t j0 = 0; j0 < s.n; j0 += width) {
    const int64_t cols = std::min(width, s.n - j0);
    const memory::desc bmd = Matrix(s.k, cols, s.n, false), cmd = Matrix(s.m, cols, s.n, false);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(amd, bmd, cmd), eng);
    dnnl::matmul(pd).execute(st, {{DNNL_ARG_SRC, memory(amd, eng, const_cast<float*>(a))},
                                  {DNNL_ARG_WEIGHTS, memory(bmd, eng, const_cast<float*>(b) + j0)},
                                  {DNNL_ARG_DST, memory(cmd, eng, c + j0)}});
  }
  st.wait();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main() {
  const dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  std::printf(
      "| shape | M x N x K | whole ms | blocks ms | blocks / whole | quartiles | oar runs |\n");
  std::printf("| --- | --- | ---: | ---: | ---: | ---: | --- |\n");
  for (const Shape& s : kShapes) {
    std::vector<float> a(static_cast<size_t>(s.m * s.k), 0.5f),
        b(static_cast<size_t>(s.k * s.n), 0.25f), c(static_cast<size_t>(s.m * s.n));
    const int64_t width[2] = {s.n, BlockWidth(s.n)};
    for (int64_t w : width) {
      for (int i = 0; i < 5; ++i) Product(eng, s, a.data(), b.data(), c.data(), w);
    }
    std::vector<double> t[2], ratio;
    for (int pair = 0; pair < 15; ++pair) {
      double sample[2];
      for (int turn = 0; turn < 2; ++turn) {
        const int way = turn ^ (pair & 1);  // whole first in even pairs, blocks first in odd
        const double t0 = Now();
        for (int i = 0; i < 2; ++i) Product(eng, s, a.data(), b.data(), c.data(), width[way]);
        sample[way] = (Now() - t0) / 2;
        t[way].push_back(sample[way]);
      }
      ratio.push_back(sample[1] / sample[0]);
    }
    std::vector<double> q = ratio;
    std::sort(q.begin(), q.end());
    const bool power_of_two = (s.n & (s.n - 1)) == 0;
    std::printf("| %s | %lld x %lld x %lld%s | %.2f | %.2f | %.2f | %.2f-%.2f | %s |\n", s.what,
                static_cast<long long>(s.m), static_cast<long long>(s.n),
                static_cast<long long>(s.k), s.ta ? " (A^T)" : "", Median(t[0]) * 1e3,
                Median(t[1]) * 1e3, Median(ratio), q[3], q[11], power_of_two ? "whole" : "blocks");
    std::fflush(stdout);
  }
}
