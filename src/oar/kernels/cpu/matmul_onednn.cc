// bfloat16 (and, where the CPU has it, float16) GEMM on oneDNN's matmul
// primitive (matmul_onednn.h). oneDNN reads strided operands itself, so
// transposed and sliced views cost no copy, and it broadcasts batch dims, so a
// batched product is one primitive. Primitives are created per call: oneDNN's
// primitive cache makes a repeat of the same shapes and strides cheap. It runs
// on its OpenMP runtime with omp_get_max_threads() threads, as the convolutions
// do (conv_onednn.cc).
//
// Note [Packing bfloat16 weights for oneDNN]
// Given B in plain layout, oneDNN 2.6's BRGEMM matmul copies it into its
// blocked pair layout as it goes (jit_brgemm_matmul_copy_b): perf put 8% of a
// 2048^3 bfloat16 product's time in that copy. Given B already in that layout
// (a weights descriptor of format `any`), it runs without the copy. PackBf16
// (weight_pack.h) writes the layout in one pass, 2.8-11x faster than oneDNN's own
// reorder primitive. With M >= 1024 the pack plus the product took up to 14%
// less time than the plain call (2048^3: 4-8%); with M = 512 it was up to 5%
// slower, and with M = 128 and a transposed B (an MLP's input gradient) too,
// where oneDNN's copy is cheap against the product (benchmarks/blas/weight_pack.cc;
// docs/amp.md). So only products with M >= 1024 and K * N >= 2^18 are packed.
// The layout oneDNN asks for is compared with the one the packer writes; any
// other (another CPU, another oneDNN) keeps the plain call.
#include "oar/kernels/cpu/matmul_onednn.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/onednn_util.h"
#include "oar/kernels/cpu/weight_pack.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/infer_meta.h"

namespace oar::onednn {
namespace {

using dnnl::memory;

// A dim of size 1 may carry any stride in oar; oneDNN checks every stride, so
// such dims get the extent of the dims inside them.
memory::dims SafeStrides(const memory::dims& dims, memory::dims strides) {
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] != 1) continue;
    int64_t extent = 1;
    for (size_t i = d + 1; i < dims.size(); ++i) {
      extent = std::max(extent, (dims[i] - 1) * strides[i] + 1);
    }
    strides[d] = extent;
  }
  return strides;
}

// Whether oneDNN's optimised kernels can read t in place: one of the two last
// dims has a unit stride, and every dim longer than 1 a positive stride (a
// memory descriptor cannot express a flipped view's negative stride or an
// expanded view's zero stride).
bool Readable(const DenseTensor& t) {
  const int64_t nd = t.ndim();
  for (int64_t d = 0; d < nd; ++d) {
    if (t.dims()[d] > 1 && t.strides()[d] <= 0) return false;
  }
  const int64_t r = t.dims()[nd - 2], c = t.dims()[nd - 1];
  const int64_t sr = t.strides()[nd - 2], sc = t.strides()[nd - 1];
  return sc == 1 || sr == 1 || r == 1 || c == 1;
}

// op(t) as a [batch..., rows, cols] descriptor of rank `rank`: leading dims of
// size 1 where t has fewer batch dims (oneDNN broadcasts those), a transpose as
// swapped strides of the last two dims.
memory::desc OperandDesc(const DenseTensor& t, bool trans, size_t rank) {
  const int64_t nd = t.ndim();
  memory::dims dims(rank, 1), strides(rank, 1);
  const size_t lead = rank - static_cast<size_t>(nd);
  for (int64_t d = 0; d < nd; ++d) {
    dims[lead + d] = t.dims()[d];
    strides[lead + d] = t.strides()[d];
  }
  if (trans) {
    std::swap(dims[rank - 2], dims[rank - 1]);
    std::swap(strides[rank - 2], strides[rank - 1]);
  }
  return {dims, DataType(t.dtype()), SafeStrides(dims, strides)};
}

memory::dims PlainStrides(const memory::dims& dims) {
  memory::dims s(dims.size(), 1);
  for (size_t i = dims.size() - 1; i-- > 0;) s[i] = s[i + 1] * std::max<int64_t>(dims[i + 1], 1);
  return SafeStrides(dims, s);
}

dnnl::matmul::primitive_desc MakePd(const memory::desc& a, const memory::desc& b,
                                    const memory::desc* bias, const memory::desc& c,
                                    const dnnl::primitive_attr& attr = {}) {
  if (bias != nullptr) return {dnnl::matmul::desc(a, b, *bias, c), attr, Engine()};
  return {dnnl::matmul::desc(a, b, c), attr, Engine()};
}

