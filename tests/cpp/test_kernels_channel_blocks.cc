// Note [Channel-blocked copies run on oar's pool]: oar's copies between channels last
// and oneDNN's channel blocks give oneDNN's reorder's bytes, both ways, for 8 and 16
// channels a block, 3 to 5 dims, padded rows and a batch; other pairs are refused.
#include "oar/kernels/cpu/channel_blocks.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/onednn_util.h"

namespace oar {
namespace {

using dnnl::memory;
using tag = memory::format_tag;

tag Blocked(size_t nd, int64_t block) {
  if (block == 8) return nd == 3 ? tag::aBc8b : nd == 4 ? tag::aBcd8b : tag::aBcde8b;
  return nd == 3 ? tag::aBc16b : nd == 4 ? tag::aBcd16b : tag::aBcde16b;
}

// Channels-last strides for dims, each row (the innermost spatial dim's step) `pad`
// floats longer than it needs.
memory::dims ChannelsLast(const memory::dims& d, int64_t pad) {
  const size_t nd = d.size();
  memory::dims s(nd);
  s[1] = 1;
  s[nd - 1] = d[1];
  int64_t step = d[1] * d[nd - 1] + pad;
  for (size_t i = nd - 1; i-- > 2;) {
    s[i] = step;
    step *= d[i];
  }
  s[0] = step;
  return s;
}

TEST(ChannelBlocks, CopiesAsOneDnnReorders) {
  const dnnl::engine& engine = onednn::Engine();
  dnnl::stream stream(engine);
  const std::vector<memory::dims> shapes = {
      {1, 32, 5, 7}, {3, 64, 4, 9}, {2, 16, 11}, {1, 48, 2, 3, 5}, {1, 256, 56, 56}};
  for (int64_t block : {8, 16}) {
    for (const memory::dims& d : shapes) {
      for (int64_t pad : {0, 3}) {
        SCOPED_TRACE(::testing::Message() << "block " << block << " dims " << d.size() << "-d "
                                          << d[0] << "x" << d[1] << " pad " << pad);
        const memory::desc plain_md(d, memory::data_type::f32, ChannelsLast(d, pad));
        const memory::desc blocked_md(d, memory::data_type::f32, Blocked(d.size(), block));
        std::vector<float> x(plain_md.get_size() / sizeof(float));
        std::iota(x.begin(), x.end(), 0.5f);
        std::vector<float> ours(blocked_md.get_size() / sizeof(float), -1.0f);
        std::vector<float> theirs(ours.size(), -2.0f);
        memory plain(plain_md, engine, x.data());
        memory o(blocked_md, engine, ours.data()), t(blocked_md, engine, theirs.data());
        ASSERT_TRUE(onednn::CopyChannelBlocks(plain, o));
        dnnl::reorder(plain, t).execute(stream, plain, t);
        stream.wait();
        EXPECT_EQ(0, std::memcmp(ours.data(), theirs.data(), ours.size() * sizeof(float)));
        // and back: the copy writes every element of the plain layout, no other float
        std::vector<float> back(x.size(), -3.0f), back_theirs(x.size(), -3.0f);
        memory b(plain_md, engine, back.data()), bt(plain_md, engine, back_theirs.data());
        ASSERT_TRUE(onednn::CopyChannelBlocks(t, b));
        dnnl::reorder(t, bt).execute(stream, t, bt);
        stream.wait();
        EXPECT_EQ(0, std::memcmp(back.data(), back_theirs.data(), back.size() * sizeof(float)));
      }
    }
  }
}

TEST(ChannelBlocks, RefusesOtherLayouts) {
  const dnnl::engine& engine = onednn::Engine();
  std::vector<float> a(4 * 24 * 9, 0.0f), b(4 * 32 * 9, 0.0f);
  // channels not a multiple of the block (oneDNN pads them)
  const memory::dims odd = {1, 24, 3, 3};
  memory plain(memory::desc(odd, memory::data_type::f32, ChannelsLast(odd, 0)), engine, a.data());
  memory padded(memory::desc(odd, memory::data_type::f32, tag::aBcd16b), engine);
  EXPECT_FALSE(onednn::CopyChannelBlocks(plain, padded));
  // channels not adjacent (NCHW)
  const memory::dims d = {1, 32, 3, 3};
  memory nchw(memory::desc(d, memory::data_type::f32, tag::abcd), engine, b.data());
  memory blocked(memory::desc(d, memory::data_type::f32, tag::aBcd16b), engine);
  EXPECT_FALSE(onednn::CopyChannelBlocks(nchw, blocked));
  // two plain layouts, and dims that differ
  memory nhwc(memory::desc(d, memory::data_type::f32, tag::acdb), engine);
  EXPECT_FALSE(onednn::CopyChannelBlocks(nchw, nhwc));
  memory other(memory::desc({1, 16, 3, 3}, memory::data_type::f32, tag::aBcd16b), engine);
  EXPECT_FALSE(onednn::CopyChannelBlocks(nhwc, other));
}

}  // namespace
}  // namespace oar
