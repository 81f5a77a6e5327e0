// Folded inference convolutions on oneDNN (conv_inference.h, Note [Convolutions
// folded for inference]).
#include "oar/kernels/cpu/conv_inference.h"

#include <dnnl.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "oar/core/errors.h"
#include "oar/core/parallel.h"
#include "oar/kernels/cpu/channel_blocks.h"
#include "oar/kernels/cpu/conv_impl.h"
#include "oar/kernels/cpu/conv_onednn.h"
#include "oar/kernels/cpu/conv_weight_layout.h"
#include "oar/kernels/cpu/onednn_util.h"
#include "oar/kernels/funcs/copy.h"

namespace oar::conv_engine {

using dnnl::memory;
using onednn::Engine;
using onednn::Reorder;
using onednn::WriteConvWeight;

namespace {

// One block of input channels of a convolution that sums in blocks (Note [Folded
// convolutions sum in blocks where the ops do]): its primitive and its channels of the
// folded weight, packed.
struct SumBlock {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward conv;
  memory weight;
  int64_t c0 = 0, len = 0;  // input channels [c0, c0 + len)
};

// One range of a batch of one's output channels, on one thread (Note [A batch of one
// runs in parts of its output channels]): its primitive and its channels of the folded
// weight, packed, or its blocks of input channels; where its channels start in the bias
// and the output (or the running sums).
struct Part {
  dnnl::convolution_forward conv;
  memory weight;
  std::vector<SumBlock> blocks;
  memory::desc dst, bias;
  memory::desc scratchpad;  // its primitive's, or bytes for the largest of its blocks'
  int64_t c0 = 0;
  size_t dst_offset = 0;  // bytes
};

// The primitive for one input shape, with the weight in the layout it reads.
struct Prepared {
  dnnl::convolution_forward::primitive_desc pd;  // with blocks: the first block's probe
  dnnl::convolution_forward conv;
  memory weight;  // packed
  // Sums its input channels in blocks (Note [Folded convolutions sum in blocks where the
  // ops do]): `blocks`, or each part's.
  bool in_blocks = false;
  std::vector<SumBlock> blocks;
  std::vector<Part> parts;  // empty: `conv` or `blocks` on OpenMP's team
  memory::desc dst_plain;
  DDim out_dims;
  bool winograd = false;
  // The layout of an output that is not plain: the primitive's own where it is
  // a permutation of the dims without blocking (channels last), so an oar
  // tensor holds it as is, else channels last.
  memory::desc dst_kept;
  DDim kept_strides;
  // oar's own F(2x2, 3x3) instead of a primitive (Note [Folded convolutions run oar's
  // Winograd kernel where oneDNN has none]): the folded weight's transform, and the
  // geometry for this input shape.
  DenseTensor own_winograd;
  WindowGeometry geometry;
  // One oneDNN primitive (not blocks of input channels, not oar's own Winograd): the
  // only kind whose activations may be held in its layouts.
  bool OnePrimitive() const { return !in_blocks && !own_winograd.initialized(); }
};

memory::desc Strided(const DenseTensor& t) {
  return memory::desc(memory::dims(t.dims().begin(), t.dims().end()), memory::data_type::f32,
                      memory::dims(t.strides().begin(), t.strides().end()));
}

std::optional<DDim> DenseStrides(const memory::desc& md) {
  const dnnl_memory_desc_t& d = md.data;
  if (d.format_kind != dnnl_blocked || d.format_desc.blocking.inner_nblks != 0 || d.offset0 != 0) {
    return std::nullopt;
  }
  for (int i = 0; i < d.ndims; ++i) {
    if (d.padded_dims[i] != d.dims[i]) return std::nullopt;
  }
  return DDim(d.format_desc.blocking.strides, d.format_desc.blocking.strides + d.ndims);
}

DDim ChannelsLastStrides(const DDim& dims) {
  DDim s(dims.size());
  int64_t step = dims[1];
  s[1] = 1;
  for (size_t i = dims.size(); i-- > 2;) {
    s[i] = step;
    step *= dims[i];
  }
  s[0] = step;
  return s;
}

// Copies a weight into another layout (Note [oar writes a folded convolution's weight
// layouts]). A Winograd layout is transformed from the plain one, so a blocked source goes
// through it.
memory Repack(const memory& source, const memory::desc& want, const memory::desc& plain) {
  dnnl::stream s(Engine());
  memory from = source;
  if (want.data.format_kind == dnnl_format_kind_wino && source.get_desc() != plain) {
    from = memory(plain, Engine());
    dnnl::reorder(source, from).execute(s, const_cast<memory&>(source), from);
  }
  memory to(want, Engine());
  if (!WriteConvWeight(from, to)) dnnl::reorder(from, to).execute(s, from, to);
  s.wait();
  return to;
}

DenseTensor Float32(const DDim& dims) {
  DenseTensor t(DType::kFloat32, dims);
  t.mutable_data<float>();
  return t;
}

void CheckStatistic(const DenseTensor& t, int64_t c_out, const char* name) {
  OAR_ENFORCE(t.dtype() == DType::kFloat32 && t.is_contiguous() && t.numel() == c_out,
              errors::InvalidArgument("folded convolution: the batch norm's ", name,
                                      " must be a contiguous float32 tensor of ", c_out,
                                      " values (the convolution's output channels)"));
}

}  // namespace

struct BlockedLayout {
  memory::desc desc;
};

struct InferenceConv::Impl {
  // The unfolded weight (shared with the loaded model, not copied). The first
  // primitive packs the folded weight from it; any later layout is packed from
  // the first copy not in the Winograd layout (which oneDNN cannot reorder
  // back), so the folded weight is computed once unless only Winograd's
  // primitives came before.
  DenseTensor weight;
  DDim weight_dims;
  std::vector<double> channel_scale;  // per output channel: the batch norm's s
  DenseTensor bias;                   // folded
  InferenceConvSpec spec;
  std::mutex mu;  // guards the two maps
  std::map<std::vector<int64_t>, std::shared_ptr<const Prepared>> by_shape;
  // One packed copy per layout: shapes whose primitives read the same layout share it.
  std::vector<memory> packed;
  DenseTensor own_winograd;  // the folded weight's Winograd transform, once needed

