// Convolution through oneDNN (conv_impl.h). The library is built with its
// OpenMP runtime (Debian's libdnnl 2.6: DNNL_CPU_RUNTIME == OMP), so it runs on
// the same OpenMP pool as the rest of oar and never uses more threads than
// omp_get_max_threads(); it picks its kernels from the CPU it runs on (and has
// reference kernels for any CPU), so no path here depends on a CPU feature.
// Primitives are created per call; oneDNN's own primitive cache makes a repeat
// of the same shape cheap. The user's plain layouts are reordered to the
// layouts oneDNN prefers (format_tag::any) and back.
#include <oneapi/dnnl/dnnl_config.h>
#include <dnnl.hpp>

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "oar/core/conv_flags.h"
#include "oar/core/errors.h"
#include "oar/kernels/cpu/conv_impl.h"
#include "oar/kernels/cpu/conv_onednn.h"
#include "oar/kernels/cpu/conv_weight_cache.h"
#include "oar/kernels/cpu/onednn_util.h"

static_assert(DNNL_CPU_RUNTIME == DNNL_RUNTIME_OMP,
              "oar needs oneDNN's OpenMP runtime, so oneDNN shares oar's threads");

namespace oar::conv_engine {
namespace {

using dnnl::memory;
using onednn::Engine;
using onednn::Guard;

dnnl::convolution_forward::primitive_desc ForwardPd(
    const Descs& d, const dnnl::primitive_attr& attr = {},
    dnnl::algorithm algorithm = dnnl::algorithm::convolution_direct) {
  return {{dnnl::prop_kind::forward_training, algorithm, d.src_any, d.wei_any, d.dst_any, d.strides,
           d.dilates, d.pad_l, d.pad_r},
          attr,
          Engine()};
}

// Note [Winograd's algorithm in the eager convolution] (conv_impl.h): the
// primitive descriptor `make` builds for Winograd's algorithm when the rule
// takes it and oneDNN has it, else for the direct one.
template <typename Make>
auto WithAlgorithm(const Descs& d, int64_t groups, const WindowGeometry& g, Make make) {
  const auto f32 = memory::data_type::f32;
  if (d.src_plain.data_type() == f32 && d.wei_plain.data_type() == f32 &&
      d.dst_plain.data_type() == f32 &&
      OneDnnWinograd(DType::kFloat32, g, d.src[0], d.src[1], d.dst[1], groups)) {
    try {
      return make(dnnl::algorithm::convolution_winograd);
    } catch (const dnnl::error&) {
      // no Winograd kernel for this padding: the direct algorithm
    }
  }
  return make(dnnl::algorithm::convolution_direct);
}

// The passes' attributes: each call brings its scratchpad (RunInto) in its
// CallBuffers.
dnnl::primitive_attr PassAttr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

// Runs `prim` (of primitive descriptor `pd`) with `args` plus the output `out_arg`
// written into `user` (via a buffer in the layout `want` when they differ), its
// scratchpad and that buffer from `buffers`.
void RunInto(const dnnl::primitive& prim, const dnnl::primitive_desc_base& pd,
             std::unordered_map<int, memory> args, int out_arg, const memory::desc& want,
             memory user, dnnl::stream& s, CallBuffers& buffers) {
  if (pd.scratchpad_desc().get_size() > 0) {
    args.insert({DNNL_ARG_SCRATCHPAD, buffers.New(pd.scratchpad_desc())});
  }
  if (want == user.get_desc()) {
    args.insert({out_arg, user});
    prim.execute(s, args);
  } else {
    memory tmp = buffers.New(want);
    args.insert({out_arg, tmp});
    prim.execute(s, args);
    onednn::Reorder(tmp, user, s);
  }
  s.wait();
}

// One block's convolution: input channels [c0, c0 + len) of x and w into the running
// sum. The views address the block in the user's plain tensors (strided over the
// other channels); src holds x's block in the layout the primitive wants (empty when
// the view is that layout), and the weight's blocks come packed from PackedWeightParts.
struct SumBlock {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward conv;
  memory::desc x_view, w_view;
  memory src, scratch;
  dnnl::reorder to_src;
};

// `sum_md`: the layout of the running sum the block adds to its output (a binary-add
// post-op, which also fixes the output's layout); null for the first block. Its
// buffers come from `buffers`.
SumBlock MakeSumBlock(int64_t n, int64_t c_in, int64_t len, int64_t c_out, const WindowGeometry& g,
                      const memory::desc* sum_md, CallBuffers& buffers) {
  const DType f32 = DType::kFloat32;
  Descs d = MakeDescs(n, len, c_out, g, 1, f32, f32, f32);
  memory::dims xs = PlainStrides(d.src), ws = PlainStrides(d.wei);
  xs[0] = c_in * g.in_size();
  ws[0] = c_in * g.kernel_size();
  dnnl::primitive_attr attr = PassAttr();
  if (sum_md != nullptr) {
    d.dst_any = *sum_md;
    dnnl::post_ops ops;
    ops.append_binary(dnnl::algorithm::binary_add, *sum_md);
    attr.set_post_ops(ops);
  }
  SumBlock b{ForwardPd(d, attr), {}, {}, {}, {}, {}, {}};
  b.conv = dnnl::convolution_forward(b.pd);
  b.x_view = memory::desc(d.src, memory::data_type::f32, xs);
  b.w_view = memory::desc(d.wei, memory::data_type::f32, ws);
  if (b.pd.src_desc() != b.x_view) {
    b.src = buffers.New(b.pd.src_desc());
    b.to_src = dnnl::reorder(memory(b.x_view, Engine(), nullptr), b.src);
  }
  if (b.pd.scratchpad_desc().get_size() > 0) b.scratch = buffers.New(b.pd.scratchpad_desc());
  return b;
}

// The block's operand: the view at `p`, or its copy in the primitive's layout.
memory BlockOperand(const memory::desc& view, const memory& buf, const dnnl::reorder& to,
                    const void* p, dnnl::stream& s) {
  memory user(view, Engine(), const_cast<void*>(p));
  if (!buf) return user;
  to.execute(s, user, const_cast<memory&>(buf));
  return buf;
}

// Forward in blocks of `block` input channels (float32, groups 1): block i's
// convolution writes its sum plus the running sum of blocks 0..i-1 into the other of
// two buffers, which becomes the running sum.
void ForwardInBlocks(const DenseTensor& x, const DenseTensor& w, const WindowGeometry& g,
                     int64_t block, DenseTensor* y) {
  const int64_t n = x.dims()[0], c_in = x.dims()[1], c_out = w.dims()[0];
  const float* px = static_cast<const float*>(x.data());
  dnnl::stream s(Engine());
  CallBuffers buffers;
  const SumBlock first = MakeSumBlock(n, c_in, block, c_out, g, nullptr, buffers);
  const memory::desc sum_md = first.pd.dst_desc();
  // Every full block after the first shares one primitive; a last, shorter block has its own.
  std::optional<SumBlock> rest, tail;
  if (c_in >= 2 * block) rest = MakeSumBlock(n, c_in, block, c_out, g, &sum_md, buffers);
  if (c_in % block != 0) tail = MakeSumBlock(n, c_in, c_in % block, c_out, g, &sum_md, buffers);
  auto block_at = [&](int64_t c0) -> const SumBlock& {
    if (c0 == 0) return first;
    return c_in - c0 < block ? *tail : *rest;
  };
  // Note [A convolution's weight packed across calls]: each block's weight, packed once.
  std::vector<WeightPart> parts;
  for (int64_t c0 = 0; c0 < c_in; c0 += block) {
    const SumBlock& b = block_at(c0);
    parts.push_back({b.w_view, b.pd.weights_desc(),
                     c0 * g.kernel_size() * static_cast<int64_t>(sizeof(float))});
  }
  const std::vector<memory> weights = PackedWeightParts(w, parts, s);
  memory sum = buffers.New(sum_md), next;
  const DType f32 = DType::kFloat32;
  // Note [A batch of one reorders its input once for all blocks]
  const memory whole = WholeBlockedInput(
      first.pd.src_desc(), c_in,
      UserMemory(MakeDescs(n, c_in, c_out, g, 1, f32, f32, f32).src_plain, x), s, &buffers);
  for (int64_t c0 = 0; c0 < c_in; c0 += block) {
    const SumBlock* b = &block_at(c0);
    memory src = BlockOfWhole(whole, b->pd.src_desc(), c0, std::min(block, c_in - c0));
    if (!src) src = BlockOperand(b->x_view, b->src, b->to_src, px + c0 * g.in_size(), s);
    const memory& wei = weights[c0 / block];
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}};
    if (b->scratch) args.insert({DNNL_ARG_SCRATCHPAD, b->scratch});
    if (c0 == 0) {
      args.insert({DNNL_ARG_DST, sum});
      b->conv.execute(s, args);
      continue;
    }
    if (!next) next = buffers.New(sum_md);
    args.insert({DNNL_ARG_DST, next});
    args.insert({DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, sum});
    b->conv.execute(s, args);
    std::swap(sum, next);
  }
  memory user(MakeDescs(n, c_in, c_out, g, 1, f32, f32, f32).dst_plain, Engine(), y->data());
  onednn::Reorder(sum, user, s);
  s.wait();
}

