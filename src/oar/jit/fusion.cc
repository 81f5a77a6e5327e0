#include "oar/jit/fusion.h"

#include <optional>
#include <string_view>

#include "oar/autograd/amp_mode.h"
#include "oar/core/flags.h"
#include "oar/core/grad_mode.h"
#include "oar/core/profiler/record_event.h"
#include "oar/eager/dygraph_functions.h"
#include "oar/eager/trace.h"
#include "oar/jit/program.h"

namespace oar::jit {

namespace {

using funcs::ChainStep;
using Kind = ChainStep::Kind;

// The step an op is, without its operands; nullopt if the op does not fuse.
std::optional<ChainStep> StepOf(const ProgramOp& op) {
  static constexpr std::pair<std::string_view, vec::Fn> kVec[] = {
      {"exp", vec::Fn::kExp}, {"tanh", vec::Fn::kTanh}, {"sigmoid", vec::Fn::kSigmoid}};
  static constexpr std::pair<std::string_view, Kind> kPlain[] = {
      {"relu", Kind::kRelu},         {"add", Kind::kAdd},       {"subtract", Kind::kSubtract},
      {"multiply", Kind::kMultiply}, {"divide", Kind::kDivide}, {"scale", Kind::kScale}};
  ChainStep s{};
  for (const auto& [name, fn] : kVec) {
    if (op.type == name) {
      s.kind = Kind::kVec;
      s.fn = fn;
      return s;
    }
  }
  for (const auto& [name, kind] : kPlain) {
    if (op.type != name) continue;
    s.kind = kind;
    if (kind == Kind::kScale) {
      if (!op.symbolic.empty()) return std::nullopt;
      const double scale = std::get<double>(op.attrs[0]), bias = std::get<double>(op.attrs[1]);
      s.scale = static_cast<float>(scale);
      s.bias = static_cast<float>(bias);
      s.bias_zero = bias == 0.0;
      s.bias_after_scale = std::get<bool>(op.attrs[2]);
    }
    return s;
  }
  return std::nullopt;
}

bool Binary(Kind k) { return k != Kind::kVec && k != Kind::kRelu && k != Kind::kScale; }

}  // namespace

std::vector<FusedChain> PlanChains(const Program& p) {
  const std::vector<int64_t>& uses = p.uses;
  std::vector<FusedChain> chains;
  size_t k = 0;
  while (k < p.ops.size()) {
    std::optional<ChainStep> first = StepOf(p.ops[k]);
    if (!first) {
      ++k;
      continue;
    }
    FusedChain c;
    c.first = c.last = k;
    auto operand = [&](int64_t id) {  // an external value's register
      for (size_t i = 0; i < c.inputs.size(); ++i) {
        if (c.inputs[i] == id) return static_cast<int>(i);
      }
      c.inputs.push_back(id);
      return static_cast<int>(c.inputs.size() - 1);
    };
    const ProgramOp& op0 = p.ops[k];
    first->a = operand(op0.inputs[0][0]);
    if (Binary(first->kind)) first->b = operand(op0.inputs[1][0]);
    std::vector<ChainStep> steps{*first};
    int64_t result = op0.output;
    size_t j = k + 1;
    for (; j < p.ops.size(); ++j) {
      const ProgramOp& op = p.ops[j];
      std::optional<ChainStep> s = StepOf(op);
      if (!s || uses[static_cast<size_t>(result)] != 1) break;
      const int64_t x = op.inputs[0][0];
      const int64_t y = Binary(s->kind) ? op.inputs[1][0] : -1;
      if (x != result && y != result) break;  // not fed by the chain
      if (x == result && y == result) break;  // x op x: the intermediate read twice
      // registers are filled in once the inputs are known: mark the chain's value
      s->a = x == result ? -1 : 0;
      s->b = y == result ? -1 : 0;
      if (x != result) s->a = operand(x);
      if (Binary(s->kind) && y != result) s->b = operand(y);
      steps.push_back(*s);
      result = op.output;
    }
    if (steps.size() >= 2) {
      // resolve "the step before" (-1) to its register: inputs come first
      const int n_in = static_cast<int>(c.inputs.size());
      for (size_t i = 1; i < steps.size(); ++i) {
        const int prev = n_in + static_cast<int>(i) - 1;
        if (steps[i].a == -1) steps[i].a = prev;
        if (Binary(steps[i].kind) && steps[i].b == -1) steps[i].b = prev;
      }
      c.last = j - 1;
      c.steps = std::move(steps);
      c.output = result;
      chains.push_back(std::move(c));
      k = j;
    } else {
      ++k;
    }
  }
  return chains;
}

bool ReplayMayFuse() {
  // A capture running (a loaded model called inside a to_static function) records
  // the ops themselves, which a fused group would hide from it.
  return amp::CurrentLevel() == amp::Level::kO0 && !FLAGS_check_nan_inf() && !Tracer::Current();
}

bool RunFused(const FusedChain& chain, std::vector<Tensor>& values) {
  if (!ReplayMayFuse()) return false;
  const bool grad = HasGrad();
  const Tensor& x0 = values[static_cast<size_t>(chain.inputs[0])];
  std::vector<const float*> inputs;
  inputs.reserve(chain.inputs.size());
  for (int64_t id : chain.inputs) {
    const Tensor& t = values[static_cast<size_t>(id)];
    if (!t.defined() || !t.is_dense() || t.dtype() != DType::kFloat32 || !t.is_contiguous() ||
        t.dims() != x0.dims() || (grad && !t.stop_gradient())) {
      return false;
    }
    inputs.push_back(t.data<float>());
  }
  profiler::RecordEvent event(profiler::StaticName("fused_elementwise"),
                              profiler::EventKind::kOperator);
  Tensor out = ::oar::empty(x0.shape(), DType::kFloat32);
  funcs::RunChain(inputs, chain.steps, out.data<float>(), out.numel());
  values[static_cast<size_t>(chain.output)] = std::move(out);
  return true;
}

}  // namespace oar::jit
