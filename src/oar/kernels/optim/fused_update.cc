#include "oar/kernels/optim/fused_update.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "oar/core/errors.h"
#include "oar/core/parallel.h"

namespace oar::optim {
namespace {

// Work is cut into chunks of this many elements, independent of the thread
// count, so reductions (Lamb's norms, SquaredNorm) add in a fixed order.
constexpr int64_t kChunk = 1 << 15;

struct Chunk {
  size_t slot;
  int64_t begin, end;
};

template <typename Sizes>
std::vector<Chunk> Chunks(size_t n, Sizes numel) {
  std::vector<Chunk> chunks;
  for (size_t s = 0; s < n; ++s) {
    const int64_t len = numel(s);
    for (int64_t b = 0; b < len; b += kChunk) chunks.push_back({s, b, std::min(len, b + kChunk)});
  }
  return chunks;
}

template <typename F>
void ForChunks(const std::vector<Chunk>& chunks, F&& f) {
  ParallelFor(0, static_cast<int64_t>(chunks.size()), kChunk * 8, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) f(i, chunks[static_cast<size_t>(i)]);
  });
}

// Calls f with std::bool_constant<b> for each flag. A loop-invariant flag tested
// inside an element loop left GCC's vectoriser with control flow it would not
// unswitch (Adam ran scalar at 2.3 ns a parameter); as template arguments the
// loop body is straight-line code.
template <typename F>
void WithFlags(F&& f) {
  f();
}
template <typename F, typename... B>
void WithFlags(F&& f, bool b, B... rest) {
  auto bind = [&](auto flag) { WithFlags([&](auto... more) { f(flag, more...); }, rest...); };
  if (b) {
    bind(std::true_type{});
  } else {
    bind(std::false_type{});
  }
}

// The gradient with Paddle's regularizers folded in, their presence known at
// compile time (see WithFlags).
template <typename T, bool kReg>
struct Decay {
  T l2, l1;
  T operator()(T g, T p) const {
    if constexpr (kReg) g += l2 * p + l1 * static_cast<T>((T(0) < p) - (p < T(0)));
    return g;
  }
};

// A parameter's arrays (st[k] null past the rule's states) and the step's betas and
// epsilon, handed to the loops by value: read through a loop's reference captures,
// GCC reloaded them after every store to the parameter and left the loop scalar.
template <typename T>
struct Elems {
  T* p;
  const T* g;
  T* st[3];
  T b1, b2, eps;
};

// ForChunks for the per-parameter loops: f(chunk index, chunk, slot, decay, elems),
// with decay a Decay<T, kReg> so each loop is compiled with and without regularizer.
template <typename T, typename F>
void ForSlotChunks(const std::vector<Chunk>& chunks, std::span<Slot> slots, const Hyper& h, F&& f) {
  ForChunks(chunks, [&](int64_t ci, const Chunk& c) {
    const Slot& s = slots[c.slot];
    const T l2 = static_cast<T>(s.l2), l1 = static_cast<T>(s.l1);
    auto data = [](DenseTensor* t) { return t ? t->data<T>() : nullptr; };
    const Elems<T> e{s.param->data<T>(),
                     s.grad->data<T>(),
                     {data(s.state[0]), data(s.state[1]), data(s.state[2])},
                     static_cast<T>(h.beta1),
                     static_cast<T>(h.beta2),
                     static_cast<T>(h.epsilon)};
    WithFlags([&](auto reg) { f(ci, c, s, Decay<T, decltype(reg)::value>{l2, l1}, e); },
              s.l1 != 0 || s.l2 != 0);
  });
}

