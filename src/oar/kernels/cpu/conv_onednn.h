// What the two oneDNN convolution files share (conv_onednn.cc for the ops'
// passes, conv_inference.cc for folded inference convolutions): the
// descriptors of one convolution and moving a user's plain buffer into the
// layout a primitive asks for. Only kernel files include this header.
#pragma once

#include <dnnl.hpp>

#include <cstdint>
#include <vector>

#include "oar/core/dense_tensor.h"
#include "oar/kernels/cpu/channel_blocks.h"
#include "oar/kernels/cpu/onednn_util.h"
#include "oar/kernels/infer_meta_conv.h"

namespace oar::conv_engine {

// The descriptors of one convolution: plain (user) layouts and `any`.
struct Descs {
  dnnl::memory::dims src, wei, dst, strides, dilates, pad_l, pad_r;
  dnnl::memory::desc src_plain, wei_plain, dst_plain;
  dnnl::memory::desc src_any, wei_any, dst_any;
};

inline dnnl::memory::dims PlainStrides(const dnnl::memory::dims& dims) {
  dnnl::memory::dims s(dims.size(), 1);
  for (size_t i = dims.size() - 1; i-- > 0;) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

// The tensors' dtypes: float32, or bfloat16 (backward weights: bfloat16
// inputs with a float32 or bfloat16 gradient).
inline Descs MakeDescs(int64_t n, int64_t c_in, int64_t c_out, const WindowGeometry& g,
                       int64_t groups, DType src_dtype, DType wei_dtype, DType dst_dtype) {
  const auto src_dt = onednn::DataType(src_dtype), wei_dt = onednn::DataType(wei_dtype),
             dst_dt = onednn::DataType(dst_dtype);
  Descs d;
  d.src = {n, c_in};
  d.dst = {n, c_out};
  if (groups > 1) {
    d.wei = {groups, c_out / groups, c_in / groups};
  } else {
    d.wei = {c_out, c_in};
  }
  for (int i = 3 - g.nd; i < 3; ++i) {
    d.src.push_back(g.in[i]);
    d.dst.push_back(g.out[i]);
    d.wei.push_back(g.kernel[i]);
    d.strides.push_back(g.stride[i]);
    d.dilates.push_back(g.dilation[i] - 1);  // oneDNN counts the gaps
    d.pad_l.push_back(g.pad_before[i]);
    d.pad_r.push_back(g.pad_after[i]);
  }
  d.src_plain = dnnl::memory::desc(d.src, src_dt, PlainStrides(d.src));
  d.wei_plain = dnnl::memory::desc(d.wei, wei_dt, PlainStrides(d.wei));
  d.dst_plain = dnnl::memory::desc(d.dst, dst_dt, PlainStrides(d.dst));
  d.src_any = dnnl::memory::desc(d.src, src_dt, dnnl::memory::format_tag::any);
  d.wei_any = dnnl::memory::desc(d.wei, wei_dt, dnnl::memory::format_tag::any);
  d.dst_any = dnnl::memory::desc(d.dst, dst_dt, dnnl::memory::format_tag::any);
  return d;
}

inline dnnl::memory UserMemory(const dnnl::memory::desc& md, const DenseTensor& t) {
  // oneDNN never writes to an input; the cast only satisfies its signature.
  return dnnl::memory(md, onednn::Engine(), const_cast<void*>(t.data()));
}

// The buffers of one call (reordered operands, the primitive's scratchpad),
// from oar's allocator, which keeps freed blocks for the next call: buffers
// oneDNN allocates itself came from the system as fresh pages at every call
// once they were a few megabytes (Winograd's transformed tiles, a batch's
// activations), and ResNet-18's 512-channel forward pass at batch 8 took 19 ms
// instead of 7. The memory lives as long as this object.
class CallBuffers {
 public:
  dnnl::memory New(const dnnl::memory::desc& md) {
    DenseTensor& t = held_.emplace_back(DType::kUInt8, DDim{static_cast<int64_t>(md.get_size())});
    return dnnl::memory(md, onednn::Engine(), t.numel() > 0 ? t.mutable_data<uint8_t>() : nullptr);
  }

 private:
  std::vector<DenseTensor> held_;  // moving a DenseTensor keeps its memory in place
};

// `user` in the layout `want`: itself, or a reordered copy in `buffers` (or,
// when null, in memory the copy owns).
inline dnnl::memory Input(const dnnl::memory::desc& want, const dnnl::memory& user, dnnl::stream& s,
                          CallBuffers* buffers = nullptr) {
  if (want == user.get_desc()) return user;
  dnnl::memory m = buffers != nullptr ? buffers->New(want) : dnnl::memory(want, onednn::Engine());
  onednn::Reorder(user, m, s);  // Note [Channel-blocked copies run on oar's pool]
  return m;
}

// Note [A batch of one reorders its input once for all blocks]
// A forward pass in blocks of input channels (Note [The forward convolution sums in
// blocks] in conv_impl.h; the eager pass and the folded convolution) gives each block's
// primitive its channels in the layout it reads, one reorder per block. With one
// sample, channels [c0, c0 + len) of a channel-blocked layout (8 or 16 channels a
// block) are that layout's tensor of len channels at an offset, so one reorder of the
// whole input serves every block that starts and ends on a channel block, and the calls
// a layer makes at batch 1 halve (a 512-channel layer: 32 reorders and 32 convolutions
// before). ResNet-18 at batch 1 on two Zen 3 threads, the builds in turn: the C++
// runtime 27.5-43.7 ms a call against 32.7-46.7 (three rounds of four faster), eager
// inference 31.4-32.7 ms against 32.0-48.3.

// Whether the kernel `pd` runs sums at most kSumBlockChannels input channels in one
// chain: oneDNN's direct AVX-512 kernels (jit:avx512*) do; its AVX2 ones and its
// brgemm ones do not (Note [The forward convolution sums in blocks] in conv_impl.h).
bool SumsInBlocks(const dnnl::convolution_forward::primitive_desc& pd);

// The channel-blocked layout tag of `ndims` dims with `block` channels a block, or undef.
inline dnnl::memory::format_tag ChannelBlockedTag(int ndims, int64_t block) {
  using tag = dnnl::memory::format_tag;
  static constexpr tag kBy8[] = {tag::aBc8b, tag::aBcd8b, tag::aBcde8b};
  static constexpr tag kBy16[] = {tag::aBc16b, tag::aBcd16b, tag::aBcde16b};
  if (ndims < 3 || ndims > 5 || (block != 8 && block != 16)) return tag::undef;
  return (block == 8 ? kBy8 : kBy16)[ndims - 3];
}

// The channels per block of `md` where it is a batch-of-one float32 channel-blocked
// layout, else 0.
inline int64_t ChannelBlockOf(const dnnl::memory::desc& md) {
  const dnnl_memory_desc_t& d = md.data;
  const int64_t block = onednn::ChannelBlock(d);
  if (block == 0 || d.dims[0] != 1) return 0;
  const dnnl::memory::format_tag tag = ChannelBlockedTag(d.ndims, block);
  if (tag == dnnl::memory::format_tag::undef) return 0;
  const dnnl::memory::dims dims(d.dims, d.dims + d.ndims);
  return md == dnnl::memory::desc(dims, dnnl::memory::data_type::f32, tag) ? block : 0;
}

// `user` (all c_in input channels) in the layout of `block_src` (a block's primitive's
// input) widened to c_in channels, or a null memory where that layout is not a
// batch-of-one channel-blocked one.
inline dnnl::memory WholeBlockedInput(const dnnl::memory::desc& block_src, int64_t c_in,
                                      const dnnl::memory& user, dnnl::stream& s,
                                      CallBuffers* buffers) {
  const int64_t block = ChannelBlockOf(block_src);
  if (block == 0) return {};
  dnnl::memory::dims dims = block_src.dims();
  dims[1] = c_in;
  const auto tag = ChannelBlockedTag(static_cast<int>(dims.size()), block);
  return Input(dnnl::memory::desc(dims, dnnl::memory::data_type::f32, tag), user, s, buffers);
}

// Input channels [c0, c0 + len) of `whole` (from WholeBlockedInput) as the input of a
// primitive that reads `want`, or a null memory where `whole` does not hold it.
inline dnnl::memory BlockOfWhole(const dnnl::memory& whole, const dnnl::memory::desc& want,
                                 int64_t c0, int64_t len) {
  if (!whole) return {};
  const int64_t block = ChannelBlockOf(whole.get_desc());
  if (block == 0 || ChannelBlockOf(want) != block || c0 % block != 0 || len % block != 0) {
    return {};
  }
  const dnnl::memory::dims dims = want.dims();
  int64_t spatial = 1;
  for (size_t i = 2; i < dims.size(); ++i) spatial *= dims[i];
  return dnnl::memory(want, onednn::Engine(),
                      static_cast<float*>(whole.get_data_handle()) + c0 * spatial);
}

}  // namespace oar::conv_engine
