#include "oar/jit/conv_folding.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

#include "oar/core/conv_flags.h"
#include "oar/core/grad_mode.h"
#include "oar/core/profiler/record_event.h"
#include "oar/jit/fusion.h"
#include "oar/jit/program.h"
#include "oar/kernels/cpu/max_pool_channels_last.h"
#include "oar/kernels/funcs/copy.h"

namespace oar::jit {

namespace {

bool Is(const ProgramOp& op, std::string_view type) {
  return op.type == type && op.symbolic.empty();
}

// The op after k, when it reads value `id` and is the only reader of it.
const ProgramOp* SoleReader(const Program& p, size_t k, int64_t id, std::string_view type) {
  if (k + 1 >= p.ops.size() || p.uses[static_cast<size_t>(id)] != 1) return nullptr;
  const ProgramOp& next = p.ops[k + 1];
  if (!Is(next, type)) return nullptr;
  for (const auto& group : next.inputs) {
    for (int64_t v : group) {
      if (v == id) return &next;
    }
  }
  return nullptr;
}

}  // namespace

std::vector<ConvGroup> PlanConvGroups(const Program& p) {
  // Weights must be fixed: parameters or constants, not computed values.
  auto fixed = [&](int64_t id) { return id >= p.first_param() && id < p.first_op_value(); };
  std::vector<ConvGroup> groups;
  for (size_t k = 0; k + 1 < p.ops.size(); ++k) {
    const ProgramOp& conv = p.ops[k];
    if (Is(conv, "max_pool") && !std::get<bool>(conv.attrs[4]) &&
        std::get<std::vector<int64_t>>(conv.attrs[0]).size() == 2) {
      ConvGroup g;
      g.first = g.last = k;
      g.max_pool = true;
      g.x = conv.inputs[0][0];
      g.kernel_size = std::get<std::vector<int64_t>>(conv.attrs[0]);
      g.spec.strides = std::get<std::vector<int64_t>>(conv.attrs[1]);
      g.spec.paddings = std::get<std::vector<int64_t>>(conv.attrs[2]);
      g.ceil_mode = std::get<bool>(conv.attrs[3]);
      g.output = conv.output;
      g.program_output = std::find(p.outputs.begin(), p.outputs.end(), g.output) != p.outputs.end();
      groups.push_back(std::move(g));
      continue;
    }
    if (!Is(conv, "conv") || !fixed(conv.inputs[1][0])) continue;
    const ProgramOp* bn = SoleReader(p, k, conv.output, "batch_norm_infer");
    if (bn == nullptr || bn->inputs[0][0] != conv.output || std::get<int64_t>(bn->attrs[1]) != 1) {
      continue;
    }
    ConvGroup g;
    g.first = k;
    g.x = conv.inputs[0][0];
    g.weight = conv.inputs[1][0];
    g.mean = bn->inputs[1][0];
    g.variance = bn->inputs[2][0];
    g.scale = bn->inputs[3][0];
    g.shift = bn->inputs[4][0];
    if (!fixed(g.mean) || !fixed(g.variance) || !fixed(g.scale) || !fixed(g.shift)) continue;
    g.epsilon = std::get<double>(bn->attrs[0]);
    g.spec.strides = std::get<std::vector<int64_t>>(conv.attrs[0]);
    g.spec.paddings = std::get<std::vector<int64_t>>(conv.attrs[1]);
    g.spec.dilations = std::get<std::vector<int64_t>>(conv.attrs[2]);
    g.spec.groups = std::get<int64_t>(conv.attrs[3]);
    size_t last = k + 1;
    int64_t out = bn->output;
    if (const ProgramOp* add = SoleReader(p, last, out, "add")) {
      const int64_t a = add->inputs[0][0], b = add->inputs[1][0];
      if (a != b) {  // x + x reads the batch norm's output twice
        g.residual = a == out ? b : a;
        g.spec.residual = true;
        out = add->output;
        ++last;
      }
    }
    if (const ProgramOp* relu = SoleReader(p, last, out, "relu")) {
      g.spec.relu = true;
      out = relu->output;
      ++last;
    }
    g.last = last;
    g.output = out;
    g.program_output = std::find(p.outputs.begin(), p.outputs.end(), out) != p.outputs.end();
    groups.push_back(std::move(g));
    k = last;
  }
  return groups;
}

FoldedConvs::FoldedConvs(const Program& program, const std::vector<Tensor>& params,
                         const std::vector<Tensor>& consts)
    : at_(program.ops.size(), -1) {
  auto tensor = [&](int64_t id) -> const Tensor& {
    const int64_t c0 = program.first_const(), p0 = program.first_param();
    return id >= c0 ? consts[static_cast<size_t>(id - c0)] : params[static_cast<size_t>(id - p0)];
  };
  std::vector<ConvGroup> planned = PlanConvGroups(program);
  // Note [A block's output stays in blocks for both its readers]: convolutions that
  // share their input with another read and write oneDNN's channel blocks.
  for (ConvGroup& g : planned) {
    for (const ConvGroup& other : planned) {
      if (&other != &g && !g.max_pool && !other.max_pool && other.x == g.x) {
        g.spec.prefer_blocked = true;
      }
    }
  }
  for (ConvGroup& g : planned) {
    if (g.max_pool) {
      at_[g.first] = static_cast<int64_t>(groups_.size());
      convs_.push_back(nullptr);
      groups_.push_back(std::move(g));
      continue;
    }
    const Tensor& w = tensor(g.weight);
    const Tensor* stats[] = {&tensor(g.mean), &tensor(g.variance), &tensor(g.scale),
                             &tensor(g.shift)};
    bool ok = w.is_dense() && w.dtype() == DType::kFloat32 && w.ndim() >= 3 && w.is_contiguous();
    for (const Tensor* t : stats) {
      ok = ok && t->is_dense() && t->dtype() == DType::kFloat32 && t->ndim() == 1 &&
           t->numel() == w.dims()[0] && t->is_contiguous();
    }
    if (!ok) continue;  // the ops report what is wrong, as in an unfolded run
    g.spec.winograd = FLAGS_conv_winograd();
    at_[g.first] = static_cast<int64_t>(groups_.size());
    convs_.push_back(std::make_unique<conv_engine::InferenceConv>(
        w.dense(), stats[0]->dense(), stats[1]->dense(), stats[2]->dense(), stats[3]->dense(),
        g.epsilon, g.spec));
    groups_.push_back(std::move(g));
  }
  // Note [A convolution's only reader takes its output blocked], Note [A block's output
  // stays in blocks for both its readers]: an output that folded groups alone read.
  for (size_t i = 0; i < groups_.size(); ++i) {
    ConvGroup& g = groups_[i];
    if (g.program_output) continue;
    int64_t reads = 0;
    std::vector<int64_t> readers;
    for (size_t j = i + 1; j < groups_.size(); ++j) {
      const ConvGroup& r = groups_[j];
      if (r.x == g.output) readers.push_back(static_cast<int64_t>(j));
      reads += (r.x == g.output) + (r.residual == g.output);
    }
    if (reads > 0 && reads == program.uses[static_cast<size_t>(g.output)]) {
      g.readers = std::move(readers);
      g.reads = reads;
    }
  }
}

FoldedConvs::~FoldedConvs() = default;

const ConvGroup* FoldedConvs::At(size_t k) const {
  const int64_t i = at_[k];
  return i < 0 ? nullptr : &groups_[static_cast<size_t>(i)];
}

const conv_engine::InferenceConv* FoldedConvs::Conv(const ConvGroup& group) const {
  return convs_[static_cast<size_t>(at_[group.first])].get();
}

namespace {

// Value id's entry in `blocked`, or its end.
BlockedValues::iterator Held(BlockedValues& blocked, int64_t id) {
  return std::find_if(blocked.begin(), blocked.end(),
                      [&](const HeldBlocked& b) { return id >= 0 && b.id == id; });
}

// Value id, where it is held, as a tensor in `values` instead.
void ToTensor(BlockedValues& blocked, std::vector<Tensor>& values, int64_t id) {
  if (auto it = Held(blocked, id); it != blocked.end()) {
    values[static_cast<size_t>(id)] =
        Tensor(std::make_shared<DenseTensor>(conv_engine::InferenceConv::Plain(it->value)));
    blocked.erase(it);
  }
}

}  // namespace

bool FoldedConvs::Run(const ConvGroup& group, std::vector<Tensor>& values,
                      BlockedValues& blocked) const {
  // Operands the groups before left in a convolution's layout (Note [A convolution's
  // only reader takes its output blocked]): taken here, or handed back as tensors.
  auto held = [&](int64_t id) { return Held(blocked, id); };
  auto to_tensor = [&](int64_t id) { ToTensor(blocked, values, id); };
  auto cannot = [&] {
    to_tensor(group.x);
    to_tensor(group.residual);
    return false;
  };
  if (!ReplayMayFuse()) return cannot();
  const Tensor& x = values[static_cast<size_t>(group.x)];
  const bool grad = HasGrad();
  if (group.max_pool) return RunMaxPool(group, values, blocked);
  const conv_engine::InferenceConv& conv = *Conv(group);
  // An input held in a layout this convolution does not read becomes a tensor first.
  if (auto it = held(group.x); it != blocked.end() && !conv.ReadsAsIs(it->value)) {
    to_tensor(group.x);
  }
  const bool x_held = held(group.x) != blocked.end();
  if (!x_held && (!x.defined() || !x.is_dense() || (grad && !x.stop_gradient()) ||
                  !conv.Supports(x.dense()))) {
    return cannot();
  }
  const DDim x_dims = x_held ? held(group.x)->value.dims : x.dims();
  const DDim out_dims = conv.OutputDims(x_dims);
  // Note [A block's output stays in blocks for both its readers]: a held residual that
  // this group reads last, in its output's layout, is added onto in place; any other
  // becomes a tensor first.
  bool onto = false;
  if (auto r = held(group.residual); r != blocked.end()) {
    onto = r->reads_left == 1 && group.residual != group.x && conv.AddsOnto(r->value, x_dims);
    if (!onto) to_tensor(group.residual);
  }
  conv_engine::ConvOperands in;
  if (group.residual >= 0 && !onto) {
    const Tensor& r = values[static_cast<size_t>(group.residual)];
    if (!r.defined() || !r.is_dense() || (grad && !r.stop_gradient()) ||
        !conv_engine::InferenceConv::Takes(r.dense()) || r.dims() != out_dims) {
      return cannot();  // the add broadcasts, or needs its own kernel
    }
    in.residual = &r.dense();
  }
  profiler::RecordEvent event(profiler::StaticName("folded_conv"), profiler::EventKind::kOperator);
  if (const auto bx = held(group.x); bx != blocked.end()) {
    in.blocked_x = &bx->value;
  } else {
    in.x = &x.dense();
  }
  conv_engine::BlockedActivation residual_bytes;
  if (onto) {
    residual_bytes = std::move(held(group.residual)->value);
    in.onto = &residual_bytes;
  }
  // The output is held for its readers: in the first input reader's layout where each of
  // them reads that layout (each reads its own where a downsampling block's two
  // convolutions differ), or, read only as a residual, in this convolution's own.
  // Read by max pooling alone, it is held in this convolution's own layout where that
  // is the dense channel blocks the pooling reads (Note [Max pooling reads and writes
  // channel blocks] in kernels/cpu/max_pool_channels_last.h).
  const conv_engine::InferenceConv* reader = nullptr;
  bool hold = false;
  if (ReadByPoolsAlone(group)) {
    hold = conv.DenseChannelBlocks(x_dims, false, conv_engine::kPoolChannelBlock);
    for (int64_t r : group.readers) {
      const ConvGroup& pool = groups_[static_cast<size_t>(r)];
      hold = hold && conv_engine::MaxPoolTakesBlocks(out_dims, pool.kernel_size, pool.spec.strides,
                                                     pool.spec.paddings, pool.ceil_mode);
    }
  } else {
    reader = FirstConvReader(group, out_dims);
    hold = group.reads > 0 && (reader != nullptr || group.readers.empty()) &&
           (reader != nullptr ? reader->ReadsBlocked(out_dims) : conv.WritesBlocked(x_dims));
  }
  std::optional<conv_engine::BlockedActivation> out_blocked;
  DenseTensor out;
  if (hold) {
    out_blocked = conv.RunBlocked(in, reader);
  } else {
    out = conv.Run(in, group.program_output);
  }
  if (onto) blocked.erase(held(group.residual));
  if (auto it = held(group.x); it != blocked.end() && --it->reads_left == 0) blocked.erase(it);
  if (hold) {
    blocked.push_back({group.output, std::move(*out_blocked), group.reads});
  } else {
    values[static_cast<size_t>(group.output)] =
        Tensor(std::make_shared<DenseTensor>(std::move(out)));
  }
  return true;
}

bool FoldedConvs::ReadByPoolsAlone(const ConvGroup& group) const {
  return !group.readers.empty() && group.reads == static_cast<int64_t>(group.readers.size()) &&
         std::all_of(group.readers.begin(), group.readers.end(),
                     [&](int64_t r) { return groups_[static_cast<size_t>(r)].max_pool; });
}

const conv_engine::InferenceConv* FoldedConvs::FirstConvReader(const ConvGroup& group,
                                                               const DDim& out_dims) const {
  // The first input reader's layout, where every input reader (convolutions all) reads it.
  if (group.readers.empty()) return nullptr;
  const conv_engine::InferenceConv* first = nullptr;
  for (int64_t r : group.readers) {
    const conv_engine::InferenceConv* c = convs_[static_cast<size_t>(r)].get();
    if (c == nullptr) return nullptr;  // a max_pool
    if (first == nullptr) {
      first = c;
    } else if (!c->SameInputLayout(*first, out_dims)) {
      return nullptr;
    }
  }
  return first;
}

bool FoldedConvs::RunMaxPool(const ConvGroup& group, std::vector<Tensor>& values,
                             BlockedValues& blocked) const {
  const std::vector<int64_t>& k = group.kernel_size;
  const std::vector<int64_t>&st = group.spec.strides, &pad = group.spec.paddings;
  // An input held in any other layout, or one this call cannot pool, becomes a tensor.
  if (auto h = Held(blocked, group.x);
      h != blocked.end() &&
      (!ReplayMayFuse() ||
       !conv_engine::InferenceConv::DenseChannelBlocks(h->value, conv_engine::kPoolChannelBlock) ||
       !conv_engine::MaxPoolTakesBlocks(h->value.dims, k, st, pad, group.ceil_mode))) {
    ToTensor(blocked, values, group.x);
  }
  const auto it = Held(blocked, group.x);
  const bool x_held = it != blocked.end();
  const Tensor& x = values[static_cast<size_t>(group.x)];
  if (!x_held &&
      (!ReplayMayFuse() || !x.defined() || !x.is_dense() || (HasGrad() && !x.stop_gradient()) ||
       !conv_engine::MaxPoolTakes(x.dense(), k, st, pad, group.ceil_mode))) {
    return false;
  }
  profiler::RecordEvent event(profiler::StaticName("max_pool_channels_last"),
                              profiler::EventKind::kOperator);
  const DDim x_dims = x_held ? it->value.dims : x.dims();
  const DDim out_dims = conv_engine::MaxPoolDims(x_dims, k, st, pad, group.ceil_mode);
  // Note [Max pooling reads and writes channel blocks]: held for convolutions that all
  // read the dense blocks.
  const conv_engine::InferenceConv* reader = FirstConvReader(group, out_dims);
  const bool hold = group.reads > 0 && reader != nullptr &&
                    reader->DenseChannelBlocks(out_dims, true, conv_engine::kPoolChannelBlock);
  DenseTensor y;
  if (x_held || hold) {
    y = conv_engine::MaxPoolChannelBlocks(x_held ? nullptr : &x.dense(),
                                          x_held ? &it->value.bytes : nullptr, x_dims, k, st, pad,
                                          group.ceil_mode, hold);
    if (!hold && group.program_output) y = funcs::Contiguous(y);
  } else {
    y = conv_engine::MaxPoolChannelsLast(x.dense(), k, st, pad, group.ceil_mode,
                                         group.program_output);
  }
  if (x_held && --it->reads_left == 0) blocked.erase(it);
  if (hold) {
    blocked.push_back({group.output, reader->AsInput(std::move(y), out_dims), group.reads});
  } else {
    values[static_cast<size_t>(group.output)] = Tensor(std::make_shared<DenseTensor>(std::move(y)));
  }
  return true;
}

}  // namespace oar::jit
