// Captured programs from C++: a capture of eager calls (the tracer), its replay
// with gradients, the symbolic attributes and shapes of an open dimension, the
// shape check, the JSON round trip, every kind of broken program text, and a
// saved model loaded by oar::jit::Load and served from several threads.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "oar/eager/trace.h"
#include "oar/jit/replay.h"
#include "oar/oar.h"
#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;
using testing::ExpectClose;
using testing::Make;

// y = relu(x * w + 1), captured from its eager run.
jit::Captured CaptureSmall(const Tensor& x, const Tensor& w) {
  jit::Tracer tracer(/*full_graph=*/false);
  tracer.AddInput(x);
  tracer.AddParam("w", w);
  Tensor y;
  {
    jit::Tracer::ActiveGuard active(&tracer);
    y = relu(scale(multiply(x, w), 1.0, 1.0, true));
  }
  EXPECT_FALSE(tracer.broken());
  return jit::FromTracer(tracer, {y});
}

TEST(Jit, CaptureRecordsTheOutermostCallsAndReplays) {
  Tensor x = Make({-2, 1, 3}, {3});
  Tensor w = Make({1, 2, -1}, {3});
  jit::Captured c = CaptureSmall(x, w);
  ASSERT_EQ(c.program.ops.size(), 3u);
  EXPECT_EQ(c.program.ops[0].type, "multiply");
  EXPECT_EQ(c.program.ops[2].type, "relu");
  EXPECT_EQ(c.program.params[0].name, "w");
  Tensor x2 = Make({1, 1, 1}, {3});
  std::vector<Tensor> out = jit::Run(c.program, {x2}, {w}, c.consts);
  ExpectClose(out[0], {2, 3, 0}, {3});
}

TEST(Jit, ReplayRecordsGradients) {
  Tensor x = Make({-2, 1, 3}, {3});
  Tensor w = Make({1, 2, -1}, {3});
  w.set_stop_gradient(false);
  jit::Captured c = CaptureSmall(x, w);
  std::vector<Tensor> out = jit::Run(c.program, {Make({1, 2, 3}, {3})}, {w}, c.consts);
  sum(out[0]).backward();
  ExpectClose(w.grad(), {1, 2, 0}, {3});  // relu passes where x * w + 1 > 0
}

TEST(Jit, JsonRoundTripAndSymbolicAttributes) {
  jit::Captured c = CaptureSmall(Make({1, 2}, {2}), Make({3, 4}, {2}));
  jit::Program p = jit::Program::FromJson(c.program.ToJson(), "test");
  EXPECT_EQ(p.ToJson(), c.program.ToJson());

  // reshape(x [n, 2], [2 * n]), captured at n = 3
  const std::string text = R"({"format": "oar.program", "version": 1,
    "inputs": [{"name": "x", "dtype": "float64", "shape": [-1, 2]}],
    "params": [], "consts": [],
    "ops": [{"type": "reshape", "inputs": [[0]], "attrs": {"shape": [6]}, "output": 1,
             "shape": [6]}],
    "outputs": [1],
    "symbols": [{"name": "s0", "input": 0, "dim": 0}],
    "symbolic_attrs": [{"op": 0, "attr": "shape", "index": 0, "symbol": 0, "scale": 2,
                        "offset": 0}],
    "symbolic_shapes": [{"op": 0, "dim": 0, "symbol": 0, "scale": 2, "offset": 0}]})";
  jit::Program r = jit::Program::FromJson(text, "test");
  std::vector<Tensor> out = jit::Run(r, {Make({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2})}, {}, {});
  ExpectClose(out[0], {1, 2, 3, 4, 5, 6, 7, 8}, {8});
}

TEST(Jit, AShapeThatDiffersFromTheCaptureStops) {
  const std::string text = R"({"format": "oar.program", "version": 1,
    "inputs": [{"name": "x", "dtype": "float64", "shape": [4]}],
    "params": [], "consts": [],
    "ops": [{"type": "nonzero", "inputs": [[0]], "attrs": {}, "output": 1, "shape": [2, 1],
             "layer": "Net.pick"}],
    "outputs": [1]})";
  jit::Program p = jit::Program::FromJson(text, "test");
  EXPECT_EQ(jit::Run(p, {Make({1, 0, 2, 0}, {4})}, {}, {})[0].shape(),
            (std::vector<int64_t>{2, 1}));
  Catch(
      [&] {
        jit::Run(p, {Make({1, 1, 2, 0}, {4})}, {}, {});
      },
      ErrorCode::kPreconditionNotMet, {"op 0 (nonzero in Net.pick)", "[3, 1]", "[2, 1]"});
  Catch(
      [&] {
        jit::Run(p, {Make({1, 1}, {2})}, {}, {});
      },
      ErrorCode::kInvalidArgument, {"input 0 ('x') must have shape [4]"});
}