// Primitives that several threads run at once bring their own scratchpad
// (scratchpad_mode::user): this thread's, grown as needed.
dnnl::primitive_attr UserScratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}
char* ThreadScratchpad(size_t bytes) {
  thread_local std::vector<char> buffer;
  if (buffer.size() < bytes) buffer.resize(bytes);
  return buffer.data();
}

// A small product in `dtype` on plain layouts: what the per-call primitives
// will be like, for HasFastMatmul.
bool ProbeFast(DType dtype) {
  try {
    const memory::dims d = {64, 64};
    const memory::desc md(d, DataType(dtype), memory::dims{64, 1});
    return IsOptimized(MakePd(md, md, nullptr, md));
  } catch (const dnnl::error&) {
    return false;  // no implementation at all for this dtype
  }
}

// The products packed: M and K * N at least these.
constexpr int64_t kMinPackedRows = 1024;
constexpr int64_t kMinPackedWeight = int64_t{1} << 18;

// Whether the 2-D product of a [m, k] and b [k, n] takes the packed route.
bool WantsPacked(const memory::desc& a, const memory::desc& b, const DenseTensor& y) {
  if (a.dims().size() != 2 || y.dtype() != DType::kBFloat16 || !CanPack()) return false;
  const int64_t m = a.dims()[0], k = b.dims()[0], n = b.dims()[1];
  const auto& s = b.data.format_desc.blocking.strides;
  return m >= kMinPackedRows && k * n >= kMinPackedWeight && (s[0] == 1 || s[1] == 1);
}

// Whether `w` is a [k, n] operand of `dtype` in one of the layouts weight_pack.h writes:
// blocks of rows x cols, block (kb, nb) at (nb * Kp / rows + kb) * rows * cols, and inside
// a block the inner blocks `inner` ({size, dim}, outermost first).
bool IsPackLayout(const memory::desc& w, int64_t k, int64_t n, dnnl_data_type_t dtype, int64_t rows,
                  int64_t cols, std::initializer_list<std::pair<int64_t, int>> inner) {
  const dnnl_memory_desc_t& d = w.data;
  if (d.format_kind != dnnl_blocked || d.ndims != 2 || d.offset0 != 0 || d.data_type != dtype) {
    return false;
  }
  const auto& blk = d.format_desc.blocking;
  if (blk.inner_nblks != static_cast<int>(inner.size())) return false;
  int i = 0;
  for (const auto& [size, dim] : inner) {
    if (blk.inner_blks[i] != size || blk.inner_idxs[i] != dim) return false;
    ++i;
  }
  const int64_t kp = (k + rows - 1) / rows * rows, np = (n + cols - 1) / cols * cols;
  return d.padded_dims[0] == kp && d.padded_dims[1] == np && blk.strides[0] == rows * cols &&
         blk.strides[1] == kp * cols &&
         w.get_size() == static_cast<size_t>(kp * np) * memory::data_type_size(w.data_type());
}

// PackBf16's layout (BA16a64b2a) and PackF32's (BA16a64b).
bool IsBf16PackLayout(const memory::desc& w, int64_t k, int64_t n) {
  return IsPackLayout(w, k, n, dnnl_bf16, kPackRows, kPackCols,
                      {{kPackRows / 2, 0}, {kPackCols, 1}, {2, 0}});
}
bool IsF32PackLayout(const memory::desc& w, int64_t k, int64_t n) {
  return IsPackLayout(w, k, n, dnnl_f32, kF32PackRows, kF32PackCols,
                      {{kF32PackRows, 0}, {kF32PackCols, 1}});
}

// Whether x's batch dims and rows [..., M, K] are one dim of rows: each batch dim's
// stride the rows inside it times the row stride (a dim of size 1, or of one row,
// says nothing about the stride). If so, *rows and *row_stride are that dim's.
bool FoldsRows(const DenseTensor& x, int64_t* rows, int64_t* row_stride) {
  const int64_t nd = x.ndim();
  int64_t r = x.dims()[nd - 2], rs = x.strides()[nd - 2];
  for (int64_t d = nd - 3; d >= 0; --d) {
    if (x.dims()[d] == 1) continue;
    if (r == 1) {
      rs = x.strides()[d];
    } else if (x.strides()[d] != r * rs) {
      return false;
    }
    r *= x.dims()[d];
  }
  *rows = r;
  *row_stride = rs;
  return true;
}

