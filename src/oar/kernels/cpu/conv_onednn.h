// What the two oneDNN convolution files share (conv_onednn.cc for the ops'
// passes, conv_inference.cc for folded inference convolutions): the
// descriptors of one convolution and moving a user's plain buffer into the
// layout a primitive asks for. Only kernel files include this header.
#pragma once

#include <dnnl.hpp>

#include <cstdint>
#include <vector>

#include "oar/core/dense_tensor.h"
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
  dnnl::reorder(user, m).execute(s, const_cast<dnnl::memory&>(user), m);
  return m;
}

}  // namespace oar::conv_engine
