// The C++ driver of the op test registry (tests/op_cases/, every case of which
// is in the golden file with PyTorch's output): forward values in float64,
// float32, float16 and bfloat16; gradients of order 1, 2 and 3 against central
// finite differences in float64. Inputs may be views of a base tensor; gradients
// are taken w.r.t. the base, so they go through the view's backward too.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "oar/kernels/kernel_registry.h"
#include "op_registry.h"
#include "test_util.h"

namespace oar::testing {
namespace {

TEST(OpRegistry, GoldenFileIsCurrent) {
  // The build writes the golden file from the tree's cases; a mismatch means a golden
  // file of another checkout, or a build that did not rerun tools/make_golden.py.
  ASSERT_EQ(GoldenSource(), CurrentCasesSource())
      << "the golden file " OAR_GEN_DIR "/golden/ops.json is not made from tests/op_cases/ "
         "and tests/op_registry.py of this tree: rebuild oar_tests";
}

TEST(OpRegistry, EveryDeclaredOpHasCases) {
  std::set<std::string> covered;
  for (const auto& c : GoldenCases()) covered.insert(c.op);
  for (const auto& op : AllOps()) {
    if (const std::string by = CheckedBy(op.name); !by.empty()) {
      EXPECT_TRUE(covered.count(by)) << "op '" << op.name << "' is checked by '" << by
                                     << "', which has no case";
      continue;
    }
    EXPECT_TRUE(covered.count(op.name)) << "op '" << op.name << "' has no case in tests/op_cases/";
  }
}

std::vector<Tensor> Inputs(const OpCase& c, DType float_as = DType::kUndefined) {
  std::vector<Tensor> ts;
  for (const auto& d : c.inputs) {
    ts.push_back(MakeTensor(d, IsFloating(d.dtype) ? float_as : DType::kUndefined));
  }
  return ts;
}

// ExpectClose, with NaN matching NaN and infinities matching exactly (e.g. the
// mean over an empty axis).
void ExpectMatches(const Tensor& t, const TensorData& want, Tolerance tol) {
  ASSERT_TRUE(t.defined());
  ASSERT_EQ(t.shape(), want.shape);
  const auto v = Values(t);
  ASSERT_EQ(v.size(), want.data.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const double w = want.data[i];
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(v[i])) << "at index " << i << ": " << v[i] << ", want nan";
    } else if (std::isinf(w)) {
      EXPECT_EQ(v[i], w) << "at index " << i;
    } else {
      EXPECT_NEAR(v[i], w, tol.atol + tol.rtol * std::abs(w)) << "at index " << i;
    }
  }
}

// want as a dtype holds it: a value beyond dt's largest finite one is its infinity
// (ldexp to 2^900 or i0(-80) overflow float32 and float16 as they must).
TensorData RangeOf(TensorData want, DType dt) {
  const double big = dt == DType::kFloat16    ? 65504.0
                     : dt == DType::kBFloat16 ? 3.3895313892515355e38
                                              : 3.4028234663852886e38;
  for (double& w : want.data) {
    if (std::isfinite(w) && std::abs(w) > big) w = std::copysign(INFINITY, w);
  }
  return want;
}

class OpForward : public ::testing::TestWithParam<OpCase> {};

TEST_P(OpForward, MatchesTorch) {
  const OpCase& c = GetParam();
  const Invoker& invoke = GetInvoker(c.op);
  bool has_float_input = c.inputs.empty();
  for (const auto& d : c.inputs) has_float_input |= IsFloating(d.dtype);
  // float64 first: dtype, shape and values must match closely. A case without float
  // inputs is held to its output's dtype (integers computed in float32: exp of int32).
  const DType tol_dtype =
      has_float_input || !IsFloating(c.output.dtype) ? DType::kFloat64 : c.output.dtype;
  const Tensor out = Densified(invoke(Inputs(c), c.attrs));
  EXPECT_EQ(out.dtype(), c.output.dtype);
  ExpectMatches(out, c.output, ToleranceFor(c.op, tol_dtype));
  // Lower precisions, for kernels registered for them.
  const KernelFactory& kf = KernelFactory::Instance();
  if (!has_float_input || !kf.HasKernel(c.op)) return;
  for (const DType dt : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    if (!kf.Table(c.op).HasDType(dt)) continue;
    SCOPED_TRACE(StrCat("in ", dt));
    const Tensor o = Densified(invoke(Inputs(c, dt), c.attrs));
    ExpectMatches(o, o.dtype() == dt ? RangeOf(c.output, dt) : c.output, ToleranceFor(c.op, dt));
  }
}

