// Process-wide switches (Paddle's FLAGS_*). Each is an atomic, so reading
// one on the hot path costs a relaxed load and setting one is thread-safe.
#pragma once

#include <atomic>
#include <string>
#include <string_view>
#include <vector>

namespace oar {

struct Flags {
  // Every forward op and grad node checks its outputs for NaN/Inf.
  std::atomic<bool> check_nan_inf{false};
  // Intra-op threads are used only above this many elements.
  std::atomic<int64_t> parallel_threshold{1 << 15};
  // Every grad node records its forward op's call site
  // (Note [Forward stacks] in autograd/forward_stack.h).
  std::atomic<bool> record_forward_stack{false};
  // Replays of captured programs run chains of element-wise ops as one pass
  // (src/oar/jit/fusion.h); off: op by op.
  std::atomic<bool> jit_fuse_elementwise{true};
  // nn.SimpleRNN/LSTM/GRU run each layer as one fused op (src/oar/ops/rnn.yaml);
  // off: op by op, differentiable to any order.
  std::atomic<bool> fused_rnn{true};
};

namespace detail {
// Constant-initialised (its atomics are), so reading a flag needs no guard.
extern constinit Flags global_flags;
}  // namespace detail

inline Flags& GlobalFlags() { return detail::global_flags; }

inline bool FLAGS_check_nan_inf() {
  return GlobalFlags().check_nan_inf.load(std::memory_order_relaxed);
}

inline bool FLAGS_jit_fuse_elementwise() {
  return GlobalFlags().jit_fuse_elementwise.load(std::memory_order_relaxed);
}

inline bool FLAGS_record_forward_stack() {
  return GlobalFlags().record_forward_stack.load(std::memory_order_relaxed);
}

// By name ("FLAGS_check_nan_inf" or "check_nan_inf"), for the Python set_flags/get_flags.
void SetFlag(std::string_view name, double value);
double GetFlag(std::string_view name);
std::vector<std::string> FlagNames();

}  // namespace oar