template <typename T>
void Apply(Rule rule, const Hyper& h, std::span<Slot> slots) {
  auto chunks = Chunks(slots.size(), [&](size_t s) { return slots[s].param->numel(); });
  switch (rule) {
    case Rule::kSGD:
      ForSlotChunks<T>(chunks, slots, h,
                       [&](int64_t, const Chunk& c, const Slot& s, auto decay, Elems<T> e) {
                         const auto [p, g, st, b1, b2, eps] = e;
                         const T lr = static_cast<T>(s.lr);
                         for (int64_t i = c.begin; i < c.end; ++i) p[i] -= lr * decay(g[i], p[i]);
                       });
      return;
    case Rule::kMomentum:
      ForSlotChunks<T>(chunks, slots, h,
                       [&](int64_t, const Chunk& c, const Slot& s, auto decay, Elems<T> e) {
                         const auto [p, g, st, b1, b2, eps] = e;
                         T* v = st[0];
                         const T lr = static_cast<T>(s.lr), mu = static_cast<T>(h.momentum);
                         for (int64_t i = c.begin; i < c.end; ++i) {
                           const T gi = decay(g[i], p[i]);
                           v[i] = mu * v[i] + gi;
                           p[i] -= h.nesterov ? lr * (gi + mu * v[i]) : lr * v[i];
                         }
                       });
      return;
    case Rule::kAdam:
    case Rule::kAdamW:
      ForSlotChunks<T>(
          chunks, slots, h, [&](int64_t, const Chunk& c, const Slot& s, auto decay, Elems<T> e) {
            const auto [p, g, st, b1, b2, eps] = e;
            T* m = st[0];
            T* v = st[1];
            T* vmax = h.amsgrad ? st[2] : nullptr;
            // lr * sqrt(1 - b2^t) / (1 - b1^t), and epsilon scaled alike: PyTorch's
            // lr / bc1 * m / (sqrt(v) / sqrt(bc2) + eps), multiplied through by sqrt(bc2).
            const double bc1 = 1 - std::pow(h.beta1, static_cast<double>(s.step));
            const double sbc2 = std::sqrt(1 - std::pow(h.beta2, static_cast<double>(s.step)));
            const T step = static_cast<T>(s.lr * sbc2 / bc1);
            const T eps_hat = static_cast<T>(h.epsilon * sbc2);
            const T keep = static_cast<T>(1 - s.lr * s.decoupled);
            // The pointers by value: read through the lambda's reference captures, GCC
            // reloads them every iteration and gives up vectorising.
            auto loop = [=, &c](auto decoupled, auto ams) {
              for (int64_t i = c.begin; i < c.end; ++i) {
                if constexpr (decoupled()) p[i] *= keep;
                const T gi = decay(g[i], p[i]);
                m[i] = b1 * m[i] + (T(1) - b1) * gi;
                v[i] = b2 * v[i] + (T(1) - b2) * gi * gi;
                T denom_v = v[i];
                if constexpr (ams()) denom_v = vmax[i] = std::max(vmax[i], v[i]);
                p[i] -= step * m[i] / (std::sqrt(denom_v) + eps_hat);
              }
            };
            WithFlags(loop, rule == Rule::kAdamW, vmax != nullptr);
          });
      return;
    case Rule::kAdamax:
      ForSlotChunks<T>(
          chunks, slots, h, [&](int64_t, const Chunk& c, const Slot& s, auto decay, Elems<T> e) {
            const auto [p, g, st, b1, b2, eps] = e;
            T* m = st[0];
            T* u = st[1];
            const T step =
                static_cast<T>(s.lr / (1 - std::pow(h.beta1, static_cast<double>(s.step))));
            for (int64_t i = c.begin; i < c.end; ++i) {
              const T gi = decay(g[i], p[i]);
              m[i] = b1 * m[i] + (T(1) - b1) * gi;
              u[i] = std::max(b2 * u[i] + eps, std::abs(gi));  // Paddle: epsilon inside the max
              p[i] -= step * m[i] / u[i];
            }
          });
      return;
    case Rule::kAdagrad:
      ForSlotChunks<T>(chunks, slots, h,
                       [&](int64_t, const Chunk& c, const Slot& s, auto decay, Elems<T> e) {
                         const auto [p, g, st, b1, b2, eps] = e;
                         T* acc = st[0];
                         const T lr = static_cast<T>(s.lr);
                         for (int64_t i = c.begin; i < c.end; ++i) {
                           const T gi = decay(g[i], p[i]);
                           acc[i] += gi * gi;
                           p[i] -= lr * gi / (std::sqrt(acc[i]) + eps);
                         }
                       });
      return;
    case Rule::kRMSProp:
      ForSlotChunks<T>(chunks, slots, h,
                       [&](int64_t, const Chunk& c, const Slot& s, auto decay, Elems<T> e) {
                         const auto [p, g, st, b1, b2, eps] = e;
                         T* ms = st[0];
                         T* mom = st[1];
                         T* mg = h.centered ? st[2] : nullptr;
                         const T lr = static_cast<T>(s.lr), rho = static_cast<T>(h.rho);
                         const T mu = static_cast<T>(h.momentum);
                         auto loop = [=, &c](auto centered) {
                           for (int64_t i = c.begin; i < c.end; ++i) {
                             const T gi = decay(g[i], p[i]);
                             ms[i] = rho * ms[i] + (T(1) - rho) * gi * gi;
                             T var = ms[i];
                             if constexpr (centered()) {
                               mg[i] = rho * mg[i] + (T(1) - rho) * gi;
                               var -= mg[i] * mg[i];
                             }
                             // Paddle: epsilon inside the square root, lr inside the momentum.
                             mom[i] = mu * mom[i] + lr * gi / std::sqrt(var + eps);
                             p[i] -= mom[i];
                           }
                         };
                         WithFlags(loop, mg != nullptr);
                       });
      return;
    case Rule::kLamb: {
      // Pass 1 updates the moments and sums |p|^2 and |r|^2 per chunk; pass 2
      // recomputes r from the moments and applies the trust ratio |p| / |r|.
      std::vector<double> p2(chunks.size()), r2(chunks.size());
      auto r_of = [&](const Slot& s, T mi, T vi, T pi) {
        const double bc1 = 1 - std::pow(h.beta1, static_cast<double>(s.step));
        const double bc2 = 1 - std::pow(h.beta2, static_cast<double>(s.step));
        return static_cast<T>((mi / bc1) / (std::sqrt(vi / bc2) + h.epsilon)) +
               static_cast<T>(s.decoupled) * pi;
      };
      ForSlotChunks<T>(chunks, slots, h,
                       [&](int64_t ci, const Chunk& c, const Slot& s, auto decay, Elems<T> e) {
                         const auto [p, g, st, b1, b2, eps] = e;
                         T* m = st[0];
                         T* v = st[1];
                         double sp = 0, sr = 0;
                         for (int64_t i = c.begin; i < c.end; ++i) {
                           const T gi = decay(g[i], p[i]);
                           m[i] = b1 * m[i] + (T(1) - b1) * gi;
                           v[i] = b2 * v[i] + (T(1) - b2) * gi * gi;
                           const double r = r_of(s, m[i], v[i], p[i]);
                           sp += static_cast<double>(p[i]) * p[i];
                           sr += r * r;
                         }
                         p2[static_cast<size_t>(ci)] = sp;
                         r2[static_cast<size_t>(ci)] = sr;
                       });
      std::vector<double> trust(slots.size(), 0.0), np(slots.size()), nr(slots.size());
      for (size_t ci = 0; ci < chunks.size(); ++ci) {
        np[chunks[ci].slot] += p2[ci];
        nr[chunks[ci].slot] += r2[ci];
      }
      for (size_t s = 0; s < slots.size(); ++s) {
        trust[s] = np[s] > 0 && nr[s] > 0 ? std::sqrt(np[s]) / std::sqrt(nr[s]) : 1.0;
      }
      ForSlotChunks<T>(chunks, slots, h,
                       [&](int64_t, const Chunk& c, const Slot& s, auto decay, Elems<T> e) {
                         const auto [p, g, st, b1, b2, eps] = e;
                         const T* m = st[0];
                         const T* v = st[1];
                         const T step = static_cast<T>(s.lr * trust[c.slot]);
                         for (int64_t i = c.begin; i < c.end; ++i)
                           p[i] -= step * r_of(s, m[i], v[i], p[i]);
                       });
      return;
    }
    case Rule::kAdadelta:
      ForSlotChunks<T>(chunks, slots, h,
                       [&](int64_t, const Chunk& c, const Slot& s, auto decay, Elems<T> e) {
                         const auto [p, g, st, b1, b2, eps] = e;
                         T* sq = st[0];  // running mean of grad^2
                         T* du = st[1];  // running mean of update^2
                         const T lr = static_cast<T>(s.lr), rho = static_cast<T>(h.rho);
                         for (int64_t i = c.begin; i < c.end; ++i) {
                           const T gi = decay(g[i], p[i]);
                           sq[i] = rho * sq[i] + (T(1) - rho) * gi * gi;
                           const T delta = std::sqrt(du[i] + eps) / std::sqrt(sq[i] + eps) * gi;
                           du[i] = rho * du[i] + (T(1) - rho) * delta * delta;
                           p[i] -= lr * delta;
                         }
                       });
      return;
    case Rule::kNAdam: {
      // mu_t and mu_{t+1} from the momentum decay, and the running product of the
      // mu's (one element per parameter), advanced once per slot.
      std::vector<double> coef_g(slots.size()), coef_m(slots.size()), bc2(slots.size());
      for (size_t k = 0; k < slots.size(); ++k) {
        const Slot& s = slots[k];
        const double t = static_cast<double>(s.step);
        const double mu = h.beta1 * (1 - 0.5 * std::pow(0.96, t * h.momentum_decay));
        const double mu_next = h.beta1 * (1 - 0.5 * std::pow(0.96, (t + 1) * h.momentum_decay));
        T* prod = s.state[2]->data<T>();
        const double mu_prod = static_cast<double>(prod[0]) * mu;
        prod[0] = static_cast<T>(mu_prod);
        coef_g[k] = s.lr * (1 - mu) / (1 - mu_prod);
        coef_m[k] = s.lr * mu_next / (1 - mu_prod * mu_next);
        bc2[k] = 1 - std::pow(h.beta2, t);
      }
      ForSlotChunks<T>(
          chunks, slots, h, [&](int64_t, const Chunk& c, const Slot& s, auto decay, Elems<T> e) {
            const auto [p, g, st, b1, b2, eps] = e;
            T* m = st[0];
            T* v = st[1];
            const T cg = static_cast<T>(coef_g[c.slot]), cm = static_cast<T>(coef_m[c.slot]);
            const T b2c = static_cast<T>(bc2[c.slot]);
            for (int64_t i = c.begin; i < c.end; ++i) {
              const T gi = decay(g[i], p[i]);
              m[i] = b1 * m[i] + (T(1) - b1) * gi;
              v[i] = b2 * v[i] + (T(1) - b2) * gi * gi;
              const T denom = std::sqrt(v[i] / b2c) + eps;
              p[i] -= cg * gi / denom;
              p[i] -= cm * m[i] / denom;
            }
          });
      return;
    }
    case Rule::kRAdam:
      ForSlotChunks<T>(
          chunks, slots, h, [&](int64_t, const Chunk& c, const Slot& s, auto decay, Elems<T> e) {
            const auto [p, g, st, b1, b2, eps] = e;
            T* m = st[0];
            T* v = st[1];
            // The variance of the adaptive rate is tractable once rho_t > 5; before,
            // the step is plain momentum SGD (Liu et al.).
            const double t = static_cast<double>(s.step);
            const double bc1 = 1 - std::pow(h.beta1, t), bc2 = 1 - std::pow(h.beta2, t);
            const double rho_inf = 2 / (1 - h.beta2) - 1;
            const double rho_t = rho_inf - 2 * t * std::pow(h.beta2, t) / bc2;
            const bool adaptive = rho_t > 5;
            const double rect = adaptive ? std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf /
                                                     ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                                         : 0.0;
            const T step = static_cast<T>(s.lr / bc1 * (adaptive ? rect * std::sqrt(bc2) : 1.0));
            for (int64_t i = c.begin; i < c.end; ++i) {
              const T gi = decay(g[i], p[i]);
              m[i] = b1 * m[i] + (T(1) - b1) * gi;
              v[i] = b2 * v[i] + (T(1) - b2) * gi * gi;
              p[i] -= adaptive ? step * m[i] / (std::sqrt(v[i]) + eps) : step * m[i];
            }
          });
      return;
    case Rule::kRprop:
      ForSlotChunks<T>(
          chunks, slots, h, [&](int64_t, const Chunk& c, const Slot& s, auto decay, Elems<T> e) {
            const auto [p, g, st, b1, b2, eps] = e;
            T* prev = st[0];  // the previous step's (possibly zeroed) gradient
            T* size = st[1];  // per-element step sizes
            const T up = static_cast<T>(h.eta_plus), down = static_cast<T>(h.eta_minus);
            const T lo = static_cast<T>(h.step_min), hi = static_cast<T>(h.step_max);
            for (int64_t i = c.begin; i < c.end; ++i) {
              T gi = decay(g[i], p[i]);
              const T agree = gi * prev[i];
              if (agree > T(0)) {
                size[i] = std::min(size[i] * up, hi);
              } else if (agree < T(0)) {
                size[i] = std::max(size[i] * down, lo);
                gi = T(0);  // a sign change: skip this step and forget the gradient
              }
              p[i] -= size[i] * static_cast<T>((T(0) < gi) - (gi < T(0)));
              prev[i] = gi;
            }
          });
      return;
    case Rule::kASGD:
      ForSlotChunks<T>(
          chunks, slots, h, [&](int64_t, const Chunk& c, const Slot& s, auto decay, Elems<T> e) {
            const auto [p, g, st, b1, b2, eps] = e;
            T* d = st[0];  // the sum of the kept gradients
            // the kept gradient this step replaces: slot (step - 1) mod batch_num
            const int64_t n = h.batch_num, numel = s.param->numel();
            T* y = st[1] + ((s.step - 1) % n) * numel;
            const T step = static_cast<T>(s.lr / static_cast<double>(std::min(s.step, n)));
            for (int64_t i = c.begin; i < c.end; ++i) {
              const T gi = decay(g[i], p[i]);
              d[i] += gi - y[i];
              y[i] = gi;
              p[i] -= step * d[i];
            }
          });
      return;
  }
}