  std::shared_ptr<const Prepared> For(const DDim& x);
  // Whether the primitive for x reads (input) or writes its activation in a layout no
  // strided tensor holds.
  bool Blocked(const DDim& x, bool input);
  DenseTensor FoldedWeight() const;
  // Whether x's convolution sums more products per output than one block's: more
  // than kSumBlockChannels input channels, more than one tap, no groups.
  bool SumsManyProducts(const DDim& x) const;
  void PrepareBlocks(const DDim& x, const WindowGeometry& g, Prepared* p);
  // The first block's primitive for `len` input channels and `c_out` output channels,
  // writing the running sum in *sum_md (null: a probe for its layout).
  dnnl::convolution_forward::primitive_desc BlockPrimitive(const DDim& x, const WindowGeometry& g,
                                                           int64_t len, int64_t c_out, bool first,
                                                           bool last,
                                                           const memory::desc* sum_md) const;
  // The blocks of input channels for output channels [o0, o0 + c_out), with their channels
  // of the folded weight packed.
  std::vector<SumBlock> MakeBlocks(const DDim& x, const WindowGeometry& g, int64_t o0,
                                   int64_t c_out, const memory::desc& sum_md,
                                   const DenseTensor& folded) const;
  // Note [A batch of one runs in parts of its output channels]: p's parts where it takes
  // them (d and attr: its one primitive's; folded: the folded weight, or null).
  void PrepareParts(const DDim& x, const WindowGeometry& g, const Descs& d,
                    const dnnl::primitive_attr& attr, const DenseTensor* folded, Prepared* p);
  // p's parts on `src` (with blocks: the whole blocked input), writing `one` (one
  // primitive: the whole output) or, with blocks, the running sums in `one` and `other`
  // from `sum` (the residual in `one`, or null).
  void RunParts(const Prepared& p, const memory& src, const memory& sum, const memory& one,
                const memory& other, CallBuffers& buffers) const;
  // Runs on `in`: the output in next's input layout, or this convolution's own output
  // layout where own_layout (bytes, their layout set in *layout), else a float32 tensor,
  // plain or in the kept layout (Note [A convolution's only reader takes its output
  // blocked]).
  DenseTensor Call(const ConvOperands& in, bool plain, const InferenceConv* next, bool own_layout,
                   std::shared_ptr<const BlockedLayout>* layout);
  // Runs p's blocks on x into `out`, adding `residual` where the spec has one.
  void RunBlocks(const Prepared& p, const DenseTensor& x, const DenseTensor* residual, memory out,
                 dnnl::stream& s, CallBuffers& buffers) const;
};

// Note [Folded convolutions sum in blocks where the ops do]
// The op-by-op forward pass sums the input channels in blocks of kSumBlockChannels
// (Note [The forward convolution sums in blocks] in conv_impl.h): oneDNN's direct
// AVX-512 kernels (jit:avx512*) do so themselves, and elsewhere oar runs one oneDNN
// convolution per block. A folded convolution does too, so folding changes the results
// by the rounding of w * s alone. It asks oneDNN for its primitive in the layouts
// oneDNN prefers; where that is a kernel that does not sum in blocks (the AVX2 kernels,
// or on CPUs with AMX the brgemm kernel oneDNN picks for inference, which summed 264
// channels of a 3x3 kernel in one chain, 8.3e-7 norm-wise), it asks again in the
// 16-channel-blocked layout the direct AVX-512 kernel reads, and failing that runs the
// blocks itself: one primitive per block, each with its channels of the folded weight
// packed once, writing its sum plus the running sum (a binary-add post-op) in the
// layout the first block's primitive picks. The running sum starts from the residual
// where there is one; the first block adds the bias and the last applies relu. Against
// the ops one by one this drops the batch norm, relu and residual passes and the
// weight packing at every call: ResNet-18 at batch 1 in the C++ runtime took 39.4-45.7
// ms a call on two Zen 3 threads against 46.4-50.3 ms op by op (four alternating
// rounds). On a Xeon with AMX the blocked layout's reorders cost ResNet-18 in the C++
// runtime 5% at batch 1 (17.9 against 17.0 ms) and 10% at batch 16 against brgemm's
// one chain, on two threads in three alternating rounds.
bool InferenceConv::Impl::SumsManyProducts(const DDim& x) const {
  const int64_t taps = Product(weight_dims) / (weight_dims[0] * weight_dims[1]);
  return spec.groups == 1 && taps > 1 && x[1] > kSumBlockChannels;
}

dnnl::convolution_forward::primitive_desc InferenceConv::Impl::BlockPrimitive(
    const DDim& x, const WindowGeometry& g, int64_t len, int64_t c_out, bool first, bool last,
    const memory::desc* sum_md) const {
  const DType f32 = DType::kFloat32;
  Descs d = MakeDescs(x[0], len, c_out, g, 1, f32, f32, f32);
  dnnl::post_ops ops;
  if (sum_md != nullptr) {
    d.dst_any = *sum_md;
    if (!first || spec.residual) ops.append_binary(dnnl::algorithm::binary_add, *sum_md);
  }
  if (last && spec.relu) ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const auto kind = dnnl::prop_kind::forward_inference;
  const auto algo = dnnl::algorithm::convolution_direct;
  if (first) {
    const memory::desc bias_md({c_out}, memory::data_type::f32, memory::format_tag::a);
    return dnnl::convolution_forward::primitive_desc(
        {kind, algo, d.src_any, d.wei_any, bias_md, d.dst_any, d.strides, d.dilates, d.pad_l,
         d.pad_r},
        attr, Engine());
  }
  return dnnl::convolution_forward::primitive_desc(
      {kind, algo, d.src_any, d.wei_any, d.dst_any, d.strides, d.dilates, d.pad_l, d.pad_r}, attr,
      Engine());
}

std::vector<SumBlock> InferenceConv::Impl::MakeBlocks(const DDim& x, const WindowGeometry& g,
                                                      int64_t o0, int64_t c_out,
                                                      const memory::desc& sum_md,
                                                      const DenseTensor& folded) const {
  const DType f32 = DType::kFloat32;
  const int64_t c_in = x[1], taps = g.kernel_size();
  std::vector<SumBlock> blocks;
  dnnl::stream s(Engine());
  for (int64_t c0 = 0; c0 < c_in; c0 += kSumBlockChannels) {
    SumBlock b;
    b.c0 = c0;
    b.len = std::min(kSumBlockChannels, c_in - c0);
    b.pd = BlockPrimitive(x, g, b.len, c_out, c0 == 0, c0 + b.len == c_in, &sum_md);
    b.conv = dnnl::convolution_forward(b.pd);
    // the block's channels of the folded weight [C_out, C_in, *kernel]: a strided view
    const Descs d = MakeDescs(x[0], b.len, c_out, g, 1, f32, f32, f32);
    memory::dims ws = PlainStrides(d.wei);
    ws[0] = c_in * taps;
    memory view(memory::desc(d.wei, memory::data_type::f32, ws), Engine(),
                const_cast<float*>(folded.data<float>()) + (o0 * c_in + c0) * taps);
    b.weight = memory(b.pd.weights_desc(), Engine());
    dnnl::reorder(view, b.weight).execute(s, view, b.weight);
    blocks.push_back(std::move(b));
  }
  s.wait();
  return blocks;
}

void InferenceConv::Impl::PrepareBlocks(const DDim& x, const WindowGeometry& g, Prepared* p) {
  const int64_t c_in = x[1], c_out = weight_dims[0];
  p->in_blocks = true;
  // the first block's primitive, probing for the running sum's layout
  p->pd = BlockPrimitive(x, g, std::min(kSumBlockChannels, c_in), c_out, true, false, nullptr);
  const DenseTensor folded = FoldedWeight();
  PrepareParts(x, g, Descs{}, dnnl::primitive_attr(), &folded, p);
  if (p->parts.empty()) p->blocks = MakeBlocks(x, g, 0, c_out, p->pd.dst_desc(), folded);
}

namespace {

// The blocks in order, each adding its input channels' products to the running sum
// (`sum`: the residual, or null) in whichever of `one` and `other` does not hold it;
// returns the one holding the result.
// Block i writes `one` where i plus (a residual first) is even, else `other`.
const memory& Turn(size_t i, bool residual, const memory& one, const memory& other) {
  return (i + (residual ? 1 : 0)) % 2 == 0 ? one : other;
}

memory SumOverBlocks(const std::vector<SumBlock>& blocks,
                     const std::function<memory(const SumBlock&)>& input, memory sum,
                     const memory& one, const memory& other, const memory& bias,
                     const std::function<memory(const memory::desc&)>& scratchpad,
                     dnnl::stream& s) {
  const bool residual = static_cast<bool>(sum);
  for (size_t i = 0; i < blocks.size(); ++i) {
    const SumBlock& b = blocks[i];
    const memory dst = Turn(i, residual, one, other);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, input(b)},
                                         {DNNL_ARG_WEIGHTS, b.weight},
                                         {DNNL_ARG_DST, dst},
                                         {DNNL_ARG_SCRATCHPAD, scratchpad(b.pd.scratchpad_desc())}};
    if (b.c0 == 0) args.insert({DNNL_ARG_BIAS, bias});
    if (sum) args.insert({DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, sum});
    b.conv.execute(s, args);
    sum = dst;
  }
  return sum;
}

}  // namespace

