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
// outputs of a masked batch and the summed biases' gradients start at zero, and each
// step's gates go from the projection rows (onto which the recurrent product
// accumulates in place) straight into the saved rows, activated on the way.
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

  // The input projection of every step, biases included: [T * B, G * H]. The GRU keeps
  // bias_hh apart (its candidate scales h's part by r); the other cells take both here,
  // and each step's recurrent product then accumulates onto its rows in place.
  const bool gru = mode == kGru;
  const auto proj = std::make_unique_for_overwrite<T[]>(static_cast<size_t>(T_ * B * GH));
  std::vector<T> bias(op.b_ih, op.b_ih + GH);
  if (!gru) {
    for (int64_t j = 0; j < GH; ++j) bias[j] += op.b_hh[j];
  }
  for (int64_t r = 0; r < T_ * B; ++r)
    std::memcpy(proj.get() + r * GH, bias.data(), sizeof(T) * GH);
  cpu::Gemm<T>(false, true, T_ * B, GH, s.input, op.x, s.input, op.w_ih, s.input, T(1), proj.get(),
               GH);

  std::vector<T> h(op.h0, op.h0 + B * H), c;
  if (mode == kLstm) c.assign(op.c0, op.c0 + B * H);
  std::vector<T> hh;
  if (gru) hh.resize(static_cast<size_t>(B * GH));
  std::vector<T> h_new(static_cast<size_t>(B * H));
  // h @ weight_hh^T, accumulated onto the step's pre-activations.
  const cpu::StepGemm<T> recur(true, B, GH, H, H, op.w_hh, H, T(1), GH, T_);

  for (int64_t k = 0; k < T_; ++k) {
    const int64_t t = reverse ? T_ - 1 - k : k;
    T* p = proj.get() + t * B * GH;
    T* cs = mode == kLstm ? saved + (4 * T_ + t) * pk.bh : nullptr;  // the step's cell states
    if (mode == kGru) {
      // r and z take x's and h's parts summed; the candidate takes r * (h's part).
      for (int64_t b = 0; b < B; ++b) std::memcpy(hh.data() + b * GH, op.b_hh, sizeof(T) * GH);
      recur(h.data(), hh.data());
      T* sv = saved + t * 4 * pk.bh;  // [B][4H]: r, z, candidate, h's candidate part
      for (int64_t b = 0; b < B; ++b) {
        const T* pb = p + b * GH;
        const T* hb = hh.data() + b * GH;
        T* rb = sv + b * 4 * H;
        for (int64_t j = 0; j < 2 * H; ++j) rb[j] = pb[j] + hb[j];
        Sigmoid(rb, rb, 2 * H);
        T* nb = rb + 2 * H;
        T* hn = rb + 3 * H;
        for (int64_t j = 0; j < H; ++j) {
          hn[j] = hb[2 * H + j];
          nb[j] = pb[2 * H + j] + rb[j] * hn[j];
        }
        Tanh(nb, nb, H);
        const T* zb = rb + H;
        T* out_b = h_new.data() + b * H;
        const T* hp = h.data() + b * H;
        for (int64_t j = 0; j < H; ++j) out_b[j] = (hp[j] - nb[j]) * zb[j] + nb[j];
      }
    } else {
      recur(h.data(), p);
      if (mode == kLstm) {
        T* sv = saved + t * 4 * pk.bh;  // [B][4H]: i, f, g, o activated
        for (int64_t b = 0; b < B; ++b) {
          T* gb = sv + b * 4 * H;
          const T* pb = p + b * GH;
          Sigmoid(pb, gb, 2 * H);
          Tanh(pb + 2 * H, gb + 2 * H, H);
          Sigmoid(pb + 3 * H, gb + 3 * H, H);
          const T *ig = gb, *fg = gb + H, *gg = gb + 2 * H, *og = gb + 3 * H;
          const T* cp = c.data() + b * H;
          T* cn = cs + b * H;  // the new cell state, saved for the backward
          for (int64_t j = 0; j < H; ++j) cn[j] = fg[j] * cp[j] + ig[j] * gg[j];
          T* hn = h_new.data() + b * H;
          Tanh(cn, hn, H);
          for (int64_t j = 0; j < H; ++j) hn[j] *= og[j];
        }
      } else if (mode == kTanh) {
        Tanh(p, h_new.data(), B * H);
      } else {
        for (int64_t i = 0; i < B * H; ++i) h_new[i] = p[i] < T(0) ? T(0) : p[i];  // NaN stays
      }
    }
    T* yt = y + t * pk.bh;
    for (int64_t b = 0; b < B; ++b) {
      const bool inside = t < op.lengths[b];
      if (inside || !zero_padded) std::memcpy(yt + b * H, h_new.data() + b * H, sizeof(T) * H);
      if (inside) {
        std::memcpy(h.data() + b * H, h_new.data() + b * H, sizeof(T) * H);
        if (mode == kLstm) std::memcpy(c.data() + b * H, cs + b * H, sizeof(T) * H);
      }
    }
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
  // The GEMMs at the end write dx and the weights' gradients, the steps the biases'
  // (summed) and the states' (Note [An RNN writes its buffers once]); with no step at
  // all, the GEMMs have nothing to sum.
  if (T_ * B == 0) {
    std::memset(o, 0, sizeof(T) * out->numel());
  } else {
    std::memset(db_ih, 0, sizeof(T) * 2 * GH);
  }

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
  std::vector<T> tanh_c(static_cast<size_t>(H));
  // The pre-activations' gradient @ weight_hh (the GRU adds it to its direct share).
  const cpu::StepGemm<T> recur(false, B, H, GH, GH, op.w_hh, H, mode == kGru ? T(1) : T(0), H, T_);

  for (int64_t k = T_ - 1; k >= 0; --k) {
    const int64_t t = reverse ? T_ - 1 - k : k;
    // The states entering step t.
    for (int64_t b = 0; b < B; ++b) {
      const int64_t src = StateSource(t, op.lengths[b], reverse);
      const T* hs = src < 0 ? op.h0 + b * H : y + src * pk.bh + b * H;
      std::memcpy(h_in.get() + (t * B + b) * H, hs, sizeof(T) * H);
    }
    // The gradient reaching the cell's output at t: its output's (unless zeroed past the
    // end) and, inside the sequence, the next step's.
    const T* gy = gout + t * pk.bh;
    for (int64_t b = 0; b < B; ++b) {
      const bool inside = t < op.lengths[b];
      const bool out_live = inside || !zero_padded;
      T* d = dh_new.data() + b * H;
      for (int64_t j = 0; j < H; ++j) {
        d[j] = (out_live ? gy[b * H + j] : T(0)) + (inside ? dh[b * H + j] : T(0));
      }
    }
    T* dpt = dp.get() + t * B * GH;
    // The gradients of the saved rows themselves (zero when only the outputs and states
    // are used, as in the layers; the op is a function of all its output rows).
    const T* gsaved = gout + pk.saved_row * pk.bh;
    if (lstm) {
      const T* sv = saved + t * 4 * pk.bh;
      const T* cs = saved + 4 * T_ * pk.bh;
      const T* gsv = gsaved + t * 4 * pk.bh;
      const T* gcs = gsaved + (4 * T_ + t) * pk.bh;
      for (int64_t b = 0; b < B; ++b) {
        const bool inside = t < op.lengths[b];
        const T* gb = sv + b * 4 * H;
        const T *ig = gb, *fg = gb + H, *gg = gb + 2 * H, *og = gb + 3 * H;
        const T* cn = cs + t * pk.bh + b * H;
        const int64_t src = StateSource(t, op.lengths[b], reverse);
        const T* cp = src < 0 ? op.c0 + b * H : cs + src * pk.bh + b * H;
        Tanh(cn, tanh_c.data(), H);
        const T* dn = dh_new.data() + b * H;
        const T* gg4 = gsv + b * 4 * H;
        const T* gcb = gcs + b * H;
        T* db = dpt + b * GH;
        T* dcb = dc.data() + b * H;
        for (int64_t j = 0; j < H; ++j) {
          const T tc = tanh_c[j];
          const T dcn = (inside ? dcb[j] : T(0)) + dn[j] * og[j] * (T(1) - tc * tc) + gcb[j];
          db[j] = (dcn * gg[j] + gg4[j]) * ig[j] * (T(1) - ig[j]);
          db[H + j] = (dcn * cp[j] + gg4[H + j]) * fg[j] * (T(1) - fg[j]);
          db[2 * H + j] = (dcn * ig[j] + gg4[2 * H + j]) * (T(1) - gg[j] * gg[j]);
          db[3 * H + j] = (dn[j] * tc + gg4[3 * H + j]) * og[j] * (T(1) - og[j]);
          // A carried cell state keeps its gradient; an updated one hands f's share back.
          dcb[j] = (inside ? T(0) : dcb[j]) + dcn * fg[j];
        }
      }
    } else if (mode == kGru) {
      const T* sv = saved + t * 4 * pk.bh;
      const T* gsv = gsaved + t * 4 * pk.bh;
      T* dqt = dq.get() + t * B * GH;
      for (int64_t b = 0; b < B; ++b) {
        const T* rb = sv + b * 4 * H;
        const T *zb = rb + H, *nb = rb + 2 * H, *hn = rb + 3 * H;
        const T* gr = gsv + b * 4 * H;  // the saved rows' own gradients: r, z, c, h's part
        const T* hp = h_in.get() + (t * B + b) * H;
        const T* dn = dh_new.data() + b * H;
        T* db = dpt + b * GH;
        T* dqb = dqt + b * GH;
        T* dpv = dprev.data() + b * H;
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
      }
    } else {
      const T* yt = y + t * pk.bh;
      for (int64_t b = 0; b < B; ++b) {
        const bool out_live = t < op.lengths[b] || !zero_padded;
        const T* hb = yt + b * H;  // the activation (a zeroed one is not live)
        const T* dn = dh_new.data() + b * H;
        T* db = dpt + b * GH;
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
    }
    // The gradient reaching the state entering t: through weight_hh (and, for the GRU,
    // directly), then carried (Note [Masked steps of a fused RNN]).
    const T* dhh = mode == kGru ? dq.get() + t * B * GH : dpt;
    recur(dhh, dprev.data());
    // The biases' gradients, while the step's rows are in cache.
    for (int64_t b = 0; b < B; ++b) {
      const T* a = dpt + b * GH;
      for (int64_t j = 0; j < GH; ++j) db_ih[j] += a[j];
      if (mode == kGru) {
        const T* q = dhh + b * GH;
        for (int64_t j = 0; j < GH; ++j) db_hh[j] += q[j];
      }
    }
    for (int64_t b = 0; b < B; ++b) {
      const bool inside = t < op.lengths[b];
      for (int64_t j = 0; j < H; ++j) {
        dh[b * H + j] = (inside ? T(0) : dh[b * H + j]) + dprev[b * H + j];
      }
    }
  }
  std::copy(dh.begin(), dh.end(), dh0);  // (empty for a batch of 0: no memcpy of null)
  if (lstm) std::copy(dc.begin(), dc.end(), dc0);
  // bias_hh meets the same pre-activations as bias_ih but for the GRU's candidate.
  if (mode != kGru) std::copy(db_ih, db_ih + GH, db_hh);
  if (T_ * B == 0) return;
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