// Note [A batch times a weight is one product]
// x of [batch..., M, K] times a 2-D y is one product over all of x's rows when x's batch
// dims step through memory as its rows do (a contiguous activation). oneDNN finds that
// itself for float32; the packed bfloat16 route (Note [Packing bfloat16 weights for
// oneDNN]) needs the product 2-D, so FoldBatch makes it so. When the batch dims do not
// step that way (a recurrent layer's output [B, T, H] over memory laid out [T, B, H], the
// input of a vocabulary head), oneDNN runs one product per batch and reads the whole
// weight for each. x is then copied contiguous first where the weight is more than twice
// as wide as a batch is tall: the copy (2 M K per batch) costs less than reading the
// weight (K N) once more. The LSTM model's head, [35, 20, 512] over [20, 35, 512]
// memory times [512, 10000], float32 on two Zen 4 threads: 48-51 ms as 35 products,
// 34 ms copied (the copy itself about 0.2 ms).
DenseTensor FoldBatch(const DenseTensor& x_in, bool tx, const DenseTensor& y) {
  const int64_t nd = x_in.ndim();
  if (tx || nd <= 2 || y.ndim() != 2) return x_in;
  const int64_t m = x_in.dims()[nd - 2], k = x_in.dims()[nd - 1], n = y.dims()[1];
  DenseTensor x = x_in;
  int64_t rows = 0, row_stride = 0;
  if (!FoldsRows(x, &rows, &row_stride)) {
    if (n <= 2 * m) return x;
    x = funcs::Contiguous(x);
    FoldsRows(x, &rows, &row_stride);  // a contiguous x always folds
  }
  if (y.dtype() != DType::kBFloat16 || !CanPack() || rows < kMinPackedRows ||
      k * n < kMinPackedWeight) {
    return x;
  }
  DenseTensorMeta meta = x.meta();
  meta.dims = DDim{rows, k};
  meta.strides = DDim{row_stride, x.strides()[nd - 1]};
  return DenseTensor(x.Holder(), meta);
}

// t with its last two dims swapped, contiguous: op(t) of a transposed operand as stored.
DenseTensor TransposedCopy(const DenseTensor& t) {
  DenseTensorMeta meta = t.meta();
  const size_t nd = meta.dims.size();
  std::swap(meta.dims[nd - 2], meta.dims[nd - 1]);
  std::swap(meta.strides[nd - 2], meta.strides[nd - 1]);
  return funcs::Contiguous(DenseTensor(t.Holder(), meta));
}

// op(t) for a row-major float32 matrix t with leading dimension ld, where op(t) is
// [rows, cols]: t is [cols, rows] when trans.
memory::desc MatrixDesc(int64_t rows, int64_t cols, int64_t ld, bool trans) {
  const memory::dims d = {rows, cols};
  return {d, memory::data_type::f32,
          SafeStrides(d, trans ? memory::dims{1, ld} : memory::dims{ld, 1})};
}

// c = product + beta * c: a sum post-op unless beta is 0.
dnnl::primitive_attr SumAttr(float beta) {
  dnnl::primitive_attr attr;
  if (beta != 0.0f) {
    dnnl::post_ops ops;
    ops.append_sum(beta);
    attr.set_post_ops(ops);
  }
  return attr;
}

// Note [Float32 products of a model's size run on oar's pool]
// oneDNN runs a product on OpenMP's team, and between two products a model runs its
// other ops on oar's pool (core/thread_pool.cc). oar lets idle OpenMP threads spin
// only briefly (GOMP_SPINCOUNT=1000, python/oar/__init__.py: a long spin makes a
// loaded machine many times slower), so by the next product they sleep, and each
// product first waits for them to wake, while oar's own workers still spin on the
// same cores. The GPT decoder's batch-1 forward (25 linear layers of 128 rows and 8
// batched attention products) took 10.4 ms against 8.4 with a 30-times longer spin
// (Xeon with AVX-512, two threads). So a float32 product of up to kMaxPoolWork
// multiply-adds with at least two units (one per matrix of the batch and block of
// PoolColumns(n) output columns) runs on oar's pool instead: one oneDNN product per
// unit, each on one thread (Note [Libraries inside a chunk run on one thread] in
// core/thread_pool.cc). The units do not depend on the thread count, nor then the
// result. The GPT forward then took 8.0-8.4 ms against 10.3-10.9 (three alternating
// rounds, benchmarks/models.py's worker); the training rows of GPT, the LSTM and the
// demo CNN did not move. Larger products keep oneDNN's threading: with 2^28
// multiply-adds (64 x 4096 x 1024) the blocks took 13% longer.
// A unit's columns: 128, or 256 where that still makes four blocks. Units of 128
// columns of a 128 x 256 x 1024 product took 325 us, of 256 293-301, of 512 285-296;
// a 128 x 1024 x 256 one took 265-276 us in two units of 128 columns and 295-303 in one
// (oneDNN's own threading). The width depends on the shape alone.
constexpr int64_t kPoolColumns = 128;
constexpr int64_t PoolColumns(int64_t n) {
  return n >= 8 * kPoolColumns ? 2 * kPoolColumns : kPoolColumns;
}
constexpr int64_t kMaxPoolWork = int64_t{1} << 27;

