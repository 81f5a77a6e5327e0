// The IDX format of MNIST and Fashion-MNIST (optionally gzip-compressed), read
// into a uint8-valued tensor, and the Fashion-MNIST files of Debian's
// dataset-fashion-mnist package. Nothing is downloaded.
#pragma once

#include <string>

#include "oar/core/tensor.h"

namespace oar {

// The directory Debian's dataset-fashion-mnist package installs.
inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// An IDX file of unsigned bytes (type code 0x08) as an int32 tensor of its
// dimensions. Throws NotFound for a missing file (naming the Debian package when
// the path is under kFashionMnistDir) and InvalidArgument for a malformed one.
Tensor ReadIdx(const std::string& path);

// Fashion-MNIST's images (float32 [N, 1, 28, 28] scaled to [0, 1]) and labels
// (int64 [N]); train = false reads the 10,000 test images.
struct Mnist {
  Tensor images, labels;
};
Mnist ReadFashionMnist(bool train, const std::string& dir = kFashionMnistDir);

}  // namespace oar
