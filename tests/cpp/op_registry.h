// The op test registry in C++: the generated op list and generic invokers,
// and the cases of tests/op_cases.yaml with PyTorch's outputs
// (tests/cpp/golden/ops.json).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "oar/oar.h"

namespace oar::testing {

using AttrValue = std::variant<bool, int64_t, double, std::vector<int64_t>, DType>;
using AttrMap = std::map<std::string, AttrValue>;

// The attribute `name`, converted to T (ints widen to doubles); `def` if absent.
template <typename T>
T GetAttr(const AttrMap& a, const char* name, T def);
template <typename T>
T GetAttr(const AttrMap& a, const char* name);

using Invoker = std::function<Tensor(const std::vector<Tensor>&, const AttrMap&)>;

struct OpInfo {
  std::string name;
  bool has_inplace = false;
  std::vector<std::string> inputs;  // tensor inputs; "x[]" is a list
  std::vector<std::string> differentiable;
};
const std::vector<OpInfo>& AllOps();
const OpInfo& FindOp(const std::string& name);
const Invoker& GetInvoker(const std::string& name);

struct TensorData {
  std::vector<int64_t> shape;
  DType dtype = DType::kFloat64;
  std::vector<double> data;
};

struct OpCase {
  std::string op;
  int index = 0;
  std::vector<TensorData> inputs;
  AttrMap attrs;
  bool random = false;
  TensorData output;  // PyTorch's result (not for random ops)
  std::string label() const { return op + "_" + std::to_string(index); }
};
const std::vector<OpCase>& GoldenCases();
// The text of tests/op_cases.yaml the golden file was made from, and now.
std::string GoldenSource();
std::string CurrentCasesSource();

Tensor MakeTensor(const TensorData& d, DType as = DType::kUndefined);

}  // namespace oar::testing
