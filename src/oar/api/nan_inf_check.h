// FLAGS_check_nan_inf: scan an op's output and name the op when it holds NaN or Inf.
//
// FLAGS_check_nan_inf_level (src/oar/core/flags.h) decides what happens: at 0 a
// NaN/Inf raises; at 1 to 3 the check writes one line per reported tensor, in
// Paddle's format, to stderr or to <debug path>/worker_<pid>.log, and goes on:
//   [PRECISION] [ERROR] in [device=cpu, op=log, tensor=, dtype=fp32], numel=3,
//   num_nan=1, num_inf=0, num_zero=0, max=..., min=..., mean=...
// (level 1: tensors with NaN/Inf; 2: also float32 tensors beyond the float16
// range; 3: every tensor, tagged INFO when healthy -- what
// oar.amp.debugging.compare_accuracy reads). The checked/skipped op lists narrow
// which ops are looked at. The settings are read only while the flag is on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "oar/core/tensor.h"

namespace oar {

void CheckTensorHasNanOrInf(const std::string& op, const Tensor& t);
void CheckTensorHasNanOrInf(const std::string& op, const std::vector<Tensor>& ts);

// Counts and extremes of a floating tensor: NaN, Inf and zero counts; max and min
// over the values that are not NaN; the mean of all (NaN if any is).
struct NumericStats {
  int64_t numel = 0, num_nan = 0, num_inf = 0, num_zero = 0;
  double max = 0, min = 0, mean = 0;
};
// Throws InvalidType for a tensor that is not floating.
NumericStats ComputeNumericStats(const Tensor& t);
// The report line above for `op` (and an optional tensor name).
std::string FormatNumericStats(const std::string& op, const std::string& tensor, DType dtype,
                               const NumericStats& s, bool error);

// Where level >= 1 reports go: "" for stderr, else a directory (created if missing)
// holding worker_<pid>.log.
void SetNanInfDebugPath(const std::string& dir);
// Only these ops are checked (empty: all), and never these.
void SetNanInfOpLists(std::vector<std::string> checked, std::vector<std::string> skipped);

}  // namespace oar