void Check(Rule rule, const Hyper& h, std::span<Slot> slots) {
  const int states = StateCount(rule, h.amsgrad, h.centered);
  for (size_t i = 0; i < slots.size(); ++i) {
    const Slot& s = slots[i];
    if (!s.param || !s.grad) {
      throw errors::InvalidArgument("optimizer step: parameter ", i, " has no gradient");
    }
    const DType dt = s.param->dtype();
    if (dt != DType::kFloat32 && dt != DType::kFloat64) {
      throw errors::InvalidType("optimizer step: parameter ", i, " has dtype ", DTypeName(dt),
                                "; the fused update takes float32 and float64 parameters");
    }
    auto same = [&](const DenseTensor* t, const char* what) {
      if (!t) throw errors::InvalidArgument("optimizer step: parameter ", i, " has no ", what);
      if (t->dtype() != dt || t->dims() != s.param->dims()) {
        throw errors::InvalidArgument("optimizer step: the ", what, " of parameter ", i,
                                      " has dtype ", DTypeName(t->dtype()), " and shape ",
                                      t->dims(), ", expected the parameter's ", DTypeName(dt),
                                      " and ", s.param->dims());
      }
      if (!t->is_contiguous()) {
        throw errors::InvalidArgument("optimizer step: the ", what, " of parameter ", i,
                                      " is not contiguous");
      }
    };
    same(s.param, "value");
    same(s.grad, "gradient");
    for (int k = 0; k < states; ++k) {
      const DDim shape = StateShape(rule, h, k, s.param->dims());
      const DenseTensor* st = s.state[k];
      if (st && shape != s.param->dims()) {
        // a scalar or batch-of-gradients state: its element count is what the loop reads
        // CheckedProduct: Product([2**62, 4]) wraps to 0 and an empty state would pass
        if (st->dtype() != dt || st->numel() != CheckedProduct(shape) || !st->is_contiguous()) {
          throw errors::InvalidArgument("optimizer step: state ", k, " of parameter ", i,
                                        " has dtype ", DTypeName(st->dtype()), " and ", st->numel(),
                                        " elements, expected a contiguous ", DTypeName(dt),
                                        " tensor of shape ", DimsToString(shape));
        }
        continue;
      }
      same(st, "state");
    }
    if (s.step < 1) {
      throw errors::InvalidArgument("optimizer step: parameter ", i, " has step ", s.step,
                                    ", expected >= 1");
    }
  }
}

}  // namespace