void InferenceConv::Impl::RunBlocks(const Prepared& p, const DenseTensor& x,
                                    const DenseTensor* residual, memory out, dnnl::stream& s,
                                    CallBuffers& buffers) const {
  const memory::desc& sum_md = p.pd.dst_desc();
  const memory one = buffers.New(sum_md), other = buffers.New(sum_md);
  memory sum;
  if (spec.residual) {  // Run has checked that there is one
    sum = one;
    Reorder(UserMemory(Strided(*residual), *residual), sum, s);
  }
  memory::dims dims(x.dims().begin(), x.dims().end());
  const memory::dims strides(x.strides().begin(), x.strides().end());
  // Note [A batch of one reorders its input once for all blocks] (conv_onednn.h)
  const std::vector<SumBlock>& first = p.parts.empty() ? p.blocks : p.parts.front().blocks;
  const memory whole = WholeBlockedInput(first.front().pd.src_desc(), x.dims()[1],
                                         UserMemory(Strided(x), x), s, &buffers);
  if (!p.parts.empty()) {
    s.wait();
    RunParts(p, whole, sum, one, other, buffers);
    const size_t last = p.parts.front().blocks.size() - 1;
    Reorder(Turn(last, static_cast<bool>(sum), one, other), out, s);
    s.wait();
    return;
  }
  auto input = [&](const SumBlock& b) {
    memory src = BlockOfWhole(whole, b.pd.src_desc(), b.c0, b.len);
    if (!src) {
      // the block's input channels: a view of x at its strides
      dims[1] = b.len;
      const memory view(memory::desc(dims, memory::data_type::f32, strides), Engine(),
                        const_cast<float*>(x.data<float>()) + b.c0 * x.strides()[1]);
      src = Input(b.pd.src_desc(), view, s, &buffers);
    }
    return src;
  };
  const memory bias_mem = UserMemory(
      memory::desc({bias.dims()[0]}, memory::data_type::f32, memory::format_tag::a), bias);
  sum = SumOverBlocks(
      p.blocks, input, sum, one, other, bias_mem,
      [&](const memory::desc& md) { return buffers.New(md); }, s);
  Reorder(sum, out, s);
  s.wait();
}

InferenceConv::InferenceConv(const DenseTensor& weight, const DenseTensor& mean,
                             const DenseTensor& variance, const DenseTensor& scale,
                             const DenseTensor& shift, double epsilon, InferenceConvSpec spec)
    : InferenceConv(weight, std::move(spec)) {
  const int64_t c_out = weight.dims()[0];
  CheckStatistic(mean, c_out, "mean");
  CheckStatistic(variance, c_out, "variance");
  CheckStatistic(scale, c_out, "weight");
  CheckStatistic(shift, c_out, "bias");
  const float *m = mean.data<float>(), *v = variance.data<float>();
  const float *g = scale.data<float>(), *b = shift.data<float>();
  float* fb = impl_->bias.data<float>();
  for (int64_t o = 0; o < c_out; ++o) {
    const double s = static_cast<double>(g[o]) / std::sqrt(static_cast<double>(v[o]) + epsilon);
    impl_->channel_scale[static_cast<size_t>(o)] = s;
    fb[o] = static_cast<float>(static_cast<double>(b[o]) - static_cast<double>(m[o]) * s);
  }
}

InferenceConv::InferenceConv(const DenseTensor& weight, InferenceConvSpec spec)
    : impl_(std::make_unique<Impl>()) {
  OAR_ENFORCE(
      weight.dtype() == DType::kFloat32 && weight.is_contiguous() && weight.ndim() >= 3,
      errors::InvalidArgument("folded convolution: the weight must be a contiguous float32 tensor "
                              "[C_out, C_in / groups, *kernel]"));
  const int64_t c_out = weight.dims()[0];
  impl_->spec = std::move(spec);
  impl_->weight = weight;
  impl_->weight_dims = weight.dims();
  impl_->bias = Float32(DDim{c_out});
  std::fill_n(impl_->bias.data<float>(), c_out, 0.f);
  impl_->channel_scale.assign(static_cast<size_t>(c_out), 1.0);  // w * 1.0 is w exactly
}

DenseTensor InferenceConv::Impl::FoldedWeight() const {
  // Without a batch norm (an eager no_grad convolution) every scale is 1 and w * 1.0 is w:
  // the weight itself, which the layouts only read.
  if (std::all_of(channel_scale.begin(), channel_scale.end(), [](double s) { return s == 1.0; })) {
    return weight;
  }
  DenseTensor folded = Float32(weight_dims);
  const int64_t c_out = weight_dims[0], per_out = Product(weight_dims) / c_out;
  const float* w = weight.data<float>();
  float* fw = folded.data<float>();
  // On oar's pool: a model's first call folds every weight (its fresh pages are cleared as
  // they are written, so that work is split too).
  ParallelFor(0, c_out, per_out, [&](int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o) {
      const double s = channel_scale[static_cast<size_t>(o)];
      for (int64_t i = 0; i < per_out; ++i) {
        fw[o * per_out + i] = static_cast<float>(static_cast<double>(w[o * per_out + i]) * s);
      }
    }
  });
  return folded;
}

