#include "oar/core/flags.h"

#include <atomic>

#include "oar/core/flags_check.h"

#include "oar/core/conv_flags.h"
#include "oar/core/errors.h"
#include "oar/core/jit_flags.h"

namespace oar {

namespace detail {
constinit Flags global_flags;
}  // namespace detail

namespace {
std::atomic<int>& CheckNanInfLevel() {
  static std::atomic<int> level{0};
  return level;
}

std::atomic<bool>& JitFoldConv() {
  static std::atomic<bool> on{true};
  return on;
}

std::atomic<bool>& ConvWinograd() {
  static std::atomic<bool> on{true};
  return on;
}

std::string_view Strip(std::string_view name) {
  if (name.starts_with("FLAGS_")) name.remove_prefix(6);
  return name;
}
std::string KnownFlags();
}  // namespace

void SetFlag(std::string_view name, double value) {
  const auto n = Strip(name);
  if (n == "check_nan_inf") {
    GlobalFlags().check_nan_inf.store(value != 0);
  } else if (n == "check_nan_inf_level") {
    OAR_ENFORCE(
        value == 0 || value == 1 || value == 2 || value == 3,
        errors::InvalidArgument("FLAGS_check_nan_inf_level must be 0, 1, 2 or 3, got ", value));
    CheckNanInfLevel().store(static_cast<int>(value));
  } else if (n == "record_forward_stack") {
    GlobalFlags().record_forward_stack.store(value != 0);
  } else if (n == "jit_fuse_elementwise") {
    GlobalFlags().jit_fuse_elementwise.store(value != 0);
  } else if (n == "jit_fold_conv") {
    JitFoldConv().store(value != 0);
  } else if (n == "conv_winograd") {
    ConvWinograd().store(value != 0);
  } else if (n == "fused_rnn") {
    GlobalFlags().fused_rnn.store(value != 0);
  } else if (n == "parallel_threshold") {
    OAR_ENFORCE(value >= 1,
                errors::InvalidArgument("FLAGS_parallel_threshold must be >= 1, got ", value));
    GlobalFlags().parallel_threshold.store(static_cast<int64_t>(value));
  } else {
    throw errors::InvalidArgument("set_flags(): unknown flag '", std::string(name),
                                  "'; known flags: ", KnownFlags());
  }
}

double GetFlag(std::string_view name) {
  const auto n = Strip(name);
  if (n == "check_nan_inf") return GlobalFlags().check_nan_inf.load() ? 1 : 0;
  if (n == "check_nan_inf_level") return CheckNanInfLevel().load();
  if (n == "record_forward_stack") return GlobalFlags().record_forward_stack.load() ? 1 : 0;
  if (n == "jit_fuse_elementwise") return GlobalFlags().jit_fuse_elementwise.load() ? 1 : 0;
  if (n == "jit_fold_conv") return JitFoldConv().load() ? 1 : 0;
  if (n == "conv_winograd") return ConvWinograd().load() ? 1 : 0;
  if (n == "fused_rnn") return GlobalFlags().fused_rnn.load() ? 1 : 0;
  if (n == "parallel_threshold")
    return static_cast<double>(GlobalFlags().parallel_threshold.load());
  throw errors::InvalidArgument("get_flags(): unknown flag '", std::string(name),
                                "'; known flags: ", KnownFlags());
}

int FLAGS_check_nan_inf_level() { return CheckNanInfLevel().load(std::memory_order_relaxed); }

bool FLAGS_jit_fold_conv() { return JitFoldConv().load(std::memory_order_relaxed); }

bool FLAGS_conv_winograd() { return ConvWinograd().load(std::memory_order_relaxed); }

std::vector<std::string> FlagNames() {
  return {"FLAGS_check_nan_inf",      "FLAGS_check_nan_inf_level", "FLAGS_conv_winograd",
          "FLAGS_fused_rnn",          "FLAGS_jit_fold_conv",       "FLAGS_jit_fuse_elementwise",
          "FLAGS_parallel_threshold", "FLAGS_record_forward_stack"};
}

namespace {
std::string KnownFlags() {
  std::string s;
  for (const auto& n : FlagNames()) s += (s.empty() ? "" : ", ") + n;
  return s;
}
}  // namespace

}  // namespace oar