Rule ParseRule(std::string_view name) {
  static constexpr std::pair<std::string_view, Rule> kRules[] = {
      {"sgd", Rule::kSGD},         {"momentum", Rule::kMomentum}, {"adam", Rule::kAdam},
      {"adamw", Rule::kAdamW},     {"adamax", Rule::kAdamax},     {"adagrad", Rule::kAdagrad},
      {"rmsprop", Rule::kRMSProp}, {"lamb", Rule::kLamb},         {"adadelta", Rule::kAdadelta},
      {"nadam", Rule::kNAdam},     {"radam", Rule::kRAdam},       {"rprop", Rule::kRprop},
      {"asgd", Rule::kASGD}};
  for (const auto& [n, r] : kRules) {
    if (n == name) return r;
  }
  throw errors::InvalidArgument(
      "optimizer step: unknown rule '", name,
      "' (sgd, momentum, adam, adamw, adamax, adagrad, rmsprop, lamb, adadelta, nadam, radam, "
      "rprop, asgd)");
}

int StateCount(Rule rule, bool amsgrad, bool centered) {
  switch (rule) {
    case Rule::kSGD:
      return 0;
    case Rule::kMomentum:
    case Rule::kAdagrad:
      return 1;
    case Rule::kAdam:
    case Rule::kAdamW:
      return amsgrad ? 3 : 2;
    case Rule::kAdamax:
    case Rule::kLamb:
      return 2;
    case Rule::kRMSProp:
      return centered ? 3 : 2;
    case Rule::kAdadelta:
    case Rule::kRAdam:
    case Rule::kRprop:
    case Rule::kASGD:
      return 2;
    case Rule::kNAdam:
      return 3;
  }
  return 0;
}

