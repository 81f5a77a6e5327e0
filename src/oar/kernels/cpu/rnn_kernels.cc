// The fused recurrent layer (src/oar/ops/rnn.yaml): one layer in one direction over the
// whole sequence. The input projection of every step is one GEMM; each step then does one
// GEMM with the recurrent weight and its gate activations in one pass over [batch,
// hidden]. The backward walks the steps back doing one GEMM each (the gradient reaching
// the previous state), and leaves the weight gradients to three GEMMs over all steps at
// the end, which is where the time of a step-by-step backward went (35 small products
// per weight instead of one large one).
//
// Note [Masked steps of a fused RNN]
// With lengths, sequence b is over at step lengths[b]: from then on its state is carried
// unchanged, and its output is zero (zero_padded) or what the cell computes from the
// carried state. So the state entering step t is the output of the last step before t,
// in processing order, that was inside the sequence (h0 when there is none), and the
// gradient reaching a state that is carried passes through unchanged, plus (when outputs
// past the end are the cell's) what those outputs send back into it.
//
// Note [An RNN writes its buffers once]
// The layer's buffers are megabytes (a 2-layer LSTM of hidden 512 over 35 steps of 20:
// 8.6 MB of output and saved gates, 5.7 MB of projections a layer). Clearing them before
// the loops overwrote them, and copying each step's gates between buffers, took about 3.5
// of the 8 ms that model's forward spent outside its GEMMs (34 ms in all, two threads,
// Zen 4). So nothing is cleared that is written anyway: the projections and the
// backward's per-step gradients are allocated uninitialised, only the zero-padded
// outputs of a masked batch start at zero, and each step's gates go from the projection
// rows (onto which the recurrent product accumulates in place) straight into the saved
// rows, the biases added and activated on the way. Writing the biases into every
// projection row for the GEMM to accumulate onto cost about 1 ms of memcpy a forward.
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "oar/kernels/cpu/gemm.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/funcs/vec_math.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

enum Mode : int64_t { kTanh = 0, kRelu = 1, kLstm = 2, kGru = 3 };

// out[i] = f(in[i]) for i < n; in may be out.
template <typename T>
void Sigmoid(const T* in, T* out, int64_t n) {
  vec::Apply(vec::Fn::kSigmoid, in, out, n);
}
template <typename T>
void Tanh(const T* in, T* out, int64_t n) {
  vec::Apply(vec::Fn::kTanh, in, out, n);
}

// The tensors of the list, contiguous, in the order of rnn.yaml.
template <typename T>
struct Operands {
  RnnShape s;
  std::vector<DenseTensor> keep;  // contiguous copies of strided inputs
  const T *x = nullptr, *h0 = nullptr, *c0 = nullptr, *w_ih = nullptr, *w_hh = nullptr,
          *b_ih = nullptr, *b_hh = nullptr;
  std::vector<int64_t> lengths;  // steps for every sequence without lengths

  Operands(const std::vector<const DenseTensor*>& in, int64_t mode, size_t extra)
      : s(CheckRnnInputs(in, mode, extra)) {
    auto get = [&](size_t i) {
      keep.push_back(funcs::Contiguous(*in[i]));
      return static_cast<const T*>(keep.back().data());
    };
    keep.reserve(in.size());
    const bool lstm = mode == kLstm;
    x = get(0);
    h0 = get(1);
    if (lstm) c0 = get(2);
    const size_t w = lstm ? 3 : 2;
    w_ih = get(w);
    w_hh = get(w + 1);
    b_ih = get(w + 2);
    b_hh = get(w + 3);
    lengths.assign(s.batch, s.steps);
    if (s.has_lengths) {
      const DenseTensor l = funcs::Contiguous(*in[w + 4]);
      for (int64_t b = 0; b < s.batch; ++b) {
        const int64_t v = l.dtype() == DType::kInt32 ? static_cast<const int32_t*>(l.data())[b]
                                                     : static_cast<const int64_t*>(l.data())[b];
        OAR_ENFORCE(v >= 0, errors::InvalidArgument("argument 'inputs': lengths must be >= 0, "
                                                    "got ",
                                                    v, " for sequence ", b));
        lengths[b] = std::min<int64_t>(v, s.steps);
      }
    }
  }
};