// The pool's units of c: one per matrix of the batch and block of columns.
int64_t PoolUnits(const memory::desc& c) {
  const memory::dims d = c.dims();
  int64_t matrices = 1;
  for (size_t i = 0; i + 2 < d.size(); ++i) matrices *= d[i];
  const int64_t w = PoolColumns(d.back());
  return matrices * ((d.back() + w - 1) / w);
}

bool RunsOnPool(const memory::desc& a, const memory::desc& b, const memory::desc& c) {
  if (a.data_type() != memory::data_type::f32 || b.data_type() != memory::data_type::f32 ||
      c.data_type() != memory::data_type::f32) {
    return false;
  }
  const memory::dims d = c.dims();
  const int64_t k = a.dims().back();
  int64_t work = k;
  for (int64_t v : d) work *= v;
  return PoolUnits(c) >= 2 && work <= kMaxPoolWork;
}

// One primitive for the full blocks of columns and one for a short last block, made on
// one OpenMP thread (oneDNN fixes the thread count when it makes them), each unit then
// run on one thread, also where the loop runs inline (below the parallel threshold),
// so the result is the same either way.
struct UnitPrimitive {
  memory::desc b, c, bias;
  dnnl::matmul prim;
  memory::desc scratchpad;
};
struct PoolPrimitives {
  UnitPrimitive full;
  std::optional<UnitPrimitive> tail;
};

// What the primitives depend on: the shape and the strides of the operands' matrices
// (bias -1, -1 when there is none).
struct PoolPrimitivesKey {
  int64_t m, n, k;
  std::pair<int64_t, int64_t> a, b, c, bias;
  bool operator==(const PoolPrimitivesKey&) const = default;
};

// Note [Pooled products keep their primitives]
// Making the two primitives' descriptors took about a tenth of a pooled product's
// time: oneDNN's primitive cache spares making the primitive, not its descriptor, and
// that walks oneDNN's implementations each time (perf: 6% of a 128 x 256 x 1024
// linear's samples in libdnnl outside its kernels). A model repeats a handful of
// shapes, so each thread keeps the last kPoolPrimitivesCached shapes' primitives. With
// them and the wider units of PoolColumns, the GPT decoder's batch-1 forward took
// 5.5-6.3 ms against 6.5-7.1 (three alternating rounds, Xeon with AVX-512).
constexpr size_t kPoolPrimitivesCached = 16;

struct PoolPrimitivesCache {
  std::vector<std::pair<PoolPrimitivesKey, std::unique_ptr<PoolPrimitives>>>
      entries;  // newest last
};
thread_local PoolPrimitivesCache tl_pool_primitives;

const PoolPrimitives* CachedPoolPrimitives(const PoolPrimitivesKey& key) {
  auto& e = tl_pool_primitives.entries;
  for (size_t i = e.size(); i-- > 0;) {
    if (e[i].first == key) {  // moved to the newest end
      const auto at = e.begin() + static_cast<std::ptrdiff_t>(i);
      std::rotate(at, at + 1, e.end());
      return e.back().second.get();
    }
  }
  return nullptr;
}

const PoolPrimitives* CachePoolPrimitives(const PoolPrimitivesKey& key, PoolPrimitives units) {
  auto& e = tl_pool_primitives.entries;
  if (e.size() == kPoolPrimitivesCached) e.erase(e.begin());
  e.emplace_back(key, std::make_unique<PoolPrimitives>(std::move(units)));
  return e.back().second.get();
}

// The stride of md's last dim: a column's step along a row, for a float32 operand.
int64_t ColumnStride(const memory::desc& md) {
  const int64_t rank = md.data.ndims;
  return md.data.format_desc.blocking.strides[rank - 1];
}

// A float32 memory of md at element `off` of p. oneDNN never writes to an input; the
// cast only satisfies its signature.
memory FloatAt(const memory::desc& md, const void* p, int64_t off) {
  return memory(md, Engine(), const_cast<float*>(static_cast<const float*>(p)) + off);
}