// The probes' convolution: 3x3, padding 1, 8x8 in and out.
WindowGeometry ProbeGeometry() {
  WindowGeometry g;
  g.nd = 2;
  for (int i = 1; i < 3; ++i) {
    g.in[i] = g.out[i] = 8;
    g.kernel[i] = 3;
    g.pad_before[i] = g.pad_after[i] = 1;
  }
  return g;
}

// Whether oneDNN's direct float32 forward kernel on this CPU sums in blocks itself,
// probed once on 32 input channels (a CPU does not change; immutable after the
// thread-safe initialisation).
bool DirectForwardSumsInBlocks() {
  static const bool blocks = [] {
    const auto f32 = DType::kFloat32;
    return SumsInBlocks(
        ForwardPd(MakeDescs(1, 2 * kSumBlockChannels, 16, ProbeGeometry(), 1, f32, f32, f32)));
  }();
  return blocks;
}

// The input channels of one block of the forward pass, or 0 for one convolution over all.
int64_t SumBlockChannels(const DenseTensor& x, const WindowGeometry& g, int64_t groups, Sum sum) {
  if (sum != Sum::kBlocked || x.dtype() != DType::kFloat32 || groups != 1 || g.kernel_size() == 1 ||
      x.dims()[1] <= kSumBlockChannels || DirectForwardSumsInBlocks()) {
    return 0;
  }
  return kSumBlockChannels;
}

}  // namespace