// Random ops have no reference values: OpRandom checks them statistically.
std::vector<OpCase> DeterministicCases() {
  std::vector<OpCase> v;
  for (const auto& c : GoldenCases()) {
    if (!c.random) v.push_back(c);
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Golden, OpForward, ::testing::ValuesIn(DeterministicCases()),
                         [](const auto& info) { return info.param.label(); });

// ---- gradient checks ------------------------------------------------------------

// The inputs to differentiate: float64 ones (not integer, bool or an explicit
// float16) of a differentiable argument.
std::vector<size_t> DifferentiableInputs(const OpCase& c) {
  const OpInfo& info = FindOp(c.op);
  const auto& names = info.inputs;
  const auto& diff = info.differentiable;
  std::vector<size_t> out;
  const bool list = names.size() == 1 && names[0].ends_with("[]");  // Tensor[] x: all
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    if (c.inputs[i].dtype != DType::kFloat64) continue;
    if (list ? !diff.empty()
             : i < names.size() && std::find(diff.begin(), diff.end(), names[i]) != diff.end()) {
      out.push_back(i);
    }
  }
  return out;
}

struct GradCase {
  OpCase c;
  int order;
};

// F_0 = sum(op(x) * W); F_k = sum_i sum(dF_{k-1}/dx_i * V_ki). The order-k check
// compares the analytic gradient of F_{k-1} with its finite differences.
class GradChecker {
 public:
  explicit GradChecker(const OpCase& c) : c_(c) {
    std::mt19937 rng(1234 + c.index);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    diff_ = DifferentiableInputs(c);
    values_.resize(c.inputs.size());
    for (size_t i = 0; i < c.inputs.size(); ++i) values_[i] = c.inputs[i].data;
    const Tensor raw = GetInvoker(c.op)(Inputs(c), c.attrs);
    // With a sparse input or result, an exact zero is a missing entry, not a value.
    sparse_positions_ = raw.is_sparse();
    for (const auto& d : c.inputs) sparse_positions_ |= !d.layout.empty();
    const Tensor out = Densified(raw);
    weights_.resize(out.numel());
    for (auto& w : weights_) w = u(rng);
    out_shape_ = out.shape();
    for (int k = 0; k < 3; ++k) {
      std::vector<std::vector<double>> v;
      for (size_t i : diff_) {
        std::vector<double> vi(c.inputs[i].data.size());
        for (auto& x : vi) x = u(rng);
        v.push_back(vi);
      }
      directions_.push_back(v);
    }
  }

  const std::vector<size_t>& diff() const { return diff_; }

  // F_order at `values`, and (if grads) its analytic gradient w.r.t. the differentiable inputs.
  double Eval(const std::vector<std::vector<double>>& values, int order,
              std::vector<std::vector<double>>* grads) const {
    std::vector<Tensor> in;
    std::vector<Tensor> diff_in;
    for (size_t i = 0; i < c_.inputs.size(); ++i) {
      TensorData d = c_.inputs[i];
      d.data = values[i];
      Tensor base = MakeBase(d);  // the values are the base's; the op gets the view
      if (std::find(diff_.begin(), diff_.end(), i) != diff_.end()) {
        base.set_stop_gradient(false);
        diff_in.push_back(base);
      }
      in.push_back(ViewOf(base, d));
    }
    Tensor f =
        sum(multiply(Densified(GetInvoker(c_.op)(in, c_.attrs)), Make(weights_, out_shape_)));
    GradOptions opts;
    opts.create_graph = true;
    opts.allow_unused = true;
    for (int k = 0; k < order; ++k) {
      if (f.stop_gradient()) return f.item<double>();  // constant: higher terms vanish
      const auto g = Grad({f}, diff_in, {}, opts);
      Tensor next = scalar_tensor<double>(0.0);
      for (size_t j = 0; j < g.size(); ++j) {
        if (!g[j].defined()) continue;
        next = add(next, sum(multiply(g[j], Make(directions_[k][j], g[j].shape()))));
      }
      f = next;
    }
    if (grads) {
      grads->assign(diff_.size(), {});
      for (size_t j = 0; j < diff_.size(); ++j) {
        (*grads)[j].assign(values[diff_[j]].size(), 0.0);
      }
      if (!f.stop_gradient()) {
        GradOptions o;
        o.allow_unused = true;
        const auto g = Grad({f}, diff_in, {}, o);
        for (size_t j = 0; j < g.size(); ++j) {
          if (g[j].defined()) (*grads)[j] = Values(g[j]);
        }
      }
    }
    return f.item<double>();
  }

  void Check(int order) const {
    std::vector<std::vector<double>> analytic;
    Eval(values_, order - 1, &analytic);
    const double eps = 1e-6;
    const double rtol = order == 1 ? 1e-5 : 1e-4, atol = order == 1 ? 1e-6 : 1e-5;
    for (size_t j = 0; j < diff_.size(); ++j) {
      const size_t i = diff_[j];
      for (size_t e = 0; e < values_[i].size(); ++e) {
        // Around a sparse op a zero is no stored entry: moving it off zero adds one,
        // a change of positions no gradient describes (docs/sparse.md).
        if (sparse_positions_ && values_[i][e] == 0.0) continue;
        auto plus = values_, minus = values_;
        plus[i][e] += eps;
        minus[i][e] -= eps;
        const double numeric =
            (Eval(plus, order - 1, nullptr) - Eval(minus, order - 1, nullptr)) / (2 * eps);
        EXPECT_NEAR(analytic[j][e], numeric, atol + rtol * std::abs(numeric))
            << c_.label() << ": order " << order << " gradient of input " << i << " element " << e;
      }
    }
  }