InferenceConv::~InferenceConv() = default;

bool InferenceConv::Takes(const DenseTensor& t) {
  if (t.dtype() != DType::kFloat32 || !t.initialized()) return false;
  // dense: some order of the dims is contiguous (plain, or channels last)
  std::vector<std::pair<int64_t, int64_t>> by_stride;  // (stride, dim)
  for (int i = 0; i < t.ndim(); ++i) {
    if (t.dims()[i] != 1) by_stride.emplace_back(t.strides()[i], t.dims()[i]);
  }
  std::sort(by_stride.begin(), by_stride.end());
  int64_t expect = 1;
  for (const auto& [stride, dim] : by_stride) {
    if (stride != expect) return false;
    expect *= dim;
  }
  return true;
}

bool InferenceConv::Supports(const DenseTensor& x) const {
  // Every CPU (Note [Folded convolutions sum in blocks where the ops do]).
  return Takes(x) && x.ndim() == static_cast<int>(impl_->weight_dims.size()) && x.numel() > 0;
}

bool InferenceConv::RunsWinograd(const DenseTensor& x) const {
  bool winograd = false;
  onednn::Guard("folded convolution", [&] { winograd = impl_->For(x.dims())->winograd; });
  return winograd;
}

int64_t InferenceConv::Parts(const DDim& x_dims) const {
  size_t parts = 0;
  onednn::Guard("folded convolution", [&] { parts = impl_->For(x_dims)->parts.size(); });
  return static_cast<int64_t>(parts);
}

DDim InferenceConv::OutputDims(const DenseTensor& x) const { return OutputDims(x.dims()); }

DDim InferenceConv::OutputDims(const DDim& x) const {
  const Impl& m = *impl_;
  const WindowGeometry g = ConvGeometry(x, m.weight_dims, m.spec.strides, m.spec.paddings,
                                        m.spec.dilations, m.spec.groups);
  DDim out{x[0], m.weight_dims[0]};
  for (int i = 3 - g.nd; i < 3; ++i) out.push_back(g.out[i]);
  return out;
}

// Note [A stem convolution reads its plain input]
// A network's first convolution reads the image, a plain tensor of three channels.
// oneDNN's own choice for it on AVX-512 reads channels last (its brgemm kernel), so
// each call first reordered the image: at batch 1 of ResNet-18 the reorder took 0.12 ms
// and the convolution 0.70, against 0.70-0.73 ms for oneDNN's direct kernel reading the
// plain image and writing 16-channel blocks (a 7x7 stride-2 convolution of 3 to 64
// channels at 224x224, two threads, Xeon with AVX-512, medians of 60 calls; the weight
// in memory). So a folded convolution of at most kPlainInputMaxChannels input channels
// asks for the plain input layout first on AVX-512; its blocked output then goes to max
// pooling in blocks (Note [Max pooling reads and writes channel blocks] in
// max_pool_channels_last.h), and from there to the first block's convolutions. With
// three input channels the kernel sums the 147 products of an output in one chain
// either way (ResNet-18's logits are the same bits).
std::shared_ptr<const Prepared> InferenceConv::Impl::For(const DDim& x) {
  std::vector<int64_t> key(x.begin(), x.end());
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = by_shape.find(key); it != by_shape.end()) return it->second;
  const WindowGeometry g =
      ConvGeometry(x, weight_dims, spec.strides, spec.paddings, spec.dilations, spec.groups);
  const DType f32 = DType::kFloat32;
  const Descs d = MakeDescs(x[0], x[1], weight_dims[0], g, spec.groups, f32, f32, f32);
  dnnl::post_ops ops;
  if (spec.residual) ops.append_sum(1.f);
  if (spec.relu) ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  // Each call brings its own scratchpad: calls from several threads run one
  // primitive at once, and the library's scratchpad is shared between them.
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const memory::desc bias_md({weight_dims[0]}, memory::data_type::f32, memory::format_tag::a);
  auto make = [&](dnnl::algorithm algorithm, const memory::desc& src, const memory::desc& dst) {
    return dnnl::convolution_forward::primitive_desc(
        {dnnl::prop_kind::forward_inference, algorithm, src, d.wei_any, bias_md, dst, d.strides,
         d.dilates, d.pad_l, d.pad_r},
        attr, Engine());
  };
  auto p = std::make_shared<Prepared>();
  // Note [Folded convolutions run oar's Winograd kernel where oneDNN has none]
  // Without oneDNN's AVX-512 kernels the eager passes of the convolutions the rule
  // takes run oar's own F(2x2, 3x3) (Note [Winograd's F(2x2, 3x3) where oneDNN has
  // none] in conv_impl.h); a folded one does too, with the folded weight transformed
  // once, adding the bias, the residual and relu as it writes each output row. It
  // reads and writes the plain layout.
  if (spec.winograd && !OneDnnAvx512() &&
      WinogradShape(f32, g, x[0], x[1], weight_dims[0], spec.groups)) {
    if (!own_winograd.initialized()) own_winograd = WinogradWeight(FoldedWeight());
    p->own_winograd = own_winograd;
    p->geometry = g;
    p->winograd = true;
    p->out_dims = DDim(d.dst.begin(), d.dst.end());
    p->dst_plain = d.dst_plain;
    by_shape.emplace(std::move(key), p);
    return p;
  }
  // Note [Winograd's algorithm for small activations]
  const bool three_by_three = g.nd == 2 && spec.groups == 1 && g.kernel[1] == 3 &&
                              g.kernel[2] == 3 && g.stride[1] == 1 && g.stride[2] == 1 &&
                              g.dilation[1] == 1 && g.dilation[2] == 1;
  const int64_t positions = x[0] * g.out[1] * g.out[2];
  if (spec.winograd && three_by_three && Product(x) * 4 <= kWinogradMaxInputBytes &&
      positions >= kWinogradMinFoldedPositions) {
    try {
      p->pd = make(dnnl::algorithm::convolution_winograd, d.src_any, d.dst_any);
      p->winograd = true;
    } catch (const dnnl::error&) {
      // no Winograd kernel for this CPU or shape: the direct algorithm
    }
  }
  // Note [Folded convolutions sum in blocks where the ops do]
  const bool many = SumsManyProducts(x);
  // Note [A stem convolution reads its plain input]
  bool chosen = p->winograd;
  if (!chosen && x[1] <= kPlainInputMaxChannels && spec.groups == 1 && OneDnnAvx512()) {
    try {
      auto direct = make(dnnl::algorithm::convolution_direct, d.src_plain, d.dst_any);
      if (std::string_view(direct.impl_info_str()).find("ref") == std::string_view::npos) {
        p->pd = std::move(direct);
        chosen = true;
      }
    } catch (const dnnl::error&) {
      // no kernel for that layout: oneDNN's choice below
    }
  }
  // Note [A block's output stays in blocks for both its readers]
  if (!chosen && spec.prefer_blocked && OneDnnAvx512()) {
    const auto tag = ChannelBlockedTag(static_cast<int>(d.src.size()), kSumBlockChannels);
    try {
      auto blocked = make(dnnl::algorithm::convolution_direct,
                          memory::desc(d.src, memory::data_type::f32, tag),
                          memory::desc(d.dst, memory::data_type::f32, tag));
      if (std::string_view(blocked.impl_info_str()).find("ref") == std::string_view::npos &&
          (!many || SumsInBlocks(blocked))) {
        p->pd = std::move(blocked);
        chosen = true;
      }
    } catch (const dnnl::error&) {
      // no kernel for that layout: oneDNN's choice below
    }
  }
  if (!chosen) {
    p->pd = make(dnnl::algorithm::convolution_direct, d.src_any, d.dst_any);
    if (many && !SumsInBlocks(p->pd)) {
      const auto tag = ChannelBlockedTag(static_cast<int>(d.src.size()), kSumBlockChannels);
      try {
        auto blocked = make(dnnl::algorithm::convolution_direct,
                            memory::desc(d.src, memory::data_type::f32, tag),
                            memory::desc(d.dst, memory::data_type::f32, tag));
        if (SumsInBlocks(blocked)) p->pd = std::move(blocked);
      } catch (const dnnl::error&) {
        // no kernel for that layout: the blocks below
      }
    }
  }
  if (!p->winograd && many && !SumsInBlocks(p->pd)) {
    PrepareBlocks(x, g, p.get());
  } else {
    p->conv = dnnl::convolution_forward(p->pd);
  }
  p->dst_plain = d.dst_plain;
  p->out_dims = DDim(d.dst.begin(), d.dst.end());
  if (const std::optional<DDim> strides = DenseStrides(p->pd.dst_desc())) {
    p->dst_kept = p->pd.dst_desc();
    p->kept_strides = *strides;
  } else {
    p->kept_strides = ChannelsLastStrides(p->out_dims);
    p->dst_kept = memory::desc(d.dst, memory::data_type::f32,
                               memory::dims(p->kept_strides.begin(), p->kept_strides.end()));
  }
  if (p->OnePrimitive()) PrepareParts(x, g, d, attr, nullptr, p.get());
  const bool whole = !p->in_blocks && p->parts.empty();
  for (const memory& m : packed) {
    if (whole && m.get_desc() == p->pd.weights_desc()) p->weight = m;
  }
  if (whole && !p->weight) {
    auto blocked = std::find_if(packed.begin(), packed.end(), [](const memory& m) {
      return m.get_desc().data.format_kind != dnnl_format_kind_wino;
    });
    const DenseTensor folded = blocked == packed.end() ? FoldedWeight() : DenseTensor();
    const memory source = blocked == packed.end() ? UserMemory(d.wei_plain, folded) : *blocked;
    p->weight = Repack(source, p->pd.weights_desc(), d.wei_plain);
    packed.push_back(p->weight);
  }
  by_shape.emplace(std::move(key), p);
  return p;
}

