#include "op_registry.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test_util.h"

namespace oar::testing {

template <typename T>
T GetAttr(const AttrMap& a, const char* name) {
  auto it = a.find(name);
  if (it == a.end()) throw std::runtime_error(std::string("test case lacks attribute ") + name);
  const AttrValue& v = it->second;
  if constexpr (std::is_same_v<T, Scalar>) {
    if (auto* i = std::get_if<int64_t>(&v)) return Scalar(*i);
    if (auto* b = std::get_if<bool>(&v)) return Scalar(*b);
    return Scalar(std::get<double>(v));
  }
  if constexpr (std::is_same_v<T, double>) {
    if (auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  }
  if constexpr (std::is_same_v<T, int64_t>) {
    if (auto* d = std::get_if<double>(&v)) return static_cast<int64_t>(*d);
  }
  if constexpr (!std::is_same_v<T, Scalar>) return std::get<T>(v);
}

template <typename T>
T GetAttr(const AttrMap& a, const char* name, T def) {
  return a.count(name) ? GetAttr<T>(a, name) : def;
}

namespace {

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

const nlohmann::json& Golden() {
  static const nlohmann::json j =
      nlohmann::json::parse(ReadFile(OAR_SOURCE_DIR "/tests/cpp/golden/ops.json"));
  return j;
}

TensorData ParseTensor(const nlohmann::json& j) {
  TensorData d;
  d.shape = j.at("shape").get<std::vector<int64_t>>();
  d.dtype = DTypeFromName(j.at("dtype").get<std::string>());
  d.data = j.at("data").get<std::vector<double>>();
  return d;
}

AttrValue ParseAttr(const nlohmann::json& v) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) return v.get<double>();
  if (v.is_string()) return DTypeFromName(v.get<std::string>());
  if (v.is_array()) return v.get<std::vector<int64_t>>();
  throw std::runtime_error("unsupported attribute value " + v.dump());
}

}  // namespace

const std::vector<OpInfo>& AllOps() {
  static const std::vector<OpInfo> ops = [] {
    std::vector<OpInfo> v;
#define OAR_OP(name, inplace, inputs, diff) \
  v.push_back({#name, inplace, Split(inputs), Split(diff)});
#include "oar/eager/op_list.inc"
#undef OAR_OP
    return v;
  }();
  return ops;
}

const OpInfo& FindOp(const std::string& name) {
  for (const auto& op : AllOps()) {
    if (op.name == name) return op;
  }
  throw std::runtime_error("no declared op " + name);
}

const Invoker& GetInvoker(const std::string& name) {
  static const std::map<std::string, Invoker> invokers = {
#include "oar/eager/op_invoke.inc"
  };
  return invokers.at(name);
}

const std::vector<OpCase>& GoldenCases() {
  static const std::vector<OpCase> cases = [] {
    std::vector<OpCase> v;
    for (const auto& c : Golden().at("cases")) {
      OpCase oc;
      oc.op = c.at("op").get<std::string>();
      oc.index = c.at("case").get<int>();
      for (const auto& i : c.at("inputs")) oc.inputs.push_back(ParseTensor(i));
      for (const auto& [k, val] : c.at("attrs").items()) oc.attrs[k] = ParseAttr(val);
      oc.random = c.at("random").get<bool>();
      if (!oc.random) oc.output = ParseTensor(c.at("output"));
      v.push_back(std::move(oc));
    }
    return v;
  }();
  return cases;
}

std::string GoldenSource() { return Golden().at("source").get<std::string>(); }
std::string CurrentCasesSource() { return ReadFile(OAR_SOURCE_DIR "/tests/op_cases.yaml"); }

Tensor MakeTensor(const TensorData& d, DType as) {
  const DType dtype = as == DType::kUndefined ? d.dtype : as;
  return Make(d.data, d.shape, dtype);
}

template bool GetAttr<bool>(const AttrMap&, const char*, bool);
template int64_t GetAttr<int64_t>(const AttrMap&, const char*, int64_t);
template double GetAttr<double>(const AttrMap&, const char*, double);
template DType GetAttr<DType>(const AttrMap&, const char*, DType);
template std::vector<int64_t> GetAttr<std::vector<int64_t>>(const AttrMap&, const char*,
                                                            std::vector<int64_t>);
template std::vector<int64_t> GetAttr<std::vector<int64_t>>(const AttrMap&, const char*);
template DType GetAttr<DType>(const AttrMap&, const char*);
template Scalar GetAttr<Scalar>(const AttrMap&, const char*);
template Scalar GetAttr<Scalar>(const AttrMap&, const char*, Scalar);
template double GetAttr<double>(const AttrMap&, const char*);

}  // namespace oar::testing