 private:
  const OpCase& c_;
  std::vector<size_t> diff_;
  bool sparse_positions_ = false;
  std::vector<std::vector<double>> values_;
  std::vector<double> weights_;
  std::vector<int64_t> out_shape_;
  std::vector<std::vector<std::vector<double>>> directions_;
};

bool HasHugeValues(const OpCase& c) {
  auto huge = [](const std::vector<double>& v) {
    return std::any_of(v.begin(), v.end(),
                       [](double x) { return std::isfinite(x) && std::abs(x) > 1e15; });
  };
  bool h = huge(c.output.data);
  for (const auto& i : c.inputs) h |= huge(i.data);
  return h;
}

std::vector<GradCase> GradCases() {
  std::vector<GradCase> v;
  for (const auto& c : GoldenCases()) {
    // float64 results only: a float32 cast would drown the differences in rounding.
    // Nor values beyond 1e15: a step of 1e-6 is lost in them (x + eps == x), or their
    // sum drowns the change of the others; the Python driver checks those cases'
    // gradients against torch's autograd.
    if (c.random || FindOp(c.op).differentiable.empty() || c.output.dtype != DType::kFloat64 ||
        DifferentiableInputs(c).empty() || HasHugeValues(c)) {
      continue;
    }
    for (int order = 1; order <= GradOrders(c.op); ++order) v.push_back({c, order});
  }
  return v;
}

class OpGrad : public ::testing::TestWithParam<GradCase> {};

TEST_P(OpGrad, MatchesFiniteDifferences) {
  const GradCase& g = GetParam();
  GradChecker checker(g.c);
  ASSERT_FALSE(checker.diff().empty());
  checker.Check(g.order);
}

INSTANTIATE_TEST_SUITE_P(Float64, OpGrad, ::testing::ValuesIn(GradCases()), [](const auto& info) {
  return info.param.c.label() + "_order" + std::to_string(info.param.order);
});

TEST(OpRegistry, EveryDifferentiableOpIsGradChecked) {
  std::set<std::string> checked;
  for (const auto& g : GradCases()) checked.insert(g.c.op);
  // A random op (standard_gamma) has no oracle here; its gradient is checked in
  // tests/python/test_distribution.py.
  std::set<std::string> random;
  // Ops whose every case has a complex input or output (complex, as_complex,
  // as_real): finite differences here are real; their gradients are checked
  // against torch by the Python driver (the `complex_cases`).
  std::map<std::string, bool> all_complex;
  for (const auto& c : GoldenCases()) {
    if (c.random) random.insert(c.op);
    bool cx = IsComplex(c.output.dtype);
    for (const auto& i : c.inputs) cx |= IsComplex(i.dtype);
    auto [it, fresh] = all_complex.emplace(c.op, cx);
    if (!fresh) it->second = it->second && cx;
  }
  for (const auto& op : AllOps()) {
    if (all_complex[op.name]) continue;
    if (!op.differentiable.empty() && !random.count(op.name) && CheckedBy(op.name).empty()) {
      EXPECT_TRUE(checked.count(op.name)) << op.name << " has no gradient-checked case";
    }
  }
}

// ---- random creation ops ----------------------------------------------------------

TEST(OpRandom, UniformRangeMomentsAndSeed) {
  seed(7);
  const Tensor a = uniform({100, 100}, DType::kFloat64, -2.0, 3.0, 0);
  const auto v = Values(a);
  double mean = 0;
  for (double x : v) {
    ASSERT_GE(x, -2.0);
    ASSERT_LT(x, 3.0);
    mean += x / v.size();
  }
  EXPECT_NEAR(mean, 0.5, 0.05);
  seed(7);
  EXPECT_EQ(Values(uniform({100, 100}, DType::kFloat64, -2.0, 3.0, 0)), v);
  EXPECT_NE(Values(uniform({100, 100}, DType::kFloat64, -2.0, 3.0, 0)), v);
  EXPECT_EQ(Values(uniform({10}, DType::kFloat32, 0, 1, 42)),
            Values(uniform({10}, DType::kFloat32, 0, 1, 42)));
}

TEST(OpRandom, NormalMomentsAndSeed) {
  seed(3);
  const auto v = Values(normal({200, 100}, 1.0, 2.0, 0, DType::kFloat64));
  double mean = 0, var = 0;
  for (double x : v) mean += x / v.size();
  for (double x : v) var += (x - mean) * (x - mean) / v.size();
  EXPECT_NEAR(mean, 1.0, 0.05);
  EXPECT_NEAR(std::sqrt(var), 2.0, 0.05);
  seed(3);
  EXPECT_EQ(Values(normal({200, 100}, 1.0, 2.0, 0, DType::kFloat64)), v);
}

}  // namespace
}  // namespace oar::testing