bool OneDnnFastDtype(DType dtype) {
  if (dtype == DType::kFloat32) return true;
  if (dtype != DType::kBFloat16) return false;
  // Probed once (a CPU does not change; immutable after the thread-safe
  // initialisation): oneDNN's bfloat16 convolutions need AVX-512 and are native
  // with avx512_bf16; elsewhere only its reference loops have them.
  static const bool bf16 = [] {
    try {
      const auto bf = DType::kBFloat16;
      return onednn::IsOptimized(ForwardPd(MakeDescs(1, 16, 16, ProbeGeometry(), 1, bf, bf, bf)));
    } catch (const dnnl::error&) {
      return false;
    }
  }();
  return bf16;
}

bool OneDnnAvx512() { return onednn::RunsAvx512(); }

bool SumsInBlocks(const dnnl::convolution_forward::primitive_desc& pd) {
  return std::string_view(pd.impl_info_str()).starts_with("jit:avx512");
}

bool WinogradShape(DType dtype, const WindowGeometry& g, int64_t n, int64_t c_in, int64_t c_out,
                   int64_t groups) {
  return FLAGS_conv_winograd() && dtype == DType::kFloat32 && groups == 1 && g.nd == 2 &&
         g.kernel[1] == 3 && g.kernel[2] == 3 && g.stride[1] == 1 && g.stride[2] == 1 &&
         g.dilation[1] == 1 && g.dilation[2] == 1 &&
         std::min(c_in, c_out) >= kWinogradMinChannels &&
         n * g.out[1] * g.out[2] >= kWinogradMinPositions;
}

bool OneDnnWinograd(DType dtype, const WindowGeometry& g, int64_t n, int64_t c_in, int64_t c_out,
                    int64_t groups) {
  return WinogradShape(dtype, g, n, c_in, c_out, groups) && OneDnnAvx512();
}

