#include "oar/api/nan_inf_check.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <mutex>

#include "oar/core/flags_check.h"
#include "oar/kernels/funcs/copy.h"

namespace oar {
namespace {

// The reporting settings, read under the mutex only while the check is on.
struct Settings {
  std::mutex mu;
  std::string dir;
  std::vector<std::string> checked, skipped;
};

Settings& GetSettings() {
  static Settings s;
  return s;
}

bool Contains(const std::vector<std::string>& v, const std::string& op) {
  return std::find(v.begin(), v.end(), op) != v.end();
}

// Paddle's short dtype names in the report.
std::string ShortName(DType dt) {
  switch (dt) {
    case DType::kFloat16:
      return "fp16";
    case DType::kBFloat16:
      return "bf16";
    case DType::kFloat32:
      return "fp32";
    case DType::kFloat64:
      return "fp64";
    default:
      return std::string(DTypeName(dt));
  }
}

std::string Sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%e", v);
  return buf;
}

}  // namespace

NumericStats ComputeNumericStats(const Tensor& t) {
  OAR_ENFORCE(t.initialized() && IsFloating(t.dtype()),
              errors::InvalidType("check_numerics: expected an initialized floating tensor"));
  const DenseTensor d = funcs::Contiguous(*t.impl());
  NumericStats s;
  s.numel = d.numel();
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
  VisitDType(d.dtype(), [&]<typename T>() {
    if constexpr (std::is_floating_point_v<compute_t<T>>) {
      const T* p = static_cast<const T*>(d.data());
      for (int64_t i = 0; i < d.numel(); ++i) {
        const double v = static_cast<double>(static_cast<compute_t<T>>(p[i]));
        sum += v;
        if (std::isnan(v)) {
          ++s.num_nan;
          continue;
        }
        s.num_inf += std::isinf(v);
        s.num_zero += v == 0;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    }
  });
  if (s.numel - s.num_nan > 0) {
    s.max = hi;
    s.min = lo;
  }
  s.mean = s.numel ? sum / static_cast<double>(s.numel) : 0.0;
  return s;
}

std::string FormatNumericStats(const std::string& op, const std::string& tensor, DType dtype,
                               const NumericStats& s, bool error) {
  return StrCat("[PRECISION] [", error ? "ERROR" : "INFO", "] in [device=cpu, op=", op,
                ", tensor=", tensor, ", dtype=", ShortName(dtype), "], numel=", s.numel,
                ", num_nan=", s.num_nan, ", num_inf=", s.num_inf, ", num_zero=", s.num_zero,
                ", max=", Sci(s.max), ", min=", Sci(s.min), ", mean=", Sci(s.mean));
}

void SetNanInfDebugPath(const std::string& dir) {
  if (!dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    OAR_ENFORCE(!ec, errors::InvalidArgument("set_nan_inf_debug_path: cannot create '", dir,
                                             "': ", ec.message()));
  }
  Settings& st = GetSettings();
  std::lock_guard<std::mutex> lock(st.mu);
  st.dir = dir;
}

void SetNanInfOpLists(std::vector<std::string> checked, std::vector<std::string> skipped) {
  Settings& st = GetSettings();
  std::lock_guard<std::mutex> lock(st.mu);
  st.checked = std::move(checked);
  st.skipped = std::move(skipped);
}

void CheckTensorHasNanOrInf(const std::string& op, const Tensor& t) {
  if (!t.initialized() || !IsFloating(t.dtype())) return;
  Settings& st = GetSettings();
  std::string dir;
  {
    std::lock_guard<std::mutex> lock(st.mu);
    if ((!st.checked.empty() && !Contains(st.checked, op)) || Contains(st.skipped, op)) return;
    dir = st.dir;
  }
  const NumericStats s = ComputeNumericStats(t);
  const bool bad = s.num_nan || s.num_inf;
  const int level = FLAGS_check_nan_inf_level();
  if (level == 0) {
    if (!bad) return;
    throw errors::PreconditionNotMet("FLAGS_check_nan_inf: the output of ", op, " (", t.dtype(),
                                     DimsToString(t.impl()->dims()), ") contains ", s.num_nan,
                                     " NaN and ", s.num_inf, " Inf values");
  }
  // float16 overflows beyond 65504: a float32 tensor with larger values would not
  // survive a cast to half precision
  const bool overflow =
      t.dtype() == DType::kFloat32 && std::max(std::abs(s.max), std::abs(s.min)) > 65504.0;
  if (!(bad || (level >= 2 && overflow) || level >= 3)) return;
  const std::string line = FormatNumericStats(op, "", t.dtype(), s, bad || overflow);
  std::lock_guard<std::mutex> lock(st.mu);  // one writer at a time: whole lines
  if (dir.empty()) {
    std::cerr << line << '\n';
    return;
  }
  std::ofstream f(std::filesystem::path(dir) / StrCat("worker_", ::getpid(), ".log"),
                  std::ios::app);
  OAR_ENFORCE(f.good(),
              errors::PreconditionNotMet("FLAGS_check_nan_inf: cannot write to '", dir, "'"));
  f << line << '\n';
}

void CheckTensorHasNanOrInf(const std::string& op, const std::vector<Tensor>& ts) {
  for (const auto& t : ts) CheckTensorHasNanOrInf(op, t);
}

}  // namespace oar