DDim StateShape(Rule rule, const Hyper& hyper, int k, const DDim& param) {
  if (rule == Rule::kNAdam && k == 2) return DDim{1};
  if (rule == Rule::kASGD && k == 1) {
    DDim shape{hyper.batch_num};
    for (int64_t d : param) shape.push_back(d);
    return shape;
  }
  return param;
}

double StateInitialValue(Rule rule, int k, double lr) {
  if (rule == Rule::kRprop && k == 1) return lr;
  if (rule == Rule::kNAdam && k == 2) return 1.0;
  return 0.0;
}

void FusedUpdate(Rule rule, const Hyper& hyper, std::span<Slot> slots) {
  if (rule == Rule::kASGD && hyper.batch_num < 1) {
    throw errors::InvalidArgument("optimizer step: ASGD's batch_num must be >= 1, got ",
                                  hyper.batch_num);
  }
  Check(rule, hyper, slots);
  // Parameters are grouped by dtype: one pass per dtype present.
  std::vector<Slot> f32, f64;
  for (const Slot& s : slots) (s.param->dtype() == DType::kFloat32 ? f32 : f64).push_back(s);
  if (!f32.empty()) Apply<float>(rule, hyper, f32);
  if (!f64.empty()) Apply<double>(rule, hyper, f64);
  for (const Slot& s : slots) {
    s.param->bump_inplace_version();
    for (DenseTensor* st : s.state) {
      if (st) st->bump_inplace_version();
    }
  }
}

