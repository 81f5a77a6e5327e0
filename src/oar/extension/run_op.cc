#include "oar/extension/run_op.h"

#include <algorithm>
#include <optional>

#include "oar/api/api.h"
#include "oar/autograd/custom_function.h"
#include "oar/autograd/eager_utils.h"
#include "oar/core/grad_mode.h"
#include "oar/core/profiler/record_event.h"
#include "oar/eager/dygraph_functions.h"
#include "oar/eager/trace.h"
#include "oar/extension/program_op.h"

namespace oar::extension {
namespace {

using paddle::CallInput;

// What one call keeps for its backward (Note [A custom op's grad node runs its grad op]).
struct CallState {
  std::shared_ptr<const CustomOp> op;
  size_t level = 0;
  std::vector<paddle::AttrValue> attrs;
  std::vector<size_t> input_counts;  // tensors per declared input (0: omitted)
  std::vector<DType> input_dtypes;   // of each present input tensor, in order
  std::vector<bool> input_present;
  std::vector<size_t> output_counts;
  // The inputs (false) and outputs (true) saved for the grad op, in saving order.
  std::vector<std::pair<bool, size_t>> saved;
};

std::string Names(const std::vector<ArgSpec>& args) {
  std::string s;
  for (const ArgSpec& a : args) s += (s.empty() ? "" : ", ") + a.name;
  return s;
}

void CheckInputs(const CustomOpLevel& l, const std::vector<CallInput>& inputs,
                 const std::vector<paddle::AttrValue>& attrs) {
  const std::string& op = l.info->name;
  if (inputs.size() != l.inputs.size()) {
    throw errors::InvalidArgument(op, "(): takes ", l.inputs.size(), " inputs (", Names(l.inputs),
                                  ") but received ", inputs.size());
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ArgSpec& a = l.inputs[i];
    if (!inputs[i].present && !a.is_optional) {
      throw errors::InvalidArgument(op, "(): input '", a.name,
                                    "' is required; only inputs declared with "
                                    "paddle::Optional may be None");
    }
    if (inputs[i].present && !a.is_list && inputs[i].tensors.size() != 1) {
      throw errors::InvalidType(op, "(): input '", a.name,
                                "' must be one Tensor (declare paddle::Vec for a list)");
    }
    for (const paddle::Tensor& t : inputs[i].tensors) {
      if (!t.defined() || !t.tensor().is_dense()) {
        throw errors::InvalidType(op, "(): input '", a.name, "' must hold dense tensors");
      }
    }
  }
  if (attrs.size() != l.attrs.size()) {
    throw errors::InvalidArgument(op, "(): takes ", l.attrs.size(), " attributes but received ",
                                  attrs.size());
  }
}

// The input an output is written into (SetInplaceMap), or -1.
int InplaceSource(const CustomOpLevel& l, size_t out) {
  for (const auto& [in, o] : l.info->inplace_map) {
    if (o != l.outputs[out].name) continue;
    for (size_t i = 0; i < l.inputs.size(); ++i) {
      if (l.inputs[i].name == in) return static_cast<int>(i);
    }
  }
  return -1;
}

// Splits what the kernel returned into the declared outputs. The kernel returns
// every output, or every output but the in-place ones (those are their inputs);
// a list output takes what the single ones leave.
std::vector<std::vector<Tensor>> AssignOutputs(const CustomOpLevel& l,
                                               const std::vector<paddle::Tensor>& returned,
                                               const std::vector<CallInput>& inputs) {
  const std::string& op = l.info->name;
  const size_t n = l.outputs.size();
  size_t inplace = 0;
  for (size_t j = 0; j < n; ++j) inplace += InplaceSource(l, j) >= 0;
  bool has_list = false;
  for (const ArgSpec& o : l.outputs) has_list |= o.is_list;
  const bool all = inplace == 0 || (!has_list && returned.size() == n);
  std::vector<bool> taken(n);
  size_t singles = 0, lists = 0;
  for (size_t j = 0; j < n; ++j) {
    taken[j] = all || InplaceSource(l, j) < 0;
    if (taken[j]) (l.outputs[j].is_list ? lists : singles) += 1;
  }
  if (lists ? returned.size() < singles : returned.size() != singles) {
    throw errors::InvalidArgument(op, "(): the kernel returned ", returned.size(),
                                  " tensors, but the op declares ", n, " outputs (",
                                  Names(l.outputs), ")",
                                  inplace ? StrCat(", ", inplace, " of them in place") : "");
  }
  std::vector<std::vector<Tensor>> outs(n);
  size_t next = 0;
  for (size_t j = 0; j < n; ++j) {
    if (!taken[j]) {
      for (const paddle::Tensor& t : inputs[InplaceSource(l, j)].tensors) {
        outs[j].push_back(t.tensor());
      }
      continue;
    }
    const size_t count = l.outputs[j].is_list ? returned.size() - singles : 1;
    for (size_t k = 0; k < count; ++k) {
      const paddle::Tensor& t = returned[next++];
      if (!t.defined() && l.outputs[j].is_optional) continue;  // e.g. the grad of an omitted input
      if (!t.defined() || !t.tensor().initialized()) {
        throw errors::InvalidArgument(op, "(): the kernel returned an empty tensor for output '",
                                      l.outputs[j].name, "'");
      }
      outs[j].push_back(t.tensor());
    }
  }
  return outs;
}

// Checks the outputs against the op's infer-shape and infer-dtype functions. An
// in-place output is its input, so the functions may leave it out (as Paddle's do).
void CheckInferred(const CustomOpLevel& l, std::vector<CallInput>& inputs,
                   const std::vector<paddle::AttrValue>& attrs,
                   const std::vector<std::string>& attr_names,
                   const std::vector<std::vector<Tensor>>& outs) {
  const std::string& op = l.info->name;
  std::vector<const Tensor*> all, computed;
  for (size_t j = 0; j < outs.size(); ++j) {
    for (const Tensor& t : outs[j]) {
      all.push_back(&t);
      if (InplaceSource(l, j) < 0) computed.push_back(&t);
    }
  }
  const auto outputs_for = [&](size_t n, const char* what) -> const std::vector<const Tensor*>& {
    if (n == all.size()) return all;
    if (n == computed.size()) return computed;
    throw errors::InvalidArgument(op, "(): the infer-", what, " function gave ", n, " ", what,
                                  "s for ", all.size(), " outputs");
  };
  if (l.info->infer_shape) {
    paddle::CustomOpKernelContext ctx(op, &inputs, &attrs, &attr_names);
    l.info->infer_shape(ctx);
    const auto& flat = outputs_for(ctx.shapes.size(), "shape");
    for (size_t k = 0; k < flat.size(); ++k) {
      const std::vector<int64_t> got = flat[k]->shape();
      const std::vector<int64_t>& want = ctx.shapes[k];
      bool same = got.size() == want.size();
      for (size_t d = 0; same && d < got.size(); ++d) same = want[d] < 0 || want[d] == got[d];
      if (!same) {
        throw errors::InvalidArgument(op, "(): output ", k, " has shape ", got,
                                      ", but the op's infer-shape function gives ", want);
      }
    }
  }
  if (l.info->infer_dtype) {
    paddle::CustomOpKernelContext ctx(op, &inputs, &attrs, &attr_names);
    l.info->infer_dtype(ctx);
    const auto& flat = outputs_for(ctx.dtypes.size(), "dtype");
    for (size_t k = 0; k < flat.size(); ++k) {
      if (paddle::ToOarDType(ctx.dtypes[k]) != flat[k]->dtype()) {
        throw errors::InvalidType(op, "(): output ", k, " has dtype ", flat[k]->dtype(),
                                  ", but the op's infer-dtype function gives ",
                                  paddle::ToOarDType(ctx.dtypes[k]));
      }
    }
  }
}

// The backward of one call: runs the next level (Note [A custom op's grad node runs its grad op]).
std::vector<Tensor> RunGradLevel(const CallState& s, FunctionContext& fctx,
                                 const std::vector<Tensor>& grads) {
  const CustomOp& op = *s.op;
  const CustomOpLevel& f = op.levels[s.level];
  if (s.level + 1 >= op.levels.size()) {
    throw errors::Unimplemented("custom op '", f.info->name, "' has no gradient: declare ",
                                s.level == 0 ? "PD_BUILD_GRAD_OP(" : "PD_BUILD_DOUBLE_GRAD_OP(",
                                op.name, ")", s.level >= 1 ? " for second-order gradients" : "",
                                s.level >= 2 ? " (oar stops at two)" : "");
  }
  const CustomOpLevel& g = op.levels[s.level + 1];
  // The saved inputs and outputs, by declared index.
  std::vector<Tensor> saved = fctx.saved_tensors();
  std::vector<std::vector<Tensor>> in_saved(f.inputs.size()), out_saved(f.outputs.size());
  size_t at = 0;
  for (const auto& [is_out, i] : s.saved) {
    const size_t count = is_out ? s.output_counts[i] : s.input_counts[i];
    auto& dst = is_out ? out_saved[i] : in_saved[i];
    dst.assign(saved.begin() + at, saved.begin() + at + count);
    at += count;
  }
  std::vector<size_t> grad_offset(f.outputs.size() + 1, 0);
  for (size_t j = 0; j < f.outputs.size(); ++j)
    grad_offset[j + 1] = grad_offset[j] + s.output_counts[j];

  const auto to_inputs = [](const std::vector<Tensor>& ts, bool present) {
    CallInput in;
    in.present = present;
    for (const Tensor& t : ts) in.tensors.emplace_back(t);
    return in;
  };
  std::vector<CallInput> inputs;
  for (const ArgSpec& a : g.inputs) {
    bool found = false;
    for (size_t i = 0; !found && i < f.inputs.size(); ++i) {
      if (f.inputs[i].key != a.key) continue;
      inputs.push_back(to_inputs(in_saved[i], s.input_present[i]));
      found = true;
    }
    for (size_t j = 0; !found && j < f.outputs.size(); ++j) {
      // An optional output left empty (its in-place input omitted) is an omitted input.
      const bool list = f.outputs[j].is_list;
      if (f.outputs[j].key == a.key) {
        inputs.push_back(to_inputs(out_saved[j], list || !out_saved[j].empty()));
        found = true;
      } else if (f.outputs[j].key + "@GRAD" == a.key) {
        const std::vector<Tensor> g(grads.begin() + grad_offset[j],
                                    grads.begin() + grad_offset[j + 1]);
        inputs.push_back(to_inputs(g, list || !g.empty()));
        found = true;
      }
    }
  }
  std::vector<paddle::AttrValue> attrs;
  for (const AttrSpec& a : g.attrs) {
    for (size_t i = 0; i < f.attrs.size(); ++i) {
      if (f.attrs[i].name == a.name) attrs.push_back(s.attrs[i]);
    }
  }
  const std::vector<std::vector<Tensor>> outs =
      RunCustomOp(s.op, s.level + 1, std::move(inputs), std::move(attrs));

  // The gradients of the forward's present inputs, in ApplyCustomFunction's order.
  std::vector<size_t> in_offset(f.inputs.size() + 1, 0);
  for (size_t i = 0; i < f.inputs.size(); ++i) in_offset[i + 1] = in_offset[i] + s.input_counts[i];
  std::vector<Tensor> result(in_offset.back());
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    for (size_t i = 0; i < f.inputs.size(); ++i) {
      if (f.inputs[i].key + "@GRAD" != g.outputs[k].key || !s.input_present[i]) continue;
      if (outs[k].size() != s.input_counts[i]) {
        throw errors::InvalidArgument(g.info->name, "(): returned ", outs[k].size(),
                                      " gradients for '", f.inputs[i].name, "', which holds ",
                                      s.input_counts[i], " tensors");
      }
      std::copy(outs[k].begin(), outs[k].end(), result.begin() + in_offset[i]);
    }
  }
  // A gradient has its input's dtype (as PyTorch's engine ensures): a grad op
  // that computes in another one (Paddle's cast example returns float64 for a
  // float32 input) is cast back, differentiably for higher orders.
  for (size_t t = 0; t < result.size(); ++t) {
    if (result[t].defined() && result[t].dtype() != s.input_dtypes[t]) {
      result[t] = cast(result[t], s.input_dtypes[t]);
    }
  }
  return result;
}

// The tensor arguments a capture records, one per declared input (an omitted
// optional one: no value); args points into groups.
struct TracedInputs {
  TracedInputs(const CustomOpLevel& l, const std::vector<CallInput>& inputs)
      : groups(inputs.size()) {
    static const Tensor kOmitted;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].present) {
        for (const paddle::Tensor& t : inputs[i].tensors) groups[i].push_back(t.tensor());
      }
      if (l.inputs[i].is_list) {
        args.emplace_back(groups[i]);
      } else {
        args.emplace_back(groups[i].empty() ? kOmitted : groups[i][0]);
      }
    }
  }
  TracedInputs(const TracedInputs&) = delete;
  TracedInputs& operator=(const TracedInputs&) = delete;

  std::vector<std::vector<Tensor>> groups;  // sized once: args point at its elements
  std::vector<jit::TensorArg> args;
};

