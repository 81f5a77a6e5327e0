#include "oar/train/idx.h"

#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "oar/core/errors.h"
#include "oar/eager/creation.h"
#include "oar/eager/dygraph_functions.h"

namespace oar {
namespace {

std::vector<unsigned char> ReadAll(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) {
    if (path.rfind(kFashionMnistDir, 0) == 0) {
      throw errors::NotFound("ReadIdx: no file '", path,
                             "': install the Debian package dataset-fashion-mnist "
                             "(apt-get install dataset-fashion-mnist); oar downloads nothing");
    }
    throw errors::NotFound("ReadIdx: no file '", path, "'");
  }
  // gzread reads plain files too.
  std::unique_ptr<gzFile_s, int (*)(gzFile)> f(gzopen(path.c_str(), "rb"), gzclose);
  if (!f) throw errors::InvalidArgument("ReadIdx: cannot open '", path, "'");
  std::vector<unsigned char> out;
  unsigned char buf[1 << 16];
  for (;;) {
    const int got = gzread(f.get(), buf, sizeof(buf));
    if (got < 0) throw errors::InvalidArgument("ReadIdx: '", path, "' is corrupt (gzip)");
    if (got == 0) break;
    out.insert(out.end(), buf, buf + got);
  }
  return out;
}

}  // namespace

Tensor ReadIdx(const std::string& path) {
  const auto data = ReadAll(path);
  if (data.size() < 4 || data[0] != 0 || data[1] != 0 || data[2] != 0x08) {
    throw errors::InvalidArgument("ReadIdx: '", path, "' is not an IDX file of unsigned bytes");
  }
  const size_t ndim = data[3];
  if (data.size() < 4 + 4 * ndim)
    throw errors::InvalidArgument("ReadIdx: '", path, "' is truncated");
  std::vector<int64_t> dims;
  uint64_t count = 1;
  for (size_t i = 0; i < ndim; ++i) {
    const unsigned char* p = &data[4 + 4 * i];
    dims.push_back((int64_t{p[0]} << 24) | (int64_t{p[1]} << 16) | (int64_t{p[2]} << 8) | p[3]);
    count *= static_cast<uint64_t>(dims.back());
  }
  if (data.size() - (4 + 4 * ndim) != count) {
    throw errors::InvalidArgument("ReadIdx: '", path, "' holds ", data.size() - (4 + 4 * ndim),
                                  " data bytes, its header needs ", count);
  }
  Tensor t = empty(dims, DType::kInt32);
  int32_t* out = t.data<int32_t>();
  const unsigned char* in = data.data() + 4 + 4 * ndim;
  for (uint64_t i = 0; i < count; ++i) out[i] = in[i];
  return t;
}

Mnist ReadFashionMnist(bool train, const std::string& dir) {
  const std::string prefix = dir + (train ? "/train" : "/t10k");
  Tensor images = ReadIdx(prefix + "-images-idx3-ubyte.gz");
  Tensor labels = ReadIdx(prefix + "-labels-idx1-ubyte.gz");
  if (images.ndim() != 3 || labels.ndim() != 1 || images.shape()[0] != labels.shape()[0]) {
    throw errors::InvalidArgument("ReadFashionMnist: the files in '", dir,
                                  "' do not hold matching images and labels");
  }
  const int64_t n = images.shape()[0];
  images =
      scale(cast(reshape(images, {n, 1, images.shape()[1], images.shape()[2]}), DType::kFloat32),
            1.0 / 255, 0.0, true);
  return {images, cast(labels, DType::kInt64)};
}

}  // namespace oar