// Note [A batch of one runs in parts of its output channels]
// A oneDNN primitive runs on OpenMP's team, whose idle threads spin briefly and then
// sleep (GOMP_SPINCOUNT=1000, Note [OpenMP's spinning and oar's pool]); on a VM, waking
// a thread for the next primitive, or the one left waiting at a primitive's end, costs
// tens of microseconds, and a batch of one's convolution only takes 0.1-1.4 ms: ResNet-18
// at batch 1 in the C++ runtime took 12.2-13.4 ms a call with a spin of 10000 against
// 13.5-15.8 with 1000. A longer spin for the process costs every other workload and the
// machine's other processes (docs/jit.md), so, as a float32 product of a model's size
// does (Note [Float32 products of a model's size run on oar's pool] in
// matmul_onednn.cc), a batch of one instead runs as one
// primitive per thread of oar's pool, each over a contiguous range of the output
// channels, created for one thread: the pool's workers stay awake between ops (Note
// [Idle workers spin, then yield, then sleep] in thread_pool.cc) and a late one's part is
// taken by the caller (Note [A late worker never delays an op] in parallel.h). In a
// channel-blocked layout a batch of one's channels [c0, c0 + len) are that layout's
// tensor of len channels at an offset, so each part writes its own bytes of the output
// (a residual already there is its sum post-op's), and all read the whole input. A
// convolution that sums its input channels in blocks (Note [Folded convolutions sum in
// blocks where the ops do]: oneDNN's AVX2 kernels) runs its blocks in each part over the
// part's channels of the two running sums, reading the input reordered once (Note [A
// batch of one reorders its input once for all blocks] in conv_onednn.h), where it ran
// every block, a primitive of 16 input channels, on the team: ResNet-18's 512-channel
// layer 32 times a convolution. Each output channel is summed by the same kernel in the
// same order (parts are made only where each part's primitives are the whole one's
// kernel in the same layouts): the bits do not change. A part has at least
// kPartMinChannels channels: every part transforms
// the whole input for Winograd's algorithm, and the direct kernels block their registers
// over the output channels; ResNet-18's first stage (64 channels, two parts of 32) took
// 0.80-1.07 ms a convolution in parts against 0.53-0.67 whole. ResNet-18 at batch 1 in
// the C++ runtime, five alternating rounds: 12.6-13.2 ms a call against 13.0-13.9 as
// whole primitives (less in four), and ONNX Runtime's 13.1-13.9 in the same rounds
// (Xeon with AVX-512, two threads, oar_bench_jit_latency); beside a busy process
// 24.6-25.4 against 24.9-25.7 (ONNX Runtime 30.3-30.7); the same bits, and a peak
// memory of 139.5 or 145.5 MiB depending on the build (against 139.6-140.1; builds that
// differ in how the parts are handed to the pool gave one or the other, steadily). With
// oneDNN and oar held
// to AVX2 on that machine (OAR_MAX_CPU_ISA=avx2) the blocks in parts took the call from
// 38.1-47.8 ms to 28.3-35.8 (four alternating rounds), the same bits.
void InferenceConv::Impl::PrepareParts(const DDim& x, const WindowGeometry& g, const Descs& d,
                                       const dnnl::primitive_attr& attr,
                                       const DenseTensor* folded_weight, Prepared* p) {
  const int64_t count = detail::IntraOpThreads();
  const int64_t c_out = weight_dims[0];
  // the output's layout, or the running sum's
  const int64_t block = ChannelBlockOf(p->pd.dst_desc());
  if (!spec.split_output_channels || x[0] != 1 || count < 2 || spec.groups != 1 || block == 0 ||
      c_out % (count * block) != 0 || c_out / count < kPartMinChannels) {
    return;
  }
  // Blocks read their channels of the whole input in one blocked layout (Note [A batch of
  // one reorders its input once for all blocks] in conv_onednn.h).
  const int64_t in_block = ChannelBlockOf(p->pd.src_desc());
  if (p->in_blocks &&
      (in_block == 0 || kSumBlockChannels % in_block != 0 || x[1] % in_block != 0)) {
    return;
  }
  const int64_t len = c_out / count;
  memory::dims dst = p->pd.dst_desc().dims();
  dst[1] = len;
  const memory::desc dst_md(dst, memory::data_type::f32,
                            ChannelBlockedTag(static_cast<int>(dst.size()), block));
  const std::string_view impl = p->pd.impl_info_str();
  const DenseTensor folded = folded_weight != nullptr ? *folded_weight : FoldedWeight();
  const int64_t per_channel = Product(weight_dims) / c_out;
  const OneOpenMPThread one;  // each part's primitives run on one thread
  dnnl::stream s(Engine());
  std::vector<Part> parts;
  for (int64_t k = 0; k < count; ++k) {
    Part part;
    part.dst = dst_md;
    part.bias = memory::desc({len}, memory::data_type::f32, memory::format_tag::a);
    part.c0 = k * len;
    part.dst_offset = static_cast<size_t>(k) * dst_md.get_size();
    try {
      if (p->in_blocks) {
        int64_t bytes = 0;
        part.blocks = MakeBlocks(x, g, part.c0, len, dst_md, folded);
        for (const SumBlock& b : part.blocks) {
          if (b.pd.dst_desc() != dst_md || std::string_view(b.pd.impl_info_str()) != impl ||
              ChannelBlockOf(b.pd.src_desc()) != in_block) {
            return;
          }
          bytes = std::max<int64_t>(bytes, static_cast<int64_t>(b.pd.scratchpad_desc().get_size()));
        }
        part.scratchpad = memory::desc({bytes}, memory::data_type::u8, memory::format_tag::a);
      } else {
        memory::dims wei = d.wei;
        wei[0] = len;
        const dnnl::convolution_forward::primitive_desc pd(
            {dnnl::prop_kind::forward_inference,
             p->winograd ? dnnl::algorithm::convolution_winograd
                         : dnnl::algorithm::convolution_direct,
             p->pd.src_desc(), memory::desc(wei, memory::data_type::f32, memory::format_tag::any),
             part.bias, dst_md, d.strides, d.dilates, d.pad_l, d.pad_r},
            attr, Engine());
        if (pd.src_desc() != p->pd.src_desc() || pd.dst_desc() != dst_md ||
            std::string_view(pd.impl_info_str()) != impl) {
          return;
        }
        part.conv = dnnl::convolution_forward(pd);
        part.scratchpad = pd.scratchpad_desc();
        part.weight = memory(pd.weights_desc(), Engine());
        const memory view(memory::desc(wei, memory::data_type::f32, PlainStrides(wei)), Engine(),
                          const_cast<float*>(folded.data<float>()) + part.c0 * per_channel);
        // Note [oar writes a folded convolution's weight layouts]
        if (!WriteConvWeight(view, part.weight)) Reorder(view, part.weight, s);
      }
    } catch (const dnnl::error&) {
      return;  // no kernel for one thread: the whole primitive
    }
    parts.push_back(std::move(part));
  }
  s.wait();
  p->parts = std::move(parts);
}