// Note [A pooled product's memory objects are made once a thread]
// A unit of a pooled product is small (one of attention's 128 x 128 x 64 scores takes
// 10-15 us on one thread), and making its four or five oneDNN memory objects and their
// argument map for every unit took about a tenth of it. So each thread makes them at its
// first unit of each primitive in a call and points them at each later unit's matrices
// (set_data_handle: a plain layout has no padding to clear). Attention's 32 products of
// [128, 128] x [128, 64] (benchmarks/kernels.py's batched GEMM row, two threads, Xeon of
// model 207) then took 0.99-1.00x PyTorch's time (MKL) instead of 1.06-1.21x, in three
// alternating runs of each build; with --stat min --rounds 3, 0.97x the faster peer's
// (Paddle's) instead of 1.16x (benchmarks/results/kernels-xeon-model207-batched-gemm.md
// and -before.md).
struct UnitArgs {
  memory src, weights, dst, bias;
  std::unordered_map<int, memory> map;  // handles: the same objects as the members

  UnitArgs(const memory::desc& a, const UnitPrimitive& unit, char* scratchpad, const float* s,
           const float* w, float* d, const float* b)
      : src(FloatAt(a, s, 0)), weights(FloatAt(unit.b, w, 0)), dst(FloatAt(unit.c, d, 0)) {
    map = {{DNNL_ARG_SRC, src},
           {DNNL_ARG_WEIGHTS, weights},
           {DNNL_ARG_DST, dst},
           {DNNL_ARG_SCRATCHPAD, memory(unit.scratchpad, Engine(), scratchpad)}};
    if (b != nullptr) {
      bias = FloatAt(unit.bias, b, 0);
      map.insert({DNNL_ARG_BIAS, bias});
    }
  }
  // oneDNN never writes to an input; the casts only satisfy its signature.
  void Point(const float* s, const float* w, float* d, const float* b) const {
    src.set_data_handle(const_cast<float*>(s));
    weights.set_data_handle(const_cast<float*>(w));
    dst.set_data_handle(d);
    if (b != nullptr) bias.set_data_handle(const_cast<float*>(b));
  }
};

// The memory objects a thread made for the pooled product it runs, and which call of
// ProductOnPool that is (numbered from g_pooled_calls): ParallelFor hands a product's
// units out one chunk at a time, often one unit a chunk, so they are kept per thread for
// the whole call, and a thread's first chunk of a new call makes them again.
struct ThreadUnitArgs {
  uint64_t call = 0;
  std::optional<UnitArgs> args[2];  // the full blocks' and the short last block's
};
thread_local ThreadUnitArgs tl_unit_args;
std::atomic<uint64_t> g_pooled_calls{0};

// c = a @ b (+ bias) on oar's pool, one unit (PoolUnits) at a time (the note above).
void ProductOnPool(const memory::desc& a, const void* x, const memory::desc& b, const void* y,
                   const memory::desc* bias, const void* bias_data, const memory::desc& c,
                   void* out) {
  const memory::dims cd = c.dims();
  const size_t rank = cd.size();
  const int64_t m = cd[rank - 2], n = cd[rank - 1], k = a.dims()[rank - 1];
  const int64_t w = PoolColumns(n), blocks = (n + w - 1) / w;
  // The [rows, cols] matrix of md's last two dims.
  const auto matrix = [rank](const memory::desc& md, int64_t rows, int64_t cols) {
    const auto& st = md.data.format_desc.blocking.strides;
    const memory::dims d = {rows, cols};
    return memory::desc(d, md.data_type(), SafeStrides(d, {st[rank - 2], st[rank - 1]}));
  };
  // The offset of matrix `i` (row-major over c's batch dims) in md, whose batch dims
  // of size 1 broadcast.
  const auto offset = [&](const memory::desc& md, int64_t i) {
    const memory::dims d = md.dims();
    const auto& st = md.data.format_desc.blocking.strides;
    int64_t off = 0;
    for (size_t j = rank - 2; j-- > 0;) {
      const int64_t at = i % cd[j];
      i /= cd[j];
      if (d[j] != 1) off += at * st[j];
    }
    return off;
  };
  const memory::desc as = matrix(a, m, k);
  const auto make = [&](int64_t cols) {
    UnitPrimitive u{matrix(b, k, cols),
                    matrix(c, m, cols),
                    bias != nullptr ? matrix(*bias, 1, cols) : memory::desc(),
                    {},
                    {}};
    const auto pd = MakePd(as, u.b, bias != nullptr ? &u.bias : nullptr, u.c, UserScratchpad());
    u.prim = dnnl::matmul(pd);
    u.scratchpad = pd.scratchpad_desc();
    return u;
  };
  const auto last2 = [rank](const memory::desc* md) {
    if (md == nullptr) return std::pair<int64_t, int64_t>{-1, -1};
    const auto& st = md->data.format_desc.blocking.strides;
    return std::pair<int64_t, int64_t>{st[rank - 2], st[rank - 1]};
  };
  const PoolPrimitivesKey key{m, n, k, last2(&a), last2(&b), last2(&c), last2(bias)};
  const PoolPrimitives* units = CachedPoolPrimitives(key);
  if (units == nullptr) {
    const OneOpenMPThread one;
    PoolPrimitives made;
    made.full = make(std::min(n, w));
    if (n > w && n % w != 0) made.tail = make(n % w);
    units = CachePoolPrimitives(key, std::move(made));
  }
  const UnitPrimitive& full = units->full;
  const std::optional<UnitPrimitive>& tail = units->tail;
  const uint64_t call = g_pooled_calls.fetch_add(1, std::memory_order_relaxed) + 1;
  ParallelFor(0, PoolUnits(c), m * k * std::min(n, w), [&](int64_t u0, int64_t u1) {
    const OneOpenMPThread one;
    dnnl::stream s(Engine());
    // One scratchpad for both primitives: sized once, so it never moves under a
    // memory object made for it.
    char* scratchpad = ThreadScratchpad(
        std::max(full.scratchpad.get_size(), tail ? tail->scratchpad.get_size() : size_t{0}));
    ThreadUnitArgs& mine = tl_unit_args;
    if (mine.call != call) {
      mine.args[0].reset();
      mine.args[1].reset();
      mine.call = call;
    }
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t i = u / blocks, j0 = (u % blocks) * w;
      const bool last = n - j0 < w && tail;
      const UnitPrimitive& unit = last ? *tail : full;
      const float* src = static_cast<const float*>(x) + offset(a, i);
      const float* weights = static_cast<const float*>(y) + offset(b, i) + j0 * ColumnStride(b);
      float* dst = static_cast<float*>(out) + offset(c, i) + j0 * ColumnStride(c);
      const float* bias_at = bias != nullptr
                                 ? static_cast<const float*>(bias_data) + j0 * ColumnStride(*bias)
                                 : nullptr;
      std::optional<UnitArgs>& unit_args = mine.args[last];
      if (!unit_args) {
        unit_args.emplace(as, unit, scratchpad, src, weights, dst, bias_at);
      } else {
        unit_args->Point(src, weights, dst, bias_at);
      }
      unit.prim.execute(s, unit_args->map);
    }
    s.wait();
  });
}