std::vector<jit::AttrValue> TracedAttrs(const std::vector<paddle::AttrValue>& attrs) {
  std::vector<jit::AttrValue> out;
  out.reserve(attrs.size());
  for (const paddle::AttrValue& a : attrs) out.push_back(ToProgramAttr(a));
  return out;
}

}  // namespace

std::vector<std::vector<Tensor>> RunCustomOp(const std::shared_ptr<const CustomOp>& op,
                                             size_t level, std::vector<CallInput> inputs,
                                             std::vector<paddle::AttrValue> attrs) {
  const CustomOpLevel& l = op->levels.at(level);
  const std::string& name = l.info->name;
  CheckInputs(l, inputs, attrs);
  // A capture records the op (Note [Programs call ops from outside the
  // declarations]); a grad op's call is recorded by no capture (backward
  // inside a captured function stops it).
  std::optional<jit::Tracer::Recording> recording;
  if (jit::Tracer* tracer = jit::Tracer::Current(); tracer && !tracer->nested()) {
    if (level == 0) {
      const TracedInputs traced(l, inputs);
      recording.emplace(*tracer, ProgramType(op->name), traced.args, TracedAttrs(attrs));
    } else {
      tracer->Break(StrCat("custom op '", name, "' ran in a backward pass inside the capture"));
      if (tracer->full_graph()) {
        throw errors::PreconditionNotMet("to_static(full_graph=True): custom op '", name,
                                         "' ran in a backward pass inside the captured function");
      }
    }
  }
  profiler::RecordEvent span(std::string_view(name), profiler::EventKind::kOperator);
  std::vector<int> inplace_inputs;
  for (size_t j = 0; j < l.outputs.size(); ++j) {
    if (const int src = InplaceSource(l, j); src >= 0) {
      inplace_inputs.push_back(src);
      if (HasGrad() && level == 0) {
        for (const auto& t : inputs[src].tensors) EagerUtils::CheckInplace(t, name.c_str());
      }
    }
  }

  auto state = std::make_shared<CallState>();
  state->op = op;
  state->level = level;
  std::vector<Tensor> flat;
  for (const CallInput& in : inputs) {
    state->input_counts.push_back(in.present ? in.tensors.size() : 0);
    state->input_present.push_back(in.present);
    if (in.present) {
      for (const paddle::Tensor& t : in.tensors) {
        flat.push_back(t.tensor());
        state->input_dtypes.push_back(t.tensor().dtype());
      }
    }
  }
  std::vector<std::string> attr_names;
  for (const AttrSpec& a : l.attrs) attr_names.push_back(a.name);

  const auto forward = [&](FunctionContext& fctx, const std::vector<Tensor>&) {
    std::vector<CallInput> call = inputs;  // the kernel's own handles
    // Kernels index their inputs flat, as Paddle's tensors always allow: a strided
    // view (an expanded gradient, a transpose) is passed as a contiguous copy.
    for (size_t i = 0; i < call.size(); ++i) {
      const bool written = std::find(inplace_inputs.begin(), inplace_inputs.end(),
                                     static_cast<int>(i)) != inplace_inputs.end();
      for (paddle::Tensor& t : call[i].tensors) {
        // A grad op writing in place gets a copy: the gradients it receives may be
        // buffers the engine shares.
        if (written && level > 0) {
          t = api::assign(t.tensor());
          continue;
        }
        if (t.tensor().is_contiguous()) continue;
        if (written) {
          throw errors::InvalidArgument(name, "(): input '", l.inputs[i].name,
                                        "' is written in place but is not contiguous");
        }
        t = api::assign(t.tensor());
      }
    }
    paddle::CustomOpKernelContext ctx(name, &call, &attrs, &attr_names);
    ctx.output_params.resize(l.outputs.size());
    l.info->kernel(ctx);
    if (ctx.outputs.empty() && ctx.output_params_used) {
      ctx.outputs = ctx.output_params;  // a kernel writing its outputs through Tensor*
    }
    std::vector<std::vector<Tensor>> outs = AssignOutputs(l, ctx.outputs, call);
    CheckInferred(l, call, attrs, attr_names, outs);
    for (int src : inplace_inputs) {
      if (level > 0) break;  // written into copies
      for (const auto& t : inputs[src].tensors) Tensor(t.tensor()).bump_inplace_version();
    }
    std::vector<Tensor> flat_out;
    for (const auto& o : outs) {
      state->output_counts.push_back(o.size());
      flat_out.insert(flat_out.end(), o.begin(), o.end());
    }
    // What the grad op reads of this call's inputs and outputs.
    if (level + 1 < op->levels.size()) {
      std::vector<Tensor> to_save;
      for (const ArgSpec& a : op->levels[level + 1].inputs) {
        for (size_t i = 0; i < l.inputs.size(); ++i) {
          if (l.inputs[i].key != a.key) continue;
          state->saved.emplace_back(false, i);
          for (const auto& t : inputs[i].tensors) to_save.push_back(t.tensor());
        }
        for (size_t j = 0; j < l.outputs.size(); ++j) {
          if (l.outputs[j].key != a.key) continue;
          state->saved.emplace_back(true, j);
          to_save.insert(to_save.end(), outs[j].begin(), outs[j].end());
        }
      }
      fctx.save_for_backward(std::move(to_save));
    }
    return flat_out;
  };
  state->attrs = attrs;
  const std::vector<Tensor> flat_out = ApplyCustomFunction(
      name, flat, forward, [state](FunctionContext& fctx, const std::vector<Tensor>& grads) {
        return RunGradLevel(*state, fctx, grads);
      });

  if (recording) recording->FinishAll(flat_out);
  std::vector<std::vector<Tensor>> outs(l.outputs.size());
  size_t next = 0;
  for (size_t j = 0; j < outs.size(); ++j) {
    outs[j].assign(flat_out.begin() + next, flat_out.begin() + next + state->output_counts[j]);
    next += state->output_counts[j];
  }
  return outs;
}

}  // namespace oar::extension
