#include "oar/kernels/cpu/channel_blocks.h"

#include <cstdint>
#include <cstring>

#include "oar/core/parallel.h"

namespace oar::onednn {
namespace {

// ChannelBlock for 8 or 16 channels a block that fill whole blocks (no padding) from
// the start of the buffer, else 0.
int64_t BlockOf(const dnnl_memory_desc_t& d) {
  const int64_t block = ChannelBlock(d);
  if ((block != 8 && block != 16) || d.offset0 != 0 || d.dims[1] % block != 0) return 0;
  for (int i = 0; i < d.ndims; ++i) {
    if (d.padded_dims[i] != d.dims[i]) return 0;
  }
  return block;
}

// Whether d is a float32 strided desc whose channels are adjacent.
bool ChannelsAdjacent(const dnnl_memory_desc_t& d) {
  return d.data_type == dnnl_f32 && d.format_kind == dnnl_blocked && d.ndims >= 3 &&
         d.offset0 == 0 && d.format_desc.blocking.inner_nblks == 0 &&
         d.format_desc.blocking.strides[1] == 1;
}

bool SameDims(const dnnl_memory_desc_t& a, const dnnl_memory_desc_t& b) {
  if (a.ndims != b.ndims) return false;
  for (int i = 0; i < a.ndims; ++i) {
    if (a.dims[i] != b.dims[i]) return false;
  }
  return true;
}

// Copies between `plain` (channels adjacent) and `blocked` (`Block` channels a block),
// into the blocked one when `to_blocked`.
template <int64_t Block>
void Copy(const dnnl_memory_desc_t& plain_md, float* plain, const dnnl_memory_desc_t& blocked_md,
          float* blocked, bool to_blocked) {
  const int nd = plain_md.ndims;
  const int64_t* ps = plain_md.format_desc.blocking.strides;
  const int64_t* bs = blocked_md.format_desc.blocking.strides;
  const int64_t channels = plain_md.dims[1], blocks = channels / Block;
  // The pixels: every index of the dims but the channels, row-major.
  int64_t pixels = 1;
  for (int d = 0; d < nd; ++d) pixels *= d == 1 ? 1 : plain_md.dims[d];
  ParallelFor(0, pixels, 2 * channels, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      int64_t rest = p, po = 0, bo = 0;
      for (int d = nd - 1; d >= 0; --d) {
        if (d == 1) continue;
        const int64_t i = rest % plain_md.dims[d];
        rest /= plain_md.dims[d];
        po += i * ps[d];
        bo += i * bs[d];
      }
      for (int64_t b = 0; b < blocks; ++b) {
        float* x = plain + po + b * Block;
        float* y = blocked + bo + b * bs[1];
        if (to_blocked) {
          std::memcpy(y, x, Block * sizeof(float));
        } else {
          std::memcpy(x, y, Block * sizeof(float));
        }
      }
    }
  });
}

}  // namespace

int64_t ChannelBlock(const dnnl_memory_desc_t& d) {
  if (d.data_type != dnnl_f32 || d.format_kind != dnnl_blocked || d.ndims < 3 || d.ndims > 5) {
    return 0;
  }
  const dnnl_blocking_desc_t& b = d.format_desc.blocking;
  return b.inner_nblks == 1 && b.inner_idxs[0] == 1 ? b.inner_blks[0] : 0;
}

bool CopyChannelBlocks(const dnnl::memory& from, const dnnl::memory& to) {
  const dnnl_memory_desc_t& f = from.get_desc().data;
  const dnnl_memory_desc_t& t = to.get_desc().data;
  if (!SameDims(f, t)) return false;
  const int64_t into = BlockOf(t), out_of = BlockOf(f);
  const bool to_blocked = into != 0 && ChannelsAdjacent(f);
  if (!to_blocked && !(out_of != 0 && ChannelsAdjacent(t))) return false;
  auto* src = static_cast<float*>(from.get_data_handle());
  auto* dst = static_cast<float*>(to.get_data_handle());
  const dnnl_memory_desc_t& plain = to_blocked ? f : t;
  const dnnl_memory_desc_t& blocked = to_blocked ? t : f;
  float* p = to_blocked ? src : dst;
  float* b = to_blocked ? dst : src;
  if ((to_blocked ? into : out_of) == 16) {
    Copy<16>(plain, p, blocked, b, to_blocked);
  } else {
    Copy<8>(plain, p, blocked, b, to_blocked);
  }
  return true;
}

void Reorder(const dnnl::memory& from, const dnnl::memory& to, dnnl::stream& s) {
  if (CopyChannelBlocks(from, to)) return;
  dnnl::reorder(from, to).execute(s, const_cast<dnnl::memory&>(from),
                                  const_cast<dnnl::memory&>(to));
}

}  // namespace oar::onednn