// c = a @ b (+ bias), float32, in blocks of columns of c (Note [oneDNN's float32
// products past 2048 columns] in matmul_onednn.h), each on OpenMP's team as one product.
void ProductInColumnBlocks(const memory::desc& a, const void* x, const memory::desc& b,
                           const void* y, const memory::desc* bias, const void* bias_data,
                           const memory::desc& c, void* out) {
  const size_t rank = c.dims().size();
  const int64_t n = c.dims()[rank - 1], w = ColumnBlockWidth(n);
  // md's first `cols` columns, its strides kept.
  const auto narrow = [rank](const memory::desc& md, int64_t cols) {
    memory::dims d = md.dims();
    d[rank - 1] = cols;
    const auto& st = md.data.format_desc.blocking.strides;
    return memory::desc(d, md.data_type(), memory::dims(st, st + rank));
  };
  dnnl::stream s(Engine());
  for (int64_t j0 = 0; j0 < n; j0 += w) {
    const int64_t cols = std::min(w, n - j0);
    const memory::desc bj = narrow(b, cols), cj = narrow(c, cols);
    const memory::desc biasj = bias != nullptr ? narrow(*bias, cols) : memory::desc();
    const auto pd = MakePd(a, bj, bias != nullptr ? &biasj : nullptr, cj);
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, FloatAt(a, x, 0)},
        {DNNL_ARG_WEIGHTS, FloatAt(bj, y, j0 * ColumnStride(b))},
        {DNNL_ARG_DST, FloatAt(cj, out, j0 * ColumnStride(c))}};
    if (bias != nullptr)
      args.insert({DNNL_ARG_BIAS, FloatAt(biasj, bias_data, j0 * ColumnStride(*bias))});
    dnnl::matmul(pd).execute(s, args);
  }
  s.wait();
}

}  // namespace

bool HasFastMatmul(DType dtype) {
  // Immutable after their thread-safe initialisation: a CPU does not change.
  static const bool bf16 = ProbeFast(DType::kBFloat16);
  static const bool f16 = ProbeFast(DType::kFloat16);
  if (dtype == DType::kBFloat16) return bf16;
  if (dtype == DType::kFloat16) return f16;
  return false;
}