// Where the saved values and final states sit in out (rows of [batch, hidden]).
struct Packing {
  int64_t bh, gbh;  // one row, one step's gates
  int64_t states_row, saved_row;
  explicit Packing(const RnnShape& s)
      : bh(s.batch * s.hidden),
        gbh(s.gates * s.batch * s.hidden),
        states_row(s.steps),
        saved_row(s.steps + s.states) {}
};

// Note [The rows of a step run in parallel]
// Between two recurrent products, a step's element-wise work (the gates, the new
// states and outputs, and their gradients in the backward) is one pass over [batch,
// G * hidden] in which every sequence of the batch is independent. Single-threaded it
// took about 2 of the 9.5 ms of a layer's step loop (hidden 512, batch 20, 35 steps,
// Zen 4), the second core idle; split by sequence over two threads, 0.8-1.5 ms. The
// rows go to OpenMP's team, not oar's pool: the recurrent products on each side of the
// pass run on that team (oneDNN, OpenBLAS), whose threads are still spinning when it
// starts, where the pool's workers would compete with them for the cores (as in
// weight_pack.cc). Each row is computed the same way on any thread, and the biases'
// gradients are summed per column in row order (ColumnSums), so no result depends on
// the thread count.
inline bool RowsInParallel(int64_t batch, int64_t width) {
  return batch > 1 && batch * width >= (int64_t{1} << 14);
}

// out[j] = the sum of a[r][j] over the rows r of a [rows, cols] matrix, in the order of
// the rows whatever the thread count: each thread sums one range of columns, a row's
// part of it at a time (a stream through the matrix, the sums held in cache).
template <typename T>
void ColumnSums(const T* a, int64_t rows, int64_t cols, T* out) {
#pragma omp parallel if (rows * cols >= (int64_t{1} << 16))
  {
    const int64_t parts = omp_get_num_threads(), part = omp_get_thread_num();
    // Ranges of whole 64-byte lines.
    const int64_t lines = (cols * static_cast<int64_t>(sizeof(T)) + 63) / 64;
    const int64_t per_line = 64 / static_cast<int64_t>(sizeof(T));
    const int64_t j0 = std::min(cols, lines * part / parts * per_line);
    const int64_t j1 = std::min(cols, lines * (part + 1) / parts * per_line);
    T* o = out + j0;
    std::fill(o, o + (j1 - j0), T(0));
    for (int64_t r = 0; r < rows; ++r) {
      const T* ar = a + r * cols + j0;
#pragma omp simd
      for (int64_t j = 0; j < j1 - j0; ++j) o[j] += ar[j];
    }
  }
}

// The step whose output is the state entering step t for a sequence of length len
// (Note [Masked steps of a fused RNN]); -1: the initial state.
inline int64_t StateSource(int64_t t, int64_t len, bool reverse) {
  if (reverse) return t + 1 < len ? t + 1 : -1;
  return std::min(t, len) - 1;
}

