// Note [oar writes a folded convolution's weight layouts]: for each layout oneDNN picks for
// a Winograd convolution on this CPU, oar's transform gives the bytes of oneDNN's reorder
// (F(2x2, 3x3) exactly; F(4x4, 3x3) within a rounding), and its 16 x 16-blocked copy
// gives them exactly, padded channels included; other layouts and sources are refused.
#include "oar/kernels/cpu/conv_weight_layout.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iterator>
#include <optional>
#include <random>
#include <vector>

#include "oar/kernels/cpu/onednn_util.h"

namespace oar {
namespace {

using dnnl::memory;
using tag = memory::format_tag;

// The weight layout of a batch-1 Winograd convolution's primitive, c_in -> c_out channels
// on an h x h input, if oneDNN has one on this CPU.
std::optional<memory::desc> WinogradLayout(int64_t c_out, int64_t c_in, int64_t h) {
  const memory::desc src({1, c_in, h, h}, memory::data_type::f32, tag::aBcd16b);
  const memory::desc dst({1, c_out, h, h}, memory::data_type::f32, tag::aBcd16b);
  const memory::desc any({c_out, c_in, 3, 3}, memory::data_type::f32, tag::any);
  const memory::desc bias({c_out}, memory::data_type::f32, tag::a);
  try {
    const dnnl::convolution_forward::primitive_desc pd({dnnl::prop_kind::forward_inference,
                                                        dnnl::algorithm::convolution_winograd,
                                                        src,
                                                        any,
                                                        bias,
                                                        dst,
                                                        {1, 1},
                                                        {1, 1},
                                                        {1, 1}},
                                                       onednn::Engine());
    if (pd.weights_desc().data.format_kind != dnnl_format_kind_wino) return std::nullopt;
    return pd.weights_desc();
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
}

// n normal floats.
std::vector<float> Random(int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal;
  std::vector<float> w(static_cast<size_t>(n));
  for (float& v : w) v = normal(gen);
  return w;
}

TEST(ConvWeightLayout, WinogradGivesOneDnnsReorder) {
  // ResNet-18's batch-1 layers and parts, channel counts that are not whole blocks, and
  // the larger activations oneDNN runs with F(4x4, 3x3).
  const int64_t shapes[][3] = {{64, 64, 56},   {128, 64, 28},  {64, 128, 28}, {128, 128, 28},
                               {256, 256, 14}, {128, 256, 14}, {512, 512, 7}, {48, 32, 20},
                               {40, 24, 20},   {256, 128, 28}, {256, 256, 28}};
  int checked = 0;
  for (const auto& s : shapes) {
    SCOPED_TRACE(testing::Message() << s[0] << " x " << s[1] << " at " << s[2]);
    const std::optional<memory::desc> want = WinogradLayout(s[0], s[1], s[2]);
    if (!want) continue;
    std::vector<float> w = Random(s[0] * s[1] * 9, static_cast<unsigned>(s[0] * 7 + s[1]));
    const memory plain({{s[0], s[1], 3, 3}, memory::data_type::f32, tag::oihw}, onednn::Engine(),
                       w.data());
    const memory theirs(*want, onednn::Engine()), ours(*want, onednn::Engine());
    dnnl::stream stream(onednn::Engine());
    dnnl::reorder(plain, theirs)
        .execute(stream, const_cast<memory&>(plain), const_cast<memory&>(theirs));
    stream.wait();
    std::memset(ours.get_data_handle(), 0x7f, want->get_size());  // NaN-free garbage
    ASSERT_TRUE(onednn::WriteConvWeight(plain, ours));
    const auto* a = static_cast<const float*>(theirs.get_data_handle());
    const auto* b = static_cast<const float*>(ours.get_data_handle());
    const size_t n = want->get_size() / sizeof(float);
    const bool exact = want->data.format_desc.wino_desc.alpha == 4;
    size_t differ = 0;
    for (size_t i = 0; i < n; ++i) {
      const bool same = exact ? std::memcmp(&a[i], &b[i], sizeof(float)) == 0
                              : std::fabs(a[i] - b[i]) <= 1e-6f * (1.0f + std::fabs(a[i]));
      differ += !same;
    }
    EXPECT_EQ(differ, 0u) << "of " << n << " floats, layout "
                          << want->data.format_desc.wino_desc.wino_format;
    ++checked;
  }
  // oneDNN 2.6 has Winograd kernels exactly where it runs AVX-512: there every shape above
  // must have been compared, elsewhere none can be.
  if (onednn::RunsAvx512()) {
    EXPECT_EQ(checked, static_cast<int>(std::size(shapes)));
  } else {
    EXPECT_EQ(checked, 0);
  }
}

TEST(ConvWeightLayout, BlockedGivesOneDnnsReorder) {
  // ResNet-18's parts and 1x1 layers, and channel counts that are not whole blocks.
  const int64_t shapes[][4] = {{256, 512, 3, 3}, {64, 64, 3, 3}, {40, 24, 3, 3}, {128, 64, 1, 1}};
  for (const auto& s : shapes) {
    SCOPED_TRACE(testing::Message() << s[0] << " x " << s[1] << " x " << s[2] << " x " << s[3]);
    std::vector<float> w = Random(s[0] * s[1] * s[2] * s[3], static_cast<unsigned>(s[0] + s[1]));
    const memory::dims dims = {s[0], s[1], s[2], s[3]};
    const memory plain({dims, memory::data_type::f32, tag::oihw}, onednn::Engine(), w.data());
    const memory::desc want(dims, memory::data_type::f32, tag::OIhw16i16o);
    const memory theirs(want, onednn::Engine()), ours(want, onednn::Engine());
    dnnl::stream stream(onednn::Engine());
    dnnl::reorder(plain, theirs)
        .execute(stream, const_cast<memory&>(plain), const_cast<memory&>(theirs));
    stream.wait();
    std::memset(ours.get_data_handle(), 0x7f, want.get_size());
    ASSERT_TRUE(onednn::WriteConvWeight(plain, ours));
    EXPECT_EQ(std::memcmp(theirs.get_data_handle(), ours.get_data_handle(), want.get_size()), 0);
  }
}

TEST(ConvWeightLayout, RefusesOtherLayoutsAndSources) {
  std::vector<float> w = Random(32 * 32 * 9, 1);
  const memory plain({{32, 32, 3, 3}, memory::data_type::f32, tag::oihw}, onednn::Engine(),
                     w.data());
  // Layouts oneDNN's reorder writes: 8-blocked, output channels innermost.
  for (const tag t : {tag::OIhw8i8o, tag::Ohwi16o}) {
    const memory other({{32, 32, 3, 3}, memory::data_type::f32, t}, onednn::Engine());
    EXPECT_FALSE(onednn::WriteConvWeight(plain, other));
  }
  // A source that is not a dense OIHW weight: channels last.
  const memory hwio({{32, 32, 3, 3}, memory::data_type::f32, tag::hwio}, onednn::Engine(),
                    w.data());
  const memory blocked({{32, 32, 3, 3}, memory::data_type::f32, tag::OIhw16i16o}, onednn::Engine());
  EXPECT_FALSE(onednn::WriteConvWeight(hwio, blocked));
  const std::optional<memory::desc> want = WinogradLayout(64, 64, 56);
  ASSERT_EQ(want.has_value(), onednn::RunsAvx512());  // oneDNN 2.6's Winograd: AVX-512 only
  if (!want) return;  // no Winograd layout to refuse into on this CPU
  const memory to(*want, onednn::Engine());
  // Into a Winograd layout: a 5x5 kernel, and more channels than the layout holds.
  std::vector<float> five(64 * 64 * 25);
  const memory five_by_five({{64, 64, 5, 5}, memory::data_type::f32, tag::oihw}, onednn::Engine(),
                            five.data());
  EXPECT_FALSE(onednn::WriteConvWeight(five_by_five, to));
  std::vector<float> wide = Random(96 * 64 * 9, 3);
  const memory wider({{96, 64, 3, 3}, memory::data_type::f32, tag::oihw}, onednn::Engine(),
                     wide.data());
  EXPECT_FALSE(onednn::WriteConvWeight(wider, to));
}

}  // namespace
}  // namespace oar