bool UsesOneDnn(DType dtype, const GemmShape& shape) {
  const int64_t work = shape.Work();
  if (dtype == DType::kFloat32) {
    static const bool f32 = ProbeFast(DType::kFloat32);
    // Note [A product with one row or column is a GEMV] (gemm.h): the BLAS's GEMV.
    if (shape.batch == 1 && (shape.m == 1 || shape.n == 1)) return false;
    // Note [float32 GEMMs on oneDNN]: many sums over a transposed A lose on AVX2.
    if (shape.ta && shape.batch == 1 && shape.k >= kMinBlasSumsTa && shape.n >= kMinBlasColumnsTa &&
        shape.n <= kMaxFloat32ColumnsTa && !RunsAvx512()) {
      return false;
    }
    // The same note: a few-rows product oneDNN runs unpacked loses on 2 KiB rows.
    if (!shape.ta && !shape.tb && shape.batch == 1 && shape.m >= kMinNoCopyRows &&
        shape.n % kNoCopyColumnsStep == 0 &&
        1.0 / static_cast<double>(shape.m) + 1.0 / static_cast<double>(shape.n) >=
            kNoCopyThreshold &&
        !RunsAvx512()) {
      return false;
    }
    return work >= kMinFloat32Work && f32;
  }
  return work >= kMinMatmulWork && HasFastMatmul(dtype);
}

void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  Guard("matmul", [&] {
    // Note [float32 GEMMs on oneDNN]: a wide transposed A is copied transposed first.
    std::unique_ptr<float[]> a_copy;
    if (ta && n > kMaxFloat32ColumnsTa) {
      a_copy = std::make_unique_for_overwrite<float[]>(static_cast<size_t>(m * k));
      memory src(MatrixDesc(m, k, lda, true), Engine(), const_cast<float*>(a));
      memory dst(MatrixDesc(m, k, k, false), Engine(), a_copy.get());
      dnnl::stream s(Engine());
      dnnl::reorder(src, dst).execute(s, src, dst);
      s.wait();
      a = a_copy.get();
      lda = k;
      ta = false;
    }
    const memory::desc amd = MatrixDesc(m, k, lda, ta);
    // Note [oneDNN's float32 products past 2048 columns]
    const int64_t w = RunsAvx512() ? ColumnBlockWidth(n) : n;
    dnnl::stream s(Engine());
    for (int64_t j0 = 0; j0 < n; j0 += w) {
      const int64_t cols = std::min(w, n - j0);
      const memory::desc bmd = MatrixDesc(k, cols, ldb, tb), cmd = MatrixDesc(m, cols, ldc, false);
      const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(amd, bmd, cmd), SumAttr(beta),
                                            Engine());
      // oneDNN never writes to an input; the casts only satisfy its signature.
      const float* bj = b + (tb ? j0 * ldb : j0);
      dnnl::matmul(pd).execute(s,
                               {{DNNL_ARG_SRC, memory(amd, Engine(), const_cast<float*>(a))},
                                {DNNL_ARG_WEIGHTS, memory(bmd, Engine(), const_cast<float*>(bj))},
                                {DNNL_ARG_DST, memory(cmd, Engine(), c + j0)}});
    }
    s.wait();
  });
}