template <typename T>
void RnnKernel(const DeviceContext&, const std::vector<const DenseTensor*>& inputs, int64_t mode,
               bool reverse, bool zero_padded, DenseTensor* out) {
  const Operands<T> op(inputs, mode, 0);
  const RnnShape& s = op.s;
  const int64_t T_ = s.steps, B = s.batch, H = s.hidden, G = s.gates, GH = G * H;
  const Packing pk(s);
  T* o = static_cast<T*>(out->AllocateFrom(inputs[0]->place()));
  if (out->numel() == 0) return;
  T* y = o;
  T* h_fin = o + pk.states_row * pk.bh;
  T* c_fin = h_fin + pk.bh;
  T* saved = o + pk.saved_row * pk.bh;
  // Every row of out is written below but the outputs of zero-padded steps past a
  // sequence's end (Note [An RNN writes its buffers once]).
  if (zero_padded &&
      std::any_of(op.lengths.begin(), op.lengths.end(), [&](int64_t len) { return len < T_; })) {
    std::memset(y, 0, sizeof(T) * T_ * pk.bh);
  }

  // The input projection of every step, without the biases: [T * B, G * H]. Each step's
  // recurrent product accumulates onto its rows in place, and the gate pass adds `bias`
  // (Note [An RNN writes its buffers once]): both biases summed, but for the GRU, whose
  // bias_hh stays apart (its candidate scales h's part by r).
  const bool gru = mode == kGru;
  const auto proj = std::make_unique_for_overwrite<T[]>(static_cast<size_t>(T_ * B * GH));
  std::vector<T> bias(op.b_ih, op.b_ih + GH);
  if (!gru) {
    for (int64_t j = 0; j < GH; ++j) bias[j] += op.b_hh[j];
  }
  cpu::Gemm<T>(false, true, T_ * B, GH, s.input, op.x, s.input, op.w_ih, s.input, T(0), proj.get(),
               GH);

  std::vector<T> h(op.h0, op.h0 + B * H), c;
  if (mode == kLstm) c.assign(op.c0, op.c0 + B * H);
  std::vector<T> hh;
  if (gru) hh.resize(static_cast<size_t>(B * GH));
  std::vector<T> h_new(static_cast<size_t>(B * H));
  // h @ weight_hh^T, accumulated onto the step's pre-activations.
  const cpu::StepGemm<T> recur(true, B, GH, H, H, op.w_hh, H, T(1), GH, T_);

  const bool par = RowsInParallel(B, GH);
  for (int64_t k = 0; k < T_; ++k) {
    const int64_t t = reverse ? T_ - 1 - k : k;
    T* p = proj.get() + t * B * GH;
    // LSTM [B][4H]: i, f, g, o activated; GRU (below). The simple RNN saves nothing.
    T* sv = mode == kLstm || mode == kGru ? saved + t * 4 * pk.bh : nullptr;
    T* cs = mode == kLstm ? saved + (4 * T_ + t) * pk.bh : nullptr;  // the step's cell states
    T* yt = y + t * pk.bh;
    if (mode == kGru) {
      for (int64_t b = 0; b < B; ++b) std::memcpy(hh.data() + b * GH, op.b_hh, sizeof(T) * GH);
      recur(h.data(), hh.data());
    } else {
      recur(h.data(), p);
    }
    // One sequence of the batch: its gates, new state and output (Note [The rows of a
    // step run in parallel]).
    auto row = [&](int64_t b) {
      const T* pb = p + b * GH;
      const T* bb = bias.data();
      T* hn = h_new.data() + b * H;
      if (mode == kGru) {
        // r and z take x's and h's parts summed; the candidate takes r * (h's part).
        const T* hb = hh.data() + b * GH;
        T* rb = sv + b * 4 * H;  // [B][4H]: r, z, candidate, h's candidate part
#pragma omp simd
        for (int64_t j = 0; j < 2 * H; ++j) rb[j] = pb[j] + bb[j] + hb[j];
        Sigmoid(rb, rb, 2 * H);
        T* nb = rb + 2 * H;
        T* hc = rb + 3 * H;
#pragma omp simd
        for (int64_t j = 0; j < H; ++j) {
          hc[j] = hb[2 * H + j];
          nb[j] = pb[2 * H + j] + bb[2 * H + j] + rb[j] * hc[j];
        }
        Tanh(nb, nb, H);
        const T* zb = rb + H;
        const T* hp = h.data() + b * H;
#pragma omp simd
        for (int64_t j = 0; j < H; ++j) hn[j] = (hp[j] - nb[j]) * zb[j] + nb[j];
      } else if (mode == kLstm) {
        T* gb = sv + b * 4 * H;
#pragma omp simd
        for (int64_t j = 0; j < GH; ++j) gb[j] = pb[j] + bb[j];
        Sigmoid(gb, gb, 2 * H);
        Tanh(gb + 2 * H, gb + 2 * H, H);
        Sigmoid(gb + 3 * H, gb + 3 * H, H);
        const T *ig = gb, *fg = gb + H, *gg = gb + 2 * H, *og = gb + 3 * H;
        const T* cp = c.data() + b * H;
        T* cn = cs + b * H;  // the new cell state, saved for the backward
#pragma omp simd
        for (int64_t j = 0; j < H; ++j) cn[j] = fg[j] * cp[j] + ig[j] * gg[j];
        Tanh(cn, hn, H);
#pragma omp simd
        for (int64_t j = 0; j < H; ++j) hn[j] *= og[j];
      } else if (mode == kTanh) {
#pragma omp simd
        for (int64_t j = 0; j < H; ++j) hn[j] = pb[j] + bb[j];
        Tanh(hn, hn, H);
      } else {
#pragma omp simd
        for (int64_t j = 0; j < H; ++j) {
          const T v = pb[j] + bb[j];
          hn[j] = v < T(0) ? T(0) : v;  // NaN stays
        }
      }
      const bool inside = t < op.lengths[b];
      if (inside || !zero_padded) std::memcpy(yt + b * H, hn, sizeof(T) * H);
      if (inside) {
        std::memcpy(h.data() + b * H, hn, sizeof(T) * H);
        if (mode == kLstm) std::memcpy(c.data() + b * H, cs + b * H, sizeof(T) * H);
      }
    };
#pragma omp parallel for schedule(static) if (par)
    for (int64_t b = 0; b < B; ++b) row(b);
  }
  std::memcpy(h_fin, h.data(), sizeof(T) * B * H);
  if (mode == kLstm) std::memcpy(c_fin, c.data(), sizeof(T) * B * H);
}