namespace {

memory At(const memory::desc& md, const memory& whole, size_t offset) {
  return memory(md, Engine(), static_cast<char*>(whole.get_data_handle()) + offset);
}

}  // namespace

void InferenceConv::Impl::RunParts(const Prepared& p, const memory& src, const memory& sum,
                                   const memory& one, const memory& other,
                                   CallBuffers& buffers) const {
  std::vector<memory> scratch;
  for (const Part& part : p.parts) scratch.push_back(buffers.New(part.scratchpad));
  auto* b = const_cast<float*>(bias.data<float>());
  // One chunk a part (a part's cost passes the threshold alone); on a thread that already
  // runs a chunk of the pool, one after another.
  auto run = [&](int64_t k) {
    const Part& part = p.parts[static_cast<size_t>(k)];
    const memory& pad = scratch[static_cast<size_t>(k)];
    const memory bias_mem(part.bias, Engine(), b + part.c0);
    dnnl::stream s(Engine());
    if (part.blocks.empty()) {
      part.conv.execute(s, {{DNNL_ARG_SRC, src},
                            {DNNL_ARG_WEIGHTS, part.weight},
                            {DNNL_ARG_BIAS, bias_mem},
                            {DNNL_ARG_DST, At(part.dst, one, part.dst_offset)},
                            {DNNL_ARG_SCRATCHPAD, pad}});
    } else {
      SumOverBlocks(
          part.blocks,
          [&](const SumBlock& block) {
            return BlockOfWhole(src, block.pd.src_desc(), block.c0, block.len);
          },
          sum ? At(part.dst, sum, part.dst_offset) : memory(), At(part.dst, one, part.dst_offset),
          At(part.dst, other, part.dst_offset), bias_mem,
          [&](const memory::desc& md) { return memory(md, Engine(), pad.get_data_handle()); }, s);
    }
    s.wait();
  };
  ParallelFor(0, static_cast<int64_t>(p.parts.size()), ParallelThreshold(),
              [&](int64_t begin, int64_t end) {
                for (int64_t k = begin; k < end; ++k) run(k);
              });
}

