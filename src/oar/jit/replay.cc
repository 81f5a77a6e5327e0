#include "oar/jit/replay.h"

#include <algorithm>
#include <array>
#include <string>
#include <unordered_map>

#include "oar/core/errors.h"
#include "oar/core/flags.h"
#include "oar/core/layer_scope.h"
#include "oar/eager/dygraph_functions.h"
#include "oar/jit/conv_folding.h"
#include "oar/jit/external_op.h"

namespace oar::jit {

namespace {

// The declared ops and their in-place forms (generated), and the calls a
// capture records that are not declared ops.
const OpSchema kSchemas[] = {
#include "oar/jit/op_replay.inc"
    {"detach", "T", {}, [](ReplayArgs& a) -> Tensor { return a.One(0).detach(); }},
};

const std::unordered_map<std::string_view, const OpSchema*>& SchemaIndex() {
  static const std::unordered_map<std::string_view, const OpSchema*> index = [] {
    std::unordered_map<std::string_view, const OpSchema*> m;
    for (const OpSchema& s : kSchemas) m.emplace(s.type, &s);
    return m;
  }();
  return index;
}

void CheckInput(const ValueSpec& spec, size_t i, const Tensor& t) {
  OAR_ENFORCE(t.defined(), errors::InvalidArgument("jit program: input ", i, " ('", spec.name,
                                                   "') is undefined"));
  OAR_ENFORCE(t.dtype() == spec.dtype,
              errors::InvalidType("jit program: input ", i, " ('", spec.name, "') must be ",
                                  DTypeName(spec.dtype), ", but got ", DTypeName(t.dtype())));
  const std::vector<int64_t> shape = t.shape();
  bool ok = shape.size() == spec.shape.size();
  for (size_t d = 0; ok && d < shape.size(); ++d) {
    ok = spec.shape[d] < 0 || spec.shape[d] == shape[d];
  }
  OAR_ENFORCE(
      ok, errors::InvalidArgument("jit program: input ", i, " ('", spec.name, "') must have shape ",
                                  spec.shape, " (-1: any size), but got ", shape));
}

// Note [Shapes that depend on values]
void CheckShape(const ProgramOp& op, size_t k, const DDim& dims,
                const std::vector<int64_t>& symbols) {
  bool ok = dims.size() == op.shape.size();
  std::vector<int64_t> want = op.shape;
  for (const SymbolicDim& d : op.symbolic_dims) {
    want[static_cast<size_t>(d.dim)] = d.scale * symbols[static_cast<size_t>(d.symbol)] + d.offset;
  }
  for (size_t i = 0; ok && i < want.size(); ++i) ok = dims[i] == want[i];
  OAR_ENFORCE(ok, errors::PreconditionNotMet(
                      "jit program: the output of op ", k, " (", op.type,
                      op.layer.empty() ? "" : " in " + op.layer, ") has shape ", dims,
                      " but the capture saw ", want,
                      ": a shape that depends on tensor values (Note [Shapes that depend on "
                      "values]); run this function eagerly (not_to_static)"));
}

}  // namespace

const OpSchema* FindSchema(std::string_view type) {
  const auto& index = SchemaIndex();
  auto it = index.find(type);
  return it == index.end() ? nullptr : it->second;
}

std::vector<Tensor> Run(const Program& program, const std::vector<Tensor>& inputs,
                        const std::vector<Tensor>& params, const std::vector<Tensor>& consts,
                        const FoldedConvs* folded) {
  OAR_ENFORCE(inputs.size() == program.inputs.size(),
              errors::InvalidArgument("jit program: takes ", program.inputs.size(),
                                      " input tensors, but got ", inputs.size()));
  OAR_ENFORCE(
      params.size() == program.params.size() && consts.size() == program.consts.size(),
      errors::InvalidArgument("jit program: needs ", program.params.size(), " parameters and ",
                              program.consts.size(), " constants, but got ", params.size(), " and ",
                              consts.size()));
  std::vector<Tensor> values(static_cast<size_t>(program.num_values));
  for (size_t i = 0; i < inputs.size(); ++i) {
    CheckInput(program.inputs[i], i, inputs[i]);
    values[i] = inputs[i];
  }
  const size_t p0 = static_cast<size_t>(program.first_param());
  const size_t c0 = static_cast<size_t>(program.first_const());
  for (size_t i = 0; i < params.size(); ++i) values[p0 + i] = params[i];
  for (size_t i = 0; i < consts.size(); ++i) values[c0 + i] = consts[i];
  std::vector<int64_t> symbols(program.symbols.size());
  for (size_t s = 0; s < symbols.size(); ++s) {
    const Symbol& sym = program.symbols[s];
    symbols[s] = inputs[static_cast<size_t>(sym.input)].dims()[static_cast<size_t>(sym.dim)];
  }
  // Outputs are kept to the end even where an op reads them last.
  std::vector<bool> is_output(values.size(), false);
  for (int64_t o : program.outputs) is_output[static_cast<size_t>(o)] = true;

  ReplayArgs args;
  std::vector<AttrValue> patched;
  // Each op runs under the layer path it was captured in, so grad nodes and
  // errors name it as in the eager run (Note [Interned layer paths]).
  const std::string* outer = CurrentLayerPath();
  struct RestoreLayer {
    const std::string* path;
    ~RestoreLayer() { ExitLayerScope(path); }
  } restore{outer};
  // Outputs kept in their reader's layout (Note [A convolution's only reader takes its
  // output blocked] in kernels/cpu/conv_inference.cc).
  BlockedValues blocked;
  // After a fused group ran ops first..last: its output's shape check, and
  // freeing the values it read last.
  auto finish_group = [&](size_t last, int64_t output, const auto& read) {
    const ProgramOp& op = program.ops[last];
    if (op.has_shape) {
      const Tensor& out = values[static_cast<size_t>(output)];
      const auto b = std::find_if(blocked.begin(), blocked.end(),
                                  [&](const HeldBlocked& v) { return v.id == output; });
      CheckShape(op, last, out.defined() || b == blocked.end() ? out.dims() : b->value.dims,
                 symbols);
    }
    for (int64_t id : read) {
      const auto u = static_cast<size_t>(id);
      if (id >= 0 && program.last_use[u] <= static_cast<int64_t>(last) && !is_output[u]) {
        values[u] = Tensor();
      }
    }
  };
  const bool fuse = FLAGS_jit_fuse_elementwise();
  for (size_t k = 0; k < program.ops.size(); ++k) {
    if (const ConvGroup* g = folded ? folded->At(k) : nullptr) {
      ExitLayerScope(program.ops[k].layer_path ? program.ops[k].layer_path : outer);
      if (folded->Run(*g, values, blocked)) {
        finish_group(g->last, g->output, std::array<int64_t, 2>{g->x, g->residual});
        k = g->last;
        continue;
      }
    }
    if (const int64_t c = program.chain_at[k]; c >= 0 && fuse) {
      const FusedChain& chain = program.chains[static_cast<size_t>(c)];
      if (RunFused(chain, values)) {
        finish_group(chain.last, chain.output, chain.inputs);
        k = chain.last;
        continue;
      }
    }
    const ProgramOp& op = program.ops[k];
    args.tensors.resize(op.inputs.size());
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      auto& group = args.tensors[i];
      group.clear();
      for (int64_t id : op.inputs[i]) group.push_back(values[static_cast<size_t>(id)]);
    }
    args.attrs = &op.attrs;
    if (!op.symbolic.empty()) {
      patched = op.attrs;
      for (const SymbolicAttr& s : op.symbolic) {
        const int64_t v = s.scale * symbols[static_cast<size_t>(s.symbol)] + s.offset;
        AttrValue& a = patched[static_cast<size_t>(s.attr)];
        if (s.index < 0) {
          a = v;
        } else {
          std::get<std::vector<int64_t>>(a)[static_cast<size_t>(s.index)] = v;
        }
      }
      args.attrs = &patched;
    }
    ExitLayerScope(op.layer_path ? op.layer_path : outer);
    if (op.external) {
      std::vector<Tensor> outs = op.external->Run(args);
      OAR_ENFORCE(
          static_cast<int64_t>(outs.size()) == op.num_outputs,
          errors::PreconditionNotMet("jit program: op ", k, " (", op.type, ") returned ",
                                     outs.size(), " tensors but the capture saw ", op.num_outputs));
      if (op.has_shape) CheckShape(op, k, outs[0].dims(), symbols);
      for (auto& group : args.tensors) group.clear();
      for (size_t i = 0; i < outs.size(); ++i) {
        const auto id = static_cast<size_t>(op.output) + i;
        if (program.uses[id] > 0) values[id] = std::move(outs[i]);  // else: never read
      }
    } else {
      Tensor out = op.schema->call(args);
      if (op.has_shape) CheckShape(op, k, out.dims(), symbols);
      for (auto& group : args.tensors) group.clear();  // drop this op's references
      values[static_cast<size_t>(op.output)] = std::move(out);
    }
    for (const auto& group : op.inputs) {
      for (int64_t id : group) {
        const auto u = static_cast<size_t>(id);
        if (program.last_use[u] == static_cast<int64_t>(k) && !is_output[u]) values[u] = Tensor();
      }
    }
  }
  std::vector<Tensor> outs;
  outs.reserve(program.outputs.size());
  for (int64_t o : program.outputs) outs.push_back(values[static_cast<size_t>(o)]);
  return outs;
}

}  // namespace oar::jit
