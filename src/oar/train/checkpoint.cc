#include "oar/train/checkpoint.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "oar/core/errors.h"
#include "oar/core/wide_int.h"
#include "oar/eager/creation.h"
#include "oar/eager/dygraph_functions.h"

namespace oar {
namespace {

constexpr uint64_t kMaxHeader = 100ull << 20;  // as the safetensors package

struct Code {
  const char* name;
  DType dtype;
};
constexpr Code kCodes[] = {{"BOOL", DType::kBool},     {"I32", DType::kInt32},
                           {"I64", DType::kInt64},     {"F16", DType::kFloat16},
                           {"BF16", DType::kBFloat16}, {"F32", DType::kFloat32},
                           {"F64", DType::kFloat64},   {"U8", DType::kUInt8},
                           {"I8", DType::kInt8},       {"I16", DType::kInt16}};

const char* CodeOf(DType d) {
  for (const auto& c : kCodes) {
    if (c.dtype == d) return c.name;
  }
  throw errors::InvalidType("Save: dtype ", DTypeName(d), " cannot be saved");
}

[[noreturn]] void Bad(const std::string& path, const std::string& what) {
  throw errors::InvalidArgument("Load: '", path, "' is not a valid checkpoint: ", what);
}

}  // namespace

void Save(const NamedTensors& tensors, const std::string& path) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  nlohmann::json structure_items = nlohmann::json::array();
  std::set<std::string> names;
  uint64_t offset = 0;
  std::vector<Tensor> contiguous;
  for (const auto& [name, t] : tensors) {
    if (!names.insert(name).second) {
      throw errors::InvalidArgument("Save: the name '", name, "' appears twice");
    }
    if (name == "__metadata__") throw errors::InvalidArgument("Save: '__metadata__' is reserved");
    Tensor c = t.is_contiguous() ? t : assign(t.detach());
    const uint64_t bytes = static_cast<uint64_t>(c.numel()) * SizeOf(c.dtype());
    header[name] = {{"dtype", CodeOf(c.dtype())},
                    {"shape", c.shape()},
                    {"data_offsets", {offset, offset + bytes}}};
    structure_items.push_back({{{"v", name}}, {{"t", name}}});
    offset += bytes;
    contiguous.push_back(std::move(c));
  }
  header["__metadata__"] = {{"format", "oar.checkpoint"},
                            {"version", "1"},
                            {"structure", nlohmann::json{{"d", structure_items}}.dump()}};
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  const auto dir = std::filesystem::path(path).parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir);
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw errors::InvalidArgument("Save: cannot write '", tmp, "'");
    const uint64_t n = text.size();
    char len[8];
    for (int i = 0; i < 8; ++i) len[i] = static_cast<char>((n >> (8 * i)) & 0xff);  // little endian
    f.write(len, 8);
    f.write(text.data(), static_cast<std::streamsize>(text.size()));
    for (const Tensor& c : contiguous) {
      f.write(static_cast<const char*>(c.dense().data()),
              static_cast<std::streamsize>(c.numel() * SizeOf(c.dtype())));
    }
    if (!f) throw errors::InvalidArgument("Save: writing '", tmp, "' failed");
  }
  std::filesystem::rename(tmp, path);
}

NamedTensors Load(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw errors::NotFound("Load: no checkpoint file '", path, "'");
  f.seekg(0, std::ios::end);
  const auto size = static_cast<uint64_t>(f.tellg());
  f.seekg(0);
  if (size == 0) Bad(path, "the file is empty");
  if (size < 8) Bad(path, "fewer than 8 bytes (truncated)");
  unsigned char len[8];
  f.read(reinterpret_cast<char*>(len), 8);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | len[i];
  if (n > kMaxHeader || n > size - 8) {
    Bad(path, "the header claims " + std::to_string(n) + " bytes but the file has " +
                  std::to_string(size - 8) + " after the length");
  }
  std::string text(n, '\0');
  f.read(text.data(), static_cast<std::streamsize>(n));
  // ordered: Load returns the tensors in the order of the file.
  nlohmann::ordered_json header =
      nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (header.is_discarded() || !header.is_object()) Bad(path, "the header is not a JSON object");
  const uint64_t data_start = 8 + n, data_len = size - data_start;
  struct Entry {
    std::string name;
    DType dtype;
    std::vector<int64_t> shape;
    uint64_t begin, end;
  };
  std::vector<Entry> entries;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    const auto& e = it.value();
    if (!e.is_object() || !e.contains("dtype") || !e.contains("shape") ||
        !e.contains("data_offsets") || e.size() != 3) {
      Bad(path, "tensor '" + it.key() + "': expected the keys dtype, shape, data_offsets");
    }
    Entry en{it.key(), DType::kUndefined, {}, 0, 0};
    if (e["dtype"].is_string()) {
      for (const auto& c : kCodes) {
        if (e["dtype"] == c.name) en.dtype = c.dtype;
      }
    }
    if (en.dtype == DType::kUndefined) Bad(path, "tensor '" + it.key() + "': unsupported dtype");
    UInt128 count = 1;
    if (!e["shape"].is_array()) Bad(path, "tensor '" + it.key() + "': shape must be a list");
    for (const auto& d : e["shape"]) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0) {
        Bad(path, "tensor '" + it.key() + "': shape must hold non-negative ints");
      }
      en.shape.push_back(d.get<int64_t>());
      count *= static_cast<uint64_t>(en.shape.back());
      if (count > (static_cast<UInt128>(1) << 62)) {
        Bad(path, "tensor '" + it.key() + "': the shape is too large");
      }
    }
    const auto& o = e["data_offsets"];
    if (!o.is_array() || o.size() != 2 || !o[0].is_number_unsigned() ||
        !o[1].is_number_unsigned()) {
      Bad(path, "tensor '" + it.key() + "': data_offsets must be two non-negative ints");
    }
    en.begin = o[0].get<uint64_t>();
    en.end = o[1].get<uint64_t>();
    if (en.begin > en.end || en.end > data_len) {
      Bad(path, "tensor '" + it.key() + "': data_offsets outside the " + std::to_string(data_len) +
                    " data bytes");
    }
    if (static_cast<UInt128>(en.end - en.begin) != count * SizeOf(en.dtype)) {
      Bad(path, "tensor '" + it.key() + "': the shape needs a different number of bytes");
    }
    entries.push_back(std::move(en));
  }
  std::vector<const Entry*> by_offset;
  for (const auto& e : entries) by_offset.push_back(&e);
  std::sort(by_offset.begin(), by_offset.end(),
            [](const Entry* a, const Entry* b) { return a->begin < b->begin; });
  for (size_t i = 1; i < by_offset.size(); ++i) {
    if (by_offset[i]->begin < by_offset[i - 1]->end) {
      Bad(path, "tensor '" + by_offset[i]->name + "' overlaps another tensor's bytes");
    }
  }
  NamedTensors out;
  for (const auto& e : entries) {
    Tensor t = empty(e.shape, e.dtype);
    f.seekg(static_cast<std::streamoff>(data_start + e.begin));
    f.read(static_cast<char*>(t.dense().data()), static_cast<std::streamsize>(e.end - e.begin));
    if (!f) Bad(path, "reading tensor '" + e.name + "' failed");
    out.emplace_back(e.name, std::move(t));
  }
  return out;
}

}  // namespace oar