// Note [A convolution's only reader takes its output blocked]
// oneDNN's direct AVX-512 and Winograd kernels read and write 16-channel blocks, which
// no strided tensor holds, so a folded convolution reorders its input into them and
// its output back to channels last (Note [Channel-blocked copies run on oar's pool]).
// Where the only reader of a convolution's output is the next folded convolution's
// input, the C++ runtime asks for that output in the layout the reader's kernel reads
// (a BlockedActivation, held beside the replay's tensors, jit/conv_folding.cc): the
// writer's kernel writes it there, or its own layout is reordered into it once, and the
// reader takes it as is, where the two reorders ran before (ResNet-18's basic blocks:
// the first convolution's output, read by the second alone). The bytes are the ones
// the reorders produced, so the results do not change. A reader that cannot take the
// folded path after all gets the tensor back first (Plain). ResNet-18 at batch 16 in
// the C++ runtime took 172-183 ms a call against 184-191, less in each of five
// alternating rounds (Xeon with AVX-512, two threads, oar_bench_jit_latency); at batch 1
// the copies' share of the call's samples fell from 5.9% to 3.7% but its time did not
// move measurably (11.6-12.5 ms against 11.1-12.4).
//
// Note [A block's output stays in blocks for both its readers]
// A residual block's output is read twice: as the next block's input by its first
// convolution, and as the residual its second convolution's sum post-op adds (or, in a
// downsampling block, as the input of its 1x1 convolution too). One reader at a time
// (Note [A convolution's only reader takes its output blocked]), such an output went
// back to channels last and each reader reordered it into oneDNN's blocks again: at
// batch 16 those copies were 5.7% of ResNet-18's call in the C++ runtime (perf). So an
// output that folded groups alone read is held in blocks until its last reader takes
// it: in the first input reader's layout where every input reader reads that layout,
// or, read only as a residual, in the writer's own output layout. A residual held in
// its reader's output layout and read last there is the destination the sum post-op
// adds onto in place, and its bytes become the output's where the output is held in
// that layout: a chain of identity blocks copies nothing between its convolutions.
// Convolutions that share an input (a downsampling block's 3x3 and 1x1) ask for
// oneDNN's 16-channel blocks on AVX-512 (prefer_blocked), where the 1x1 one took
// channels last before, so both read the held input as it is; its blocked kernel sums
// in another order, which moved ResNet-18's logits by at most 4.2e-5 (the largest is
// 70); everything else is the bytes the reorders produced. A reader that cannot take a
// held operand gets it as a tensor first. ResNet-18 in the C++ runtime at batch 16:
// 171-181 ms a call against 179-191, less in each of five alternating rounds, and ONNX
// Runtime's 172-183 ms in the same rounds (Xeon with AVX-512, two threads,
// oar_bench_jit_latency); at batch 1 the call did not move measurably (12.5-13.3
// against 12.7-12.9 ms). Peak memory rose by 6-8 MiB.
DenseTensor InferenceConv::Impl::Call(const ConvOperands& in, bool plain, const InferenceConv* next,
                                      bool own_layout,
                                      std::shared_ptr<const BlockedLayout>* layout) {
  DenseTensor y;
  const DenseTensor* x = in.x;
  const BlockedActivation* blocked_x = in.blocked_x;
  const DenseTensor* residual = in.residual;
  BlockedActivation* onto = in.onto;
  onednn::Guard("folded convolution", [&] {
    const DDim& x_dims = x != nullptr ? x->dims() : blocked_x->dims;
    const std::shared_ptr<const Prepared> p = For(x_dims);
    OAR_ENFORCE(blocked_x == nullptr || (p->OnePrimitive() && blocked_x->layout != nullptr &&
                                         blocked_x->layout->desc == p->pd.src_desc()),
                errors::InvalidArgument("folded convolution: the input's blocks are not this "
                                        "convolution's input layout"));
    if (onto != nullptr) {
      OAR_ENFORCE(spec.residual && onto->dims == p->out_dims && p->OnePrimitive() &&
                      onto->layout != nullptr && onto->layout->desc == p->pd.dst_desc(),
                  errors::InvalidArgument("folded convolution: the residual's blocks are not "
                                          "this convolution's output layout"));
    } else {
      OAR_ENFORCE(!spec.residual ||
                      (residual != nullptr && residual->dims() == p->out_dims && Takes(*residual)),
                  errors::InvalidArgument("folded convolution: the residual must be a dense "
                                          "float32 tensor shaped like the output ",
                                          p->out_dims));
    }
    // Where the output goes: `next`'s input layout, this convolution's own, or a tensor.
    memory::desc out_md;
    if (next != nullptr) out_md = next->impl_->For(p->out_dims)->pd.src_desc();
    if (own_layout) out_md = p->pd.dst_desc();
    const bool held = next != nullptr || own_layout;
    if (held) *layout = std::make_shared<const BlockedLayout>(BlockedLayout{out_md});
    auto allocate = [&] {
      if (held) {
        y = DenseTensor(DType::kUInt8, DDim{static_cast<int64_t>(out_md.get_size())});
        y.mutable_data<uint8_t>();
      } else {
        y = Float32(p->out_dims);
      }
    };
    // oar's own Winograd kernel reads and writes the plain layout (never given a blocked
    // input: ReadsBlocked is false for it); for `next`, its output is reordered.
    if (p->own_winograd.initialized()) {
      allocate();
      const DenseTensor xc = funcs::Contiguous(*x);
      const DenseTensor rc = residual != nullptr ? funcs::Contiguous(*residual) : DenseTensor();
      DenseTensor plain_y = held ? Float32(p->out_dims) : y;
      WinogradForwardFolded(xc, p->own_winograd, p->geometry, bias.data<float>(),
                            spec.residual ? &rc : nullptr, spec.relu, &plain_y);
      if (held) {
        dnnl::stream s(Engine());
        Reorder(UserMemory(p->dst_plain, plain_y), memory(out_md, Engine(), y.data()), s);
        s.wait();
      }
      return;
    }
    // A tensor output keeps the primitive's layout where a tensor can hold it, so the
    // next folded convolution reads it without a reorder.
    if (!held) out_md = plain ? p->dst_plain : p->dst_kept;
    // Note [A block's output stays in blocks for both its readers]: the residual's bytes
    // are the destination, and the output's too where it is to be held in that layout.
    const bool takes_onto = onto != nullptr && held && out_md == p->pd.dst_desc();
    if (takes_onto) {
      y = std::move(onto->bytes);
    } else {
      allocate();
      if (!held && !plain) {
        DenseTensorMeta meta = y.meta();
        meta.strides = p->kept_strides;
        y.set_meta(std::move(meta));
      }
    }
    dnnl::stream s(Engine());
    CallBuffers buffers;
    memory out(out_md, Engine(), y.data());
    if (p->in_blocks) {  // never with a blocked input or residual
      RunBlocks(*p, *x, residual, out, s, buffers);
      return;
    }
    const memory src =
        x != nullptr
            ? Input(p->pd.src_desc(), UserMemory(Strided(*x), *x), s, &buffers)
            : memory(p->pd.src_desc(), Engine(), const_cast<void*>(blocked_x->bytes.data()));
    memory dst;
    if (onto != nullptr && !takes_onto) {
      dst = memory(p->pd.dst_desc(), Engine(), onto->bytes.data());
    } else {
      dst = out.get_desc() == p->pd.dst_desc() ? out : buffers.New(p->pd.dst_desc());
    }
    if (spec.residual && onto == nullptr) {
      // the sum post-op adds the destination's contents
      memory r = UserMemory(Strided(*residual), *residual);
      Reorder(r, dst, s);
    }
    if (!p->parts.empty()) {
      s.wait();  // the residual's reorder into dst
      RunParts(*p, src, memory(), dst, memory(), buffers);
      if (dst.get_data_handle() != out.get_data_handle()) Reorder(dst, out, s);
      s.wait();
      return;
    }
    memory bias_mem = UserMemory(
        memory::desc({bias.dims()[0]}, memory::data_type::f32, memory::format_tag::a), bias);
    memory scratch = buffers.New(p->pd.scratchpad_desc());
    p->conv.execute(s, {{DNNL_ARG_SRC, src},
                        {DNNL_ARG_WEIGHTS, p->weight},
                        {DNNL_ARG_BIAS, bias_mem},
                        {DNNL_ARG_DST, dst},
                        {DNNL_ARG_SCRATCHPAD, scratch}});
    if (dst.get_data_handle() != out.get_data_handle()) Reorder(dst, out, s);
    s.wait();
  });
  if (onto != nullptr) *onto = BlockedActivation{};
  return y;
}