TEST(Jit, BrokenProgramTextIsATypedError) {
  const std::string ok = CaptureSmall(Make({1}, {1}), Make({1}, {1})).program.ToJson();
  struct Case {
    std::string from, to, part;
    ErrorCode code;
  };
  const std::vector<Case> cases = {
      {"\"oar.program\"", "\"other\"", "not an oar program", ErrorCode::kInvalidArgument},
      {"\"version\":1", "\"version\":9", "newer oar", ErrorCode::kUnimplemented},
      {"\"multiply\"", "\"no_such_op\"", "an op this build declares", ErrorCode::kInvalidArgument},
      {"\"inputs\":[[0],[1]]", "\"inputs\":[[0],[5]]", "values defined before the op",
       ErrorCode::kInvalidArgument},
      {"\"inputs\":[[0],[1]]", "\"inputs\":[[0]]", "2 tensor arguments for multiply",
       ErrorCode::kInvalidArgument},
      {"\"scale\":1.0", "\"scale\":\"x\"", "ops[1].attrs.scale", ErrorCode::kInvalidArgument},
      {"\"dtype\":\"float64\"", "\"dtype\":\"float99\"", "a dtype name",
       ErrorCode::kInvalidArgument},
  };
  for (const Case& c : cases) {
    std::string text = ok;
    const size_t at = text.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from << " in " << text;
    text.replace(at, c.from.size(), c.to);
    Catch([&] { jit::Program::FromJson(text, "t"); }, c.code, {c.part});
  }
  Catch([&] { jit::Program::FromJson(ok.substr(0, ok.size() / 2), "t"); },
        ErrorCode::kInvalidArgument, {"not valid JSON"});
}

TEST(Jit, ElementwiseChainsRunFusedWithTheSameBits) {
  const int64_t n = 5000;  // several blocks and a tail
  std::vector<double> xs(n), ys(n);
  for (int64_t i = 0; i < n; ++i) {
    xs[i] = std::sin(0.37 * static_cast<double>(i)) * 4;
    ys[i] = std::cos(0.11 * static_cast<double>(i)) + 1.5;
  }
  const Tensor x = Make(xs, {n}, DType::kFloat32), y = Make(ys, {n}, DType::kFloat32);
  jit::Tracer tracer(false);
  tracer.AddInput(x);
  tracer.AddInput(y);
  Tensor out;
  {
    jit::Tracer::ActiveGuard active(&tracer);
    // one statement per op: C++ leaves the order of arguments' evaluation open
    Tensor h = scale(x, 2.0, 0.0, true);  // bias 0: s * a, keeping -0.0
    h = scale(h, 0.5, -1.0, false);
    h = exp(h);
    h = tanh(h);
    h = sigmoid(h);
    h = multiply(h, y);
    h = divide(h, y);
    const Tensor r = relu(h);
    const Tensor twice = add(y, y);
    out = subtract(r, twice);
  }
  jit::Captured c = jit::FromTracer(tracer, {out});
  // scale ... relu, then add(y, y) and the subtract it feeds (relu's output comes in
  // from outside that second chain)
  ASSERT_EQ(c.program.chains.size(), 2u);
  EXPECT_EQ(c.program.chains[0].steps.size(), 8u);
  EXPECT_EQ(c.program.chains[1].steps.size(), 2u);
  NoGradGuard no_grad;
  const std::vector<double> fused = testing::Values(jit::Run(c.program, {x, y}, {}, {})[0]);
  SetFlag("jit_fuse_elementwise", 0);
  const std::vector<double> plain = testing::Values(jit::Run(c.program, {x, y}, {}, {})[0]);
  SetFlag("jit_fuse_elementwise", 1);
  EXPECT_EQ(fused, plain);
  EXPECT_EQ(fused, testing::Values(out));
}

TEST(Jit, SavedModelServesThreadsAlike) {
  Tensor w = Make({1, 2, -1}, {3});
  jit::Captured c = CaptureSmall(Make({1, 1, 1}, {3}), w);
  std::string prog = c.program.ToJson();
  const std::string model =
      R"({"format": "oar.model", "version": 1, "programs": {"eval": )" + prog + "}}";
  const std::string path = testing::TempPath("jit_model");
  jit::Save(path, model, {{"w", w}});
  const jit::Module m = jit::Load(path);
  const Tensor x = Make({1, 2, 3}, {3});
  const std::vector<Tensor> serial = m.Forward({x});
  ExpectClose(serial[0], {2, 5, 0}, {3});
  std::vector<std::thread> threads;
  std::vector<std::vector<double>> got(8);
  for (size_t t = 0; t < got.size(); ++t) {
    threads.emplace_back([&, t] { got[t] = testing::Values(m.Forward({x})[0]); });
  }
  for (auto& th : threads) th.join();
  for (const auto& g : got) EXPECT_EQ(g, testing::Values(serial[0]));
  Catch([&] { jit::Load(path + "_missing"); }, ErrorCode::kNotFound, {"no model file"});
  Catch([&] { jit::Save(path, R"({"format": "oar.model", "version": 1, "programs": {}})", {}); },
        ErrorCode::kInvalidArgument, {"\"eval\" program"});
}

}  // namespace
}  // namespace oar
