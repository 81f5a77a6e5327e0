#include "test_util.h"

#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "oar/kernels/funcs/copy.h"

namespace oar::testing {

std::vector<double> Values(const Tensor& t) {
  // Complex: (real, imag) pairs, as the golden file stores them.
  if (IsComplex(t.dtype())) return Values(as_real(t));
  const DenseTensor c = funcs::CastTo(funcs::Contiguous(t.dense()), DType::kFloat64);
  const double* p = static_cast<const double*>(c.data());
  return std::vector<double>(p, p + c.numel());
}

namespace {

// Removes this process's files of TempPath when the process exits, so runs of the suite
// do not pile files up in the temporary directory.
class TempFiles {
 public:
  TempFiles() : prefix_("oar_test_" + std::to_string(getpid()) + "_") {}
  TempFiles(const TempFiles&) = delete;
  TempFiles& operator=(const TempFiles&) = delete;
  ~TempFiles() {
    std::error_code ec;
    std::vector<std::filesystem::path> mine;
    for (std::filesystem::directory_iterator it(::testing::TempDir(), ec), end; !ec && it != end;
         it.increment(ec)) {
      if (it->path().filename().string().starts_with(prefix_)) mine.push_back(it->path());
    }
    for (const auto& p : mine) std::filesystem::remove_all(p, ec);
  }
  std::string Path(const std::string& name) const { return ::testing::TempDir() + prefix_ + name; }

 private:
  std::string prefix_;
};

}  // namespace

std::string TempPath(const std::string& name) {
  static const TempFiles files;
  return files.Path(name);
}

std::vector<double> Random(int64_t n, uint32_t seed) {
  std::vector<double> v(n);
  uint32_t s = seed * 2654435761u + 1;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<double>(s >> 8) / (1 << 23) - 1.0;
  }
  return v;
}

Tensor Make(const std::vector<double>& values, const std::vector<int64_t>& shape, DType dtype,
            bool stop_gradient) {
  Tensor t = to_tensor<double>(values, shape);
  if (dtype != DType::kFloat64) t = cast(t, dtype);
  if (!stop_gradient) t.set_stop_gradient(false);
  return t;
}

void ExpectClose(const Tensor& t, const std::vector<double>& expected,
                 const std::vector<int64_t>& shape, double rtol, double atol) {
  ASSERT_TRUE(t.defined());
  ASSERT_EQ(t.shape(), shape);
  const auto v = Values(t);
  ASSERT_EQ(v.size(), expected.size());
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_NEAR(v[i], expected[i], atol + rtol * std::abs(expected[i])) << "at index " << i;
  }
}

int64_t BytesInUse() { return GetAllocatorStats(CPUPlace()).bytes_in_use; }

}  // namespace oar::testing
