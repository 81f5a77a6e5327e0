#include "op_registry.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
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
      nlohmann::json::parse(ReadFile(OAR_GEN_DIR "/golden/ops.json"));
  return j;
}

// A number, or one of the strings make_golden.py writes for non-finite values.
double ParseValue(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  const std::string s = v.get<std::string>();
  if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  throw std::runtime_error("unexpected value " + v.dump());
}

TensorData ParseTensor(const nlohmann::json& j) {
  TensorData d;
  d.shape = j.at("shape").get<std::vector<int64_t>>();
  d.dtype = DTypeFromName(j.at("dtype").get<std::string>());
  for (const auto& v : j.at("data")) d.data.push_back(ParseValue(v));
  if (j.contains("layout")) {
    d.layout = j.at("layout").get<std::string>();
    d.sparse_dim = j.at("sparse_dim").get<int64_t>();
  }
  if (j.contains("view")) {
    d.view = j.at("view").get<std::string>();
    d.base_shape = j.at("base_shape").get<std::vector<int64_t>>();
  }
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
#define OAR_OP(name, inputs, diff) v.push_back({#name, Split(inputs), Split(diff)});
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

std::string GoldenSource() {
  return Golden().at("source").get<std::string>() + Golden().at("expander").get<std::string>();
}
std::string CurrentCasesSource() {
  // The files in name order, as tests/op_registry.py's cases_source() joins them.
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(OAR_SOURCE_DIR "/tests/op_cases")) {
    if (e.path().extension() == ".yaml") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  std::string text;
  for (const auto& f : files) text += ReadFile(f);
  return text + ReadFile(OAR_SOURCE_DIR "/tests/op_registry.py");
}

int GradOrders(const std::string& op) {
  const auto& orders = Golden().at("grad_orders");
  return orders.contains(op) ? orders.at(op).get<int>() : 3;
}

std::string CheckedBy(const std::string& op) {
  const auto& by = Golden().at("checked_by");
  return by.contains(op) ? by.at(op).get<std::string>() : std::string();
}

Tolerance ToleranceFor(const std::string& op, DType dtype) {
  const std::string name(DTypeName(dtype));
  const auto& defaults = Golden().at("tol");
  const auto& d = defaults.contains(name) ? defaults.at(name) : defaults.at("float64");
  Tolerance t{d.at("rtol").get<double>(), d.at("atol").get<double>()};
  const auto& ops = Golden().at("op_tol");
  if (ops.contains(op) && ops.at(op).contains(name)) {
    const auto& o = ops.at(op).at(name);
    t.rtol = o.value("rtol", t.rtol);
    t.atol = o.value("atol", t.atol);
  }
  return t;
}

Tensor MakeBase(const TensorData& d, DType as) {
  const DType dtype = as == DType::kUndefined ? d.dtype : as;
  std::vector<int64_t> shape = d.view.empty() ? d.shape : d.base_shape;
  if (IsComplex(dtype)) {
    // The golden file holds (real, imag) pairs: the as_real layout.
    shape.push_back(2);
    return as_complex(Make(d.data, shape, ToReal(dtype)));
  }
  return Make(d.data, shape, dtype);
}

namespace {
Tensor DenseViewOf(const Tensor& base, const TensorData& d);
}  // namespace

Tensor ViewOf(const Tensor& base, const TensorData& d) {
  const Tensor v = DenseViewOf(base, d);
  if (d.layout == "coo") return sparse_to_coo(v, d.sparse_dim);
  if (d.layout == "csr") return sparse_to_csr(v);
  if (!d.layout.empty()) throw std::runtime_error("unknown layout " + d.layout);
  return v;
}

Tensor Densified(const Tensor& t) { return t.is_sparse() ? sparse_to_dense(t) : t; }

namespace {
Tensor DenseViewOf(const Tensor& base, const TensorData& d) {
  const int64_t nd = static_cast<int64_t>(d.shape.size());
  if (d.view.empty()) return base;
  if (d.view == "T") {
    std::vector<int64_t> perm;
    for (int64_t i = 0; i < nd - 2; ++i) perm.push_back(i);
    perm.push_back(nd - 1);
    perm.push_back(nd - 2);
    return transpose(base, perm);
  }
  if (d.view == "step") return strided_slice(base, {0}, {0}, {d.base_shape[0]}, {2});
  if (d.view == "flip") {
    const int64_t n = d.base_shape[0];
    return strided_slice(base, {0}, {n - 1}, {-n - 1}, {-1});
  }
  if (d.view == "bcast") return expand(base, d.shape);
  throw std::runtime_error("unknown view " + d.view);
}
}  // namespace

Tensor MakeTensor(const TensorData& d, DType as) { return ViewOf(MakeBase(d, as), d); }

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