namespace detail {

void OneDnnForward(const DenseTensor& x, const DenseTensor& w, const WindowGeometry& g,
                   int64_t groups, DenseTensor* y, Sum sum) {
  Guard("convolution forward", [&] {
    if (const int64_t block = SumBlockChannels(x, g, groups, sum); block > 0) {
      return ForwardInBlocks(x, w, g, block, y);
    }
    const Descs d = MakeDescs(x.dims()[0], x.dims()[1], w.dims()[0], g, groups, x.dtype(),
                              w.dtype(), y->dtype());
    const auto pd =
        WithAlgorithm(d, groups, g, [&](dnnl::algorithm a) { return ForwardPd(d, PassAttr(), a); });
    dnnl::stream s(Engine());
    CallBuffers buffers;
    const memory src = Input(pd.src_desc(), UserMemory(d.src_plain, x), s, &buffers);
    // Note [A convolution's weight packed across calls]
    const memory wei = PackedWeight(w, UserMemory(d.wei_plain, w), pd.weights_desc(), s);
    RunInto(dnnl::convolution_forward(pd), pd, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}},
            DNNL_ARG_DST, pd.dst_desc(), UserMemory(d.dst_plain, *y), s, buffers);
  });
}

void OneDnnBackwardData(const DenseTensor& dy, const DenseTensor& w, const WindowGeometry& g,
                        int64_t groups, DenseTensor* dx) {
  Guard("convolution backward data", [&] {
    const Descs d = MakeDescs(dx->dims()[0], dx->dims()[1], w.dims()[0], g, groups, dx->dtype(),
                              w.dtype(), dy.dtype());
    const auto pd = WithAlgorithm(d, groups, g, [&](dnnl::algorithm a) {
      return dnnl::convolution_backward_data::primitive_desc(
          {a, d.src_any, d.wei_any, d.dst_any, d.strides, d.dilates, d.pad_l, d.pad_r}, PassAttr(),
          Engine(), ForwardPd(d, {}, a));
    });
    dnnl::stream s(Engine());
    CallBuffers buffers;
    const memory ddst = Input(pd.diff_dst_desc(), UserMemory(d.dst_plain, dy), s, &buffers);
    const memory wei = Input(pd.weights_desc(), UserMemory(d.wei_plain, w), s, &buffers);
    RunInto(dnnl::convolution_backward_data(pd), pd,
            {{DNNL_ARG_DIFF_DST, ddst}, {DNNL_ARG_WEIGHTS, wei}}, DNNL_ARG_DIFF_SRC,
            pd.diff_src_desc(), UserMemory(d.src_plain, *dx), s, buffers);
  });
}

void OneDnnBackwardWeights(const DenseTensor& x, const DenseTensor& dy, const WindowGeometry& g,
                           int64_t groups, DenseTensor* dw) {
  Guard("convolution backward weights", [&] {
    const Descs d = MakeDescs(x.dims()[0], x.dims()[1], dy.dims()[1], g, groups, x.dtype(),
                              dw->dtype(), dy.dtype());
    // The forward hint has the inputs' dtype for its weights: oneDNN has no
    // forward pass with bfloat16 data and float32 weights.
    const Descs hint = MakeDescs(x.dims()[0], x.dims()[1], dy.dims()[1], g, groups, x.dtype(),
                                 x.dtype(), dy.dtype());
    const auto pd = WithAlgorithm(d, groups, g, [&](dnnl::algorithm a) {
      return dnnl::convolution_backward_weights::primitive_desc(
          {a, d.src_any, d.wei_any, d.dst_any, d.strides, d.dilates, d.pad_l, d.pad_r}, PassAttr(),
          Engine(), ForwardPd(hint, {}, a));
    });
    dnnl::stream s(Engine());
    CallBuffers buffers;
    const memory src = Input(pd.src_desc(), UserMemory(d.src_plain, x), s, &buffers);
    const memory ddst = Input(pd.diff_dst_desc(), UserMemory(d.dst_plain, dy), s, &buffers);
    RunInto(dnnl::convolution_backward_weights(pd), pd,
            {{DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, ddst}}, DNNL_ARG_DIFF_WEIGHTS,
            pd.diff_weights_desc(), UserMemory(d.wei_plain, *dw), s, buffers);
  });
}

}  // namespace detail
}  // namespace oar::conv_engine