void Matmul(const DenseTensor& x_in, bool tx, const DenseTensor& y_in, bool ty,
            const DenseTensor* bias_in, DenseTensor* out) {
  const DenseTensor y = Readable(y_in) ? y_in : funcs::Contiguous(y_in);
  // Note [float32 GEMMs on oneDNN]: a wide transposed A is copied transposed first.
  const bool copy_x = tx && x_in.dtype() == DType::kFloat32 && y.ndim() >= 2 &&
                      y.dims()[y.ndim() - (ty ? 2 : 1)] > kMaxFloat32ColumnsTa;
  if (copy_x) tx = false;
  const DenseTensor x = FoldBatch(copy_x           ? TransposedCopy(x_in)
                                  : Readable(x_in) ? x_in
                                                   : funcs::Contiguous(x_in),
                                  tx, y);
  const DDim batch = BroadcastShape(DDim(x.dims().begin(), x.dims().end() - 2),
                                    DDim(y.dims().begin(), y.dims().end() - 2), "x", "y");
  const size_t rank = batch.size() + 2;
  // Everything oneDNN may refuse inside the guard, which makes it an oar error.
  Guard("matmul", [&] {
    const memory::desc a = OperandDesc(x, tx, rank), b = OperandDesc(y, ty, rank);
    memory::dims cd(batch.begin(), batch.end());
    cd.push_back(a.dims()[rank - 2]);
    cd.push_back(b.dims()[rank - 1]);
    const memory::desc c(cd, DataType(out->dtype()), PlainStrides(cd));
    DenseTensor bias;
    memory::desc bd;
    if (bias_in != nullptr) {
      bias = funcs::Contiguous(*bias_in);
      memory::dims bdims(rank, 1);
      bdims.back() = cd.back();
      bd = memory::desc(bdims, DataType(bias.dtype()), PlainStrides(bdims));
    }
    const memory::desc* bias_desc = bias_in != nullptr ? &bd : nullptr;
    // Note [Float32 products of a model's size run on oar's pool]
    if (RunsOnPool(a, b, c)) {
      ProductOnPool(a, x.data(), b, y.data(), bias_desc, bias_in != nullptr ? bias.data() : nullptr,
                    c, out->data());
      return;
    }
    const auto mem = [](const memory::desc& md, const DenseTensor& t) {
      // oneDNN never writes to an input; the cast only satisfies its signature.
      return memory(md, Engine(), const_cast<void*>(t.data()));
    };
    // Note [Packing bfloat16 weights for oneDNN]
    DenseTensor packed;
    dnnl::matmul::primitive_desc pd;
    memory weights;
    if (WantsPacked(a, b, y)) {
      const int64_t k = b.dims()[0], n = b.dims()[1];
      auto packed_pd =
          MakePd(a, memory::desc(b.dims(), b.data_type(), memory::format_tag::any), bias_desc, c);
      if (IsBf16PackLayout(packed_pd.weights_desc(), k, n)) {
        const auto& s = b.data.format_desc.blocking.strides;
        packed = DenseTensor(DType::kBFloat16,
                             DDim{static_cast<int64_t>(packed_pd.weights_desc().get_size() / 2)});
        auto* dst = static_cast<uint16_t*>(packed.AllocateFrom(y.place()));
        PackBf16(static_cast<const uint16_t*>(y.data()), k, n, s[0], s[1], dst);
        weights = memory(packed_pd.weights_desc(), Engine(), dst);
        pd = std::move(packed_pd);
      }
    }
    // Note [oneDNN's float32 products past 2048 columns]
    if (!weights && out->dtype() == DType::kFloat32 && RunsAvx512() &&
        ColumnBlockWidth(c.dims()[rank - 1]) < c.dims()[rank - 1]) {
      ProductInColumnBlocks(a, x.data(), b, y.data(), bias_desc,
                            bias_in != nullptr ? bias.data() : nullptr, c, out->data());
      return;
    }
    if (!weights) {
      pd = MakePd(a, b, bias_desc, c);
      weights = mem(b, y);
    }
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, mem(a, x)},
                                            {DNNL_ARG_WEIGHTS, weights},
                                            {DNNL_ARG_DST, memory(c, Engine(), out->data())}};
    if (bias_in != nullptr) args.insert({DNNL_ARG_BIAS, mem(bd, bias)});
    dnnl::stream s(Engine());
    dnnl::matmul(pd).execute(s, args);
    s.wait();
  });
}

struct PackedGemm::State {
  memory::desc a, c;
  memory b;
  dnnl::matmul prim;
};

PackedGemm::PackedGemm(bool tb, int64_t m, int64_t n, int64_t k, int64_t lda, const float* b,
                       int64_t ldb, float beta, int64_t ldc) {
  Guard("matmul", [&] {
    auto st = std::make_unique<State>();
    st->a = MatrixDesc(m, k, lda, false);
    st->c = MatrixDesc(m, n, ldc, false);
    const memory::desc any({k, n}, memory::data_type::f32, memory::format_tag::any);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(st->a, any, st->c), SumAttr(beta),
                                          Engine());
    // Note [A recurrent weight is packed once]
    st->b = memory(pd.weights_desc(), Engine());
    if (CanPack() && IsF32PackLayout(pd.weights_desc(), k, n)) {
      PackF32(b, k, n, tb ? 1 : ldb, tb ? ldb : 1, static_cast<float*>(st->b.get_data_handle()));
    } else {
      memory src(MatrixDesc(k, n, ldb, tb), Engine(), const_cast<float*>(b));
      dnnl::stream s(Engine());
      dnnl::reorder(src, st->b).execute(s, src, st->b);
      s.wait();
    }
    st->prim = dnnl::matmul(pd);
    state_ = std::move(st);
  });
}

PackedGemm::~PackedGemm() = default;

bool PackedGemm::Pays() { return RunsAvx512(); }

void PackedGemm::Run(const float* a, float* c) const {
  Guard("matmul", [&] {
    dnnl::stream s(Engine());
    state_->prim.execute(s, {{DNNL_ARG_SRC, memory(state_->a, Engine(), const_cast<float*>(a))},
                             {DNNL_ARG_WEIGHTS, state_->b},
                             {DNNL_ARG_DST, memory(state_->c, Engine(), c)}});
    s.wait();
  });
}

}  // namespace oar::onednn