template <typename T>
void RnnGradKernel(const DeviceContext&, const std::vector<const DenseTensor*>& inputs,
                   int64_t mode, bool reverse, bool zero_padded, DenseTensor* out) {
  const Operands<T> op(inputs, mode, 2);
  const RnnShape& s = op.s;
  const int64_t T_ = s.steps, B = s.batch, H = s.hidden, I = s.input, G = s.gates, GH = G * H;
  const Packing pk(s);
  const DenseTensor fwd_t = funcs::Contiguous(*inputs[inputs.size() - 2]);
  const DenseTensor grad_t = funcs::Contiguous(*inputs[inputs.size() - 1]);
  const T* fwd = static_cast<const T*>(fwd_t.data());
  const T* gout = static_cast<const T*>(grad_t.data());
  const T* y = fwd;
  const T* saved = fwd + pk.saved_row * pk.bh;
  T* o = static_cast<T*>(out->AllocateFrom(inputs[0]->place()));
  if (out->numel() == 0) return;
  const bool lstm = mode == kLstm;
  T* dx = o;
  T* dh0 = dx + T_ * B * I;
  T* dc0 = dh0 + B * H;
  T* dw_ih = dh0 + (lstm ? 2 : 1) * B * H;
  T* dw_hh = dw_ih + GH * I;
  T* db_ih = dw_hh + GH * H;
  T* db_hh = db_ih + GH;
  // The GEMMs at the end write dx and the weights' gradients, the column sums the
  // biases', the steps the states' (Note [An RNN writes its buffers once]); with no step
  // at all, the GEMMs have nothing to sum.
  if (T_ * B == 0) std::memset(o, 0, sizeof(T) * out->numel());

  // The gradients of the pre-activations: of x's part (dp) and of h's part (dq; equal
  // to dp but for the GRU's candidate, which h's part reaches through r). Every step
  // writes its rows of both.
  const size_t dp_size = static_cast<size_t>(T_ * B * GH);
  const auto dp = std::make_unique_for_overwrite<T[]>(dp_size);
  std::unique_ptr<T[]> dq;
  if (mode == kGru) dq = std::make_unique_for_overwrite<T[]>(dp_size);
  // The state entering each step, for weight_hh's gradient: [T * B, H].
  const auto h_in = std::make_unique_for_overwrite<T[]>(static_cast<size_t>(T_ * B * H));
  std::vector<T> dh(gout + pk.states_row * pk.bh, gout + (pk.states_row + 1) * pk.bh), dc;
  if (lstm) dc.assign(gout + (pk.states_row + 1) * pk.bh, gout + (pk.states_row + 2) * pk.bh);
  std::vector<T> dh_new(static_cast<size_t>(B * H)), dprev(static_cast<size_t>(B * H));
  std::vector<T> tanh_c(static_cast<size_t>(B * H));
  // The pre-activations' gradient @ weight_hh (the GRU adds it to its direct share).
  const cpu::StepGemm<T> recur(false, B, H, GH, GH, op.w_hh, H, mode == kGru ? T(1) : T(0), H, T_);
  // The gradients of the saved rows themselves (zero when only the outputs and states
  // are used, as in the layers; the op is a function of all its output rows).
  const T* gsaved = gout + pk.saved_row * pk.bh;
  const T* cs = lstm ? saved + 4 * T_ * pk.bh : nullptr;  // the cell states of every step

  // The gradient that reached the state entering step t (dprev, from the product with
  // weight_hh) joins dh for sequence b, carried past its end (Note [Masked steps of a
  // fused RNN]). The next step's pass over the rows does it for the previous one.
  auto carry = [&](int64_t b, int64_t t) {
    const bool inside = t < op.lengths[b];
    T* d = dh.data() + b * H;
    const T* pv = dprev.data() + b * H;
#pragma omp simd
    for (int64_t j = 0; j < H; ++j) d[j] = (inside ? T(0) : d[j]) + pv[j];
  };
  const bool par = RowsInParallel(B, GH);
  int64_t carried = -1;  // the step whose dprev dh has yet to take (-1: none)
  for (int64_t k = T_ - 1; k >= 0; --k) {
    const int64_t t = reverse ? T_ - 1 - k : k;
    T* dpt = dp.get() + t * B * GH;
    const T* gy = gout + t * pk.bh;
    // One sequence of the batch (Note [The rows of a step run in parallel]).
    auto row = [&](int64_t b) {
      if (carried >= 0) carry(b, carried);
      const bool inside = t < op.lengths[b];
      const bool out_live = inside || !zero_padded;
      const int64_t src = StateSource(t, op.lengths[b], reverse);
      // The state entering step t, for weight_hh's gradient.
      const T* hs = src < 0 ? op.h0 + b * H : y + src * pk.bh + b * H;
      std::memcpy(h_in.get() + (t * B + b) * H, hs, sizeof(T) * H);
      // The gradient reaching the cell's output at t: its output's (unless zeroed past
      // the end) and, inside the sequence, the next step's.
      T* dn = dh_new.data() + b * H;
      const T* gyb = gy + b * H;
      const T* dhb = dh.data() + b * H;
#pragma omp simd
      for (int64_t j = 0; j < H; ++j) {
        dn[j] = (out_live ? gyb[j] : T(0)) + (inside ? dhb[j] : T(0));
      }
      T* db = dpt + b * GH;
      if (lstm) {
        const T* gb = saved + t * 4 * pk.bh + b * 4 * H;
        const T *ig = gb, *fg = gb + H, *gg = gb + 2 * H, *og = gb + 3 * H;
        const T* cn = cs + t * pk.bh + b * H;
        const T* cp = src < 0 ? op.c0 + b * H : cs + src * pk.bh + b * H;
        T* tc_b = tanh_c.data() + b * H;
        Tanh(cn, tc_b, H);
        const T* gg4 = gsaved + t * 4 * pk.bh + b * 4 * H;
        const T* gcb = gsaved + (4 * T_ + t) * pk.bh + b * H;
        T* dcb = dc.data() + b * H;
#pragma omp simd
        for (int64_t j = 0; j < H; ++j) {
          const T tc = tc_b[j];
          const T dcn = (inside ? dcb[j] : T(0)) + dn[j] * og[j] * (T(1) - tc * tc) + gcb[j];
          db[j] = (dcn * gg[j] + gg4[j]) * ig[j] * (T(1) - ig[j]);
          db[H + j] = (dcn * cp[j] + gg4[H + j]) * fg[j] * (T(1) - fg[j]);
          db[2 * H + j] = (dcn * ig[j] + gg4[2 * H + j]) * (T(1) - gg[j] * gg[j]);
          db[3 * H + j] = (dn[j] * tc + gg4[3 * H + j]) * og[j] * (T(1) - og[j]);
          // A carried cell state keeps its gradient; an updated one hands f's share back.
          dcb[j] = (inside ? T(0) : dcb[j]) + dcn * fg[j];
        }
      } else if (mode == kGru) {
        const T* rb = saved + t * 4 * pk.bh + b * 4 * H;
        const T *zb = rb + H, *nb = rb + 2 * H, *hn = rb + 3 * H;
        // The saved rows' own gradients: r, z, c, h's part.
        const T* gr = gsaved + t * 4 * pk.bh + b * 4 * H;
        const T* hp = h_in.get() + (t * B + b) * H;
        T* dqb = dq.get() + t * B * GH + b * GH;
        T* dpv = dprev.data() + b * H;
#pragma omp simd
        for (int64_t j = 0; j < H; ++j) {
          const T dz = dn[j] * (hp[j] - nb[j]) + gr[H + j];
          const T dcand = (dn[j] * (T(1) - zb[j]) + gr[2 * H + j]) * (T(1) - nb[j] * nb[j]);
          const T dr = dcand * hn[j] + gr[j];
          db[j] = dr * rb[j] * (T(1) - rb[j]);
          db[H + j] = dz * zb[j] * (T(1) - zb[j]);
          db[2 * H + j] = dcand;
          dqb[j] = db[j];
          dqb[H + j] = db[H + j];
          dqb[2 * H + j] = dcand * rb[j] + gr[3 * H + j];
          dpv[j] = dn[j] * zb[j];  // h' = z h + (1 - z) c reads h directly too
        }
      } else {
        const T* hb = y + t * pk.bh + b * H;  // the activation (a zeroed one is not live)
        for (int64_t j = 0; j < H; ++j) {
          if (!out_live) {
            db[j] = T(0);
          } else if (mode == kTanh) {
            db[j] = dn[j] * (T(1) - hb[j] * hb[j]);
          } else {
            db[j] = hb[j] <= T(0) ? T(0) : dn[j];  // as relu_grad: a NaN passes
          }
        }
      }
    };
#pragma omp parallel for schedule(static) if (par)
    for (int64_t b = 0; b < B; ++b) row(b);
    // The gradient reaching the state entering t: through weight_hh (and, for the GRU,
    // directly).
    recur(mode == kGru ? dq.get() + t * B * GH : dpt, dprev.data());
    carried = t;
  }
  if (carried >= 0) {
    for (int64_t b = 0; b < B; ++b) carry(b, carried);
  }
  std::copy(dh.begin(), dh.end(), dh0);  // (empty for a batch of 0: no memcpy of null)
  if (lstm) std::copy(dc.begin(), dc.end(), dc0);
  if (T_ * B == 0) return;
  // The biases' gradients: bias_hh meets the same pre-activations as bias_ih but for the
  // GRU's candidate.
  ColumnSums(dp.get(), T_ * B, GH, db_ih);
  if (mode == kGru) {
    ColumnSums(dq.get(), T_ * B, GH, db_hh);
  } else {
    std::copy(db_ih, db_ih + GH, db_hh);
  }
  const T* dhh_all = mode == kGru ? dq.get() : dp.get();
  // x, weight_ih and weight_hh's gradients: one GEMM each over all steps.
  cpu::Gemm<T>(false, false, T_ * B, I, GH, dp.get(), GH, op.w_ih, I, T(0), dx, I);
  cpu::Gemm<T>(true, false, GH, I, T_ * B, dp.get(), GH, op.x, I, T(0), dw_ih, I);
  cpu::Gemm<T>(true, false, GH, H, T_ * B, dhh_all, GH, h_in.get(), H, T(0), dw_hh, H);
}

}  // namespace

OAR_REGISTER_KERNEL(rnn, CPU, Any, RnnKernel, float, double);
OAR_REGISTER_KERNEL(rnn_grad, CPU, Any, RnnGradKernel, float, double);

}  // namespace oar
