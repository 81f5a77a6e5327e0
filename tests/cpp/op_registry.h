// The op test registry in C++: the generated op list and generic invokers,
// and the cases of tests/op_cases/ (as expanded by tests/op_registry.py)
// with PyTorch's outputs (<build>/generated/golden/ops.json, which
// tools/make_golden.py writes as the tests build).
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
  std::vector<std::string> inputs;  // tensor inputs; "x[]" is a list
  std::vector<std::string> differentiable;
};
const std::vector<OpInfo>& AllOps();
const OpInfo& FindOp(const std::string& name);
const Invoker& GetInvoker(const std::string& name);

// A tensor of the golden file. An input may be a view (as in the Python driver):
// `data` then holds its contiguous base, of `base_shape`, and `view` says how the
// op's input of `shape` is taken from it: "T" (last two dims transposed), "step"
// (x[::2] along axis 0), "flip" (axis 0 reversed) or "bcast" (axis 0 expanded).
struct TensorData {
  std::vector<int64_t> shape;
  DType dtype = DType::kFloat64;
  std::vector<double> data;  // non-finite values included
  std::string view;          // empty: contiguous, data has `shape`
  std::vector<int64_t> base_shape;
  // "coo" or "csr": the op receives the (view) tensor converted to that sparse
  // format, COO with `sparse_dim` sparse dimensions (the sparse ops' cases).
  std::string layout;
  int64_t sparse_dim = 0;
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
// The texts of tests/op_cases/ and tests/op_registry.py the golden file was
// made from, and now.
std::string GoldenSource();
std::string CurrentCasesSource();

// The highest order of gradient `op` gives (tests/op_cases/_shared.yaml: grad_orders).
int GradOrders(const std::string& op);
// The op whose gradient cases run `op` instead of cases of its own (checked_by), or "".
std::string CheckedBy(const std::string& op);

struct Tolerance {
  double rtol, atol;
};
// tests/op_cases/'s tolerance of `op` in `dtype` (_tol, with the op's tol overrides).
Tolerance ToleranceFor(const std::string& op, DType dtype);

// The contiguous tensor of d's data (its base if d is a view), cast to `as`.
Tensor MakeBase(const TensorData& d, DType as = DType::kUndefined);
// The view d describes, of its base (MakeBase(d)), in d's sparse layout if it has one.
Tensor ViewOf(const Tensor& base, const TensorData& d);
// t itself if dense, its dense tensor (differentiably) if sparse.
Tensor Densified(const Tensor& t);
// ViewOf(MakeBase(d, as), d).
Tensor MakeTensor(const TensorData& d, DType as = DType::kUndefined);

}  // namespace oar::testing