double SquaredNorm(std::span<const DenseTensor* const> tensors) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    const DType dt = tensors[i]->dtype();
    if ((dt != DType::kFloat32 && dt != DType::kFloat64) || !tensors[i]->is_contiguous()) {
      throw errors::InvalidType("global norm: tensor ", i,
                                " must be a contiguous float32 or float64 tensor, got ",
                                DTypeName(dt));
    }
  }
  auto chunks = Chunks(tensors.size(), [&](size_t s) { return tensors[s]->numel(); });
  std::vector<double> part(chunks.size());
  ForChunks(chunks, [&](int64_t ci, const Chunk& c) {
    const DenseTensor* t = tensors[c.slot];
    double acc = 0;
    if (t->dtype() == DType::kFloat32) {
      const float* d = t->data<float>();
      for (int64_t i = c.begin; i < c.end; ++i) acc += static_cast<double>(d[i]) * d[i];
    } else {
      const double* d = t->data<double>();
      for (int64_t i = c.begin; i < c.end; ++i) acc += d[i] * d[i];
    }
    part[static_cast<size_t>(ci)] = acc;
  });
  double total = 0;
  for (double p : part) total += p;
  return total;
}

namespace {
// Scales d[begin, end) in place and tells whether a result is inf or NaN: the
// exponent bits are all ones exactly then, and an integer OR over them keeps
// the loop vectorised (a float sum would be kept in order, hence scalar).
template <typename T, typename Bits>
bool ScaleRange(T* d, int64_t begin, int64_t end, T f) {
  constexpr Bits kExp = std::is_same_v<T, float> ? Bits(0x7f800000u) : Bits(0x7ff0000000000000ull);
  Bits bad = 0;
  for (int64_t i = begin; i < end; ++i) {
    d[i] *= f;
    Bits b;
    std::memcpy(&b, &d[i], sizeof b);
    bad |= ((b & kExp) == kExp) ? Bits(1) : Bits(0);
  }
  return bad != 0;
}
}  // namespace

bool ScaleInPlace(std::span<DenseTensor* const> tensors, double factor) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    const DType dt = tensors[i]->dtype();
    if ((dt != DType::kFloat32 && dt != DType::kFloat64) || !tensors[i]->is_contiguous()) {
      throw errors::InvalidType("scale in place: tensor ", i,
                                " must be a contiguous float32 or float64 tensor, got ",
                                DTypeName(dt));
    }
  }
  auto chunks = Chunks(tensors.size(), [&](size_t s) { return tensors[s]->numel(); });
  std::vector<char> bad(chunks.size(), 0);  // one flag per chunk: no shared writes
  ForChunks(chunks, [&](int64_t k, const Chunk& c) {
    DenseTensor* t = tensors[c.slot];
    if (t->dtype() == DType::kFloat32) {
      bad[k] =
          ScaleRange<float, uint32_t>(t->data<float>(), c.begin, c.end, static_cast<float>(factor));
    } else {
      bad[k] = ScaleRange<double, uint64_t>(t->data<double>(), c.begin, c.end, factor);
    }
  });
  for (DenseTensor* t : tensors) t->bump_inplace_version();
  for (char b : bad) {
    if (b) return true;
  }
  return false;
}

}  // namespace oar::optim