DenseTensor InferenceConv::Run(const ConvOperands& in, bool plain) const {
  return impl_->Call(in, plain, nullptr, false, nullptr);
}

BlockedActivation InferenceConv::RunBlocked(const ConvOperands& in,
                                            const InferenceConv* next) const {
  BlockedActivation out;
  out.dims = OutputDims(in.x != nullptr ? in.x->dims() : in.blocked_x->dims);
  out.bytes = impl_->Call(in, false, next, next == nullptr, &out.layout);
  return out;
}

DenseTensor InferenceConv::Run(const DenseTensor& x, const DenseTensor* residual,
                               bool plain) const {
  return Run(ConvOperands{.x = &x, .residual = residual}, plain);
}

DenseTensor InferenceConv::Run(const BlockedActivation& x, const DenseTensor* residual,
                               bool plain) const {
  return Run(ConvOperands{.blocked_x = &x, .residual = residual}, plain);
}

BlockedActivation InferenceConv::RunBlocked(const DenseTensor& x, const DenseTensor* residual,
                                            const InferenceConv& next) const {
  return RunBlocked(ConvOperands{.x = &x, .residual = residual}, &next);
}

BlockedActivation InferenceConv::RunBlocked(const BlockedActivation& x, const DenseTensor* residual,
                                            const InferenceConv& next) const {
  return RunBlocked(ConvOperands{.blocked_x = &x, .residual = residual}, &next);
}

bool InferenceConv::Impl::Blocked(const DDim& x_dims, bool input) {
  bool blocked = false;
  onednn::Guard("folded convolution", [&] {
    const std::shared_ptr<const Prepared> p = For(x_dims);
    blocked =
        p->OnePrimitive() && !DenseStrides(input ? p->pd.src_desc() : p->pd.dst_desc()).has_value();
  });
  return blocked;
}

bool InferenceConv::ReadsBlocked(const DDim& x_dims) const { return impl_->Blocked(x_dims, true); }

bool InferenceConv::WritesBlocked(const DDim& x_dims) const {
  return impl_->Blocked(x_dims, false);
}

bool InferenceConv::SameInputLayout(const InferenceConv& other, const DDim& x_dims) const {
  bool same = false;
  onednn::Guard("folded convolution", [&] {
    const std::shared_ptr<const Prepared> p = impl_->For(x_dims), q = other.impl_->For(x_dims);
    same = p->OnePrimitive() && q->OnePrimitive() && p->pd.src_desc() == q->pd.src_desc();
  });
  return same;
}

namespace {

memory::desc DenseBlocks(const DDim& dims, int64_t block) {
  const memory::dims d(dims.begin(), dims.end());
  return memory::desc(d, memory::data_type::f32,
                      ChannelBlockedTag(static_cast<int>(d.size()), block));
}

}  // namespace

bool InferenceConv::DenseChannelBlocks(const DDim& x_dims, bool input, int64_t block) const {
  bool dense = false;
  onednn::Guard("folded convolution", [&] {
    const std::shared_ptr<const Prepared> p = impl_->For(x_dims);
    if (p->OnePrimitive()) {
      const DDim& dims = input ? x_dims : p->out_dims;
      dense = dims[1] % block == 0 &&
              (input ? p->pd.src_desc() : p->pd.dst_desc()) == DenseBlocks(dims, block);
    }
  });
  return dense;
}

bool InferenceConv::DenseChannelBlocks(const BlockedActivation& x, int64_t block) {
  bool dense = false;
  onednn::Guard("folded convolution", [&] {
    dense = x.layout != nullptr && x.dims[1] % block == 0 &&
            x.layout->desc == DenseBlocks(x.dims, block);
  });
  return dense;
}

BlockedActivation InferenceConv::AsInput(DenseTensor bytes, const DDim& dims) const {
  BlockedActivation held{std::move(bytes), dims, nullptr};
  onednn::Guard("folded convolution", [&] {
    held.layout =
        std::make_shared<const BlockedLayout>(BlockedLayout{impl_->For(dims)->pd.src_desc()});
  });
  return held;
}

bool InferenceConv::ReadsAsIs(const BlockedActivation& x) const {
  bool same = false;
  onednn::Guard("folded convolution", [&] {
    const std::shared_ptr<const Prepared> p = impl_->For(x.dims);
    same = p->OnePrimitive() && x.layout != nullptr && x.layout->desc == p->pd.src_desc();
  });
  return same;
}

bool InferenceConv::AddsOnto(const BlockedActivation& residual, const DDim& x_dims) const {
  if (!impl_->spec.residual) return false;
  bool adds = false;
  onednn::Guard("folded convolution", [&] {
    const std::shared_ptr<const Prepared> p = impl_->For(x_dims);
    adds = p->OnePrimitive() && residual.dims == p->out_dims && residual.layout != nullptr &&
           residual.layout->desc == p->pd.dst_desc();
  });
  return adds;
}

DenseTensor InferenceConv::Plain(const BlockedActivation& x) {
  DenseTensor y = Float32(x.dims);
  onednn::Guard("folded convolution", [&] {
    dnnl::stream s(Engine());
    OAR_ENFORCE(x.layout != nullptr,
                errors::InvalidArgument("folded convolution: a held activation without its "
                                        "layout"));
    const memory from(x.layout->desc, Engine(), const_cast<void*>(x.bytes.data()));
    const memory::dims dims(x.dims.begin(), x.dims.end());
    const memory to(memory::desc(dims, memory::data_type::f32, PlainStrides(dims)), Engine(),
                    y.data());
    Reorder(from, to, s);
    s.wait();
  });
  return y;
}

}  // namespace oar::conv_engine
