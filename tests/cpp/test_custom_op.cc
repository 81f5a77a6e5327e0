// C++ custom operators declared in this program with PD_BUILD_OP (the registry
// builds them at first use) and run through oar::extension::RunCustomOp; the
// Python suite (tests/python/test_custom_op.py) covers loading libraries.
#include "oar/extension.h"
#include "oar/extension/run_op.h"
#include "oar/jit/program.h"
#include "oar/jit/replay.h"
#include "test_util.h"

namespace {

std::vector<paddle::Tensor> SquareForward(const paddle::Tensor& x, float scale) {
  return {x * x * static_cast<double>(scale)};
}

std::vector<paddle::Tensor> SquareBackward(const paddle::Tensor& x, const paddle::Tensor& grad_out,
                                           float scale) {
  return {grad_out * x * (2.0 * scale)};
}

}  // namespace

PD_BUILD_OP(cpp_test_square)
    .Inputs({"X"})
    .Outputs({"Out"})
    .Attrs({"scale: float"})
    .SetKernelFn(PD_KERNEL(SquareForward));

PD_BUILD_GRAD_OP(cpp_test_square)
    .Inputs({"X", paddle::Grad("Out")})
    .Outputs({paddle::Grad("X")})
    .Attrs({"scale: float"})
    .SetKernelFn(PD_KERNEL(SquareBackward));

namespace oar {
namespace {

using testing::Catch;
using testing::ExpectClose;
using testing::Make;

std::vector<paddle::CallInput> One(const Tensor& t) { return {paddle::CallInput{{t}, true}}; }

TEST(CustomOp, DeclaredInTheProgramRunsWithItsGradOp) {
  auto op = extension::CustomOpRegistry::Instance().Find("cpp_test_square");
  ASSERT_EQ(op->levels.size(), 2u);
  Tensor x = Make({1.0, -2.0}, {2}, DType::kFloat64, false);
  Tensor y = extension::RunCustomOp(op, 0, One(x), {paddle::AttrValue(0.5f)})[0][0];
  ExpectClose(y, {0.5, 2.0}, {2});
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), "cpp_test_square");
  Tensor g = Grad({sum(y)}, {x})[0];
  ExpectClose(g, {1.0, -2.0}, {2});
}

TEST(CustomOp, ErrorsNameTheOpAndTheArgument) {
  auto op = extension::CustomOpRegistry::Instance().Find("cpp_test_square");
  Tensor x = Make({1.0}, {1}, DType::kFloat64);
  Catch([&] { extension::RunCustomOp(op, 0, {}, {paddle::AttrValue(1.0f)}); },
        ErrorCode::kInvalidArgument, {"cpp_test_square(): takes 1 inputs (X) but received 0"});
  Catch([&] { extension::RunCustomOp(op, 0, One(x), {paddle::AttrValue(1)}); },
        ErrorCode::kInvalidType, {"attribute 'scale'", "float"});
  Catch(
      [&] {
        extension::RunCustomOp(op, 0, {paddle::CallInput{{}, false}}, {1.0f});
      },
      ErrorCode::kInvalidArgument, {"input 'X' is required"});
  Catch([] { extension::CustomOpRegistry::Instance().Find("no_such_custom_op"); },
        ErrorCode::kNotFound, {"no custom op named 'no_such_custom_op'"});
  Catch([] { extension::ParseAttr("my_op", "axis: long"); }, ErrorCode::kInvalidArgument,
        {"custom op 'my_op'", "'axis: long'"});
}

// Note [Programs call ops from outside the declarations]: a capture records the
// op with its attribute, the program's text names it, and a replay of the
// parsed text runs it (with its grad node) on new values.
TEST(CustomOp, CapturedProgramRunsTheOp) {
  auto op = extension::CustomOpRegistry::Instance().Find("cpp_test_square");
  Tensor x = Make({1.0, -2.0}, {2}, DType::kFloat64, false);
  jit::Tracer tracer(/*full_graph=*/true);
  tracer.AddInput(x);
  Tensor y;
  {
    jit::Tracer::ActiveGuard active(&tracer);
    y = add(extension::RunCustomOp(op, 0, One(x), {paddle::AttrValue(0.5f)})[0][0], x);
  }
  ASSERT_FALSE(tracer.broken()) << tracer.break_reason();
  const jit::Captured c = jit::FromTracer(tracer, {y});
  ASSERT_EQ(c.program.ops.size(), 2u);
  EXPECT_EQ(c.program.ops[0].type, "custom.cpp_test_square");
  const std::string text = c.program.ToJson();
  EXPECT_NE(text.find("\"scale\":0.5"), std::string::npos) << text;
  const jit::Program p = jit::Program::FromJson(text, "test");
  Tensor x2 = Make({3.0, 4.0}, {2}, DType::kFloat64, false);
  Tensor y2 = jit::Run(p, {x2}, {}, c.consts)[0];
  ExpectClose(y2, {7.5, 12.0}, {2});  // 0.5 x^2 + x
  ExpectClose(Grad({sum(y2)}, {x2})[0], {4.0, 5.0}, {2});
}

TEST(CustomOp, ArgumentNamesCarryTheirMarks) {
  const extension::ArgSpec a = extension::ParseArg(paddle::Grad(paddle::Vec("X")));
  EXPECT_EQ(a.key, "X@GRAD");
  EXPECT_TRUE(a.is_list);
  EXPECT_FALSE(a.is_optional);
  const extension::AttrSpec s = extension::ParseAttr("op", " sizes :  std::vector< int64_t > ");
  EXPECT_EQ(s.name, "sizes");
  EXPECT_EQ(s.type, extension::AttrType::kInt64List);
}

TEST(CustomOp, PaddleErrorSummariesFormatTheirMessages) {
  using phi::errors::detail::FormatMessage;
  EXPECT_EQ(FormatMessage("rank %d of %s is %5.2f%%", {"2", "x", "0.5"}), "rank 2 of x is 0.5%");
  EXPECT_EQ(FormatMessage("%lld and %zu", {"7"}), "7 and %zu");      // too few arguments
  EXPECT_EQ(FormatMessage("sizes: ", {"3", ", 4"}), "sizes: 3, 4");  // extra ones appended
  const Error e = phi::errors::OutOfRange("axis %d outside [%d, %d)", 5, -2, 2);
  EXPECT_EQ(e.code(), ErrorCode::kOutOfRange);
  EXPECT_EQ(e.message(), "axis 5 outside [-2, 2)");
  EXPECT_EQ(common::errors::Unimplemented("no").code(), ErrorCode::kUnimplemented);
}

TEST(CustomOp, PaddleEnforceThrowsTheSummaryWithAHint) {
  const int rank = 1;
  Catch([&] { PADDLE_ENFORCE_GE(rank, 2, phi::errors::InvalidArgument("rank is %d", rank)); },
        ErrorCode::kInvalidArgument,
        {"rank is 1", "[Hint: Expected rank >= 2, but received rank:1, 2:2.]", "test_custom_op"});
  Catch([] { PADDLE_ENFORCE_EQ(true, false, common::errors::Fatal("must be CPU")); },
        ErrorCode::kFatal, {"must be CPU", "received true:true, false:false"});
  const float* null_data = nullptr;
  Catch([&] { PADDLE_ENFORCE_NOT_NULL(null_data, phi::errors::NotFound("no data")); },
        ErrorCode::kNotFound, {"no data", "null_data should not be null"});
  Catch([] { PADDLE_THROW(phi::errors::Unimplemented("not %s", "here")); },
        ErrorCode::kUnimplemented, {"not here"});
  Catch([] { PADDLE_ENFORCE_LT(3, 2, "legacy form %d", 3); }, ErrorCode::kInvalidArgument,
        {"legacy form 3"});
  PADDLE_ENFORCE_LE(rank, 1, phi::errors::InvalidArgument("not thrown"));
}

TEST(CustomOp, PaddleComplexAndPlaces) {
  // paddle::complex64 reads oar's complex64 memory in place.
  Tensor z = full({2}, Scalar(std::complex<double>(1.0, -2.0)), DType::kComplex64);
  paddle::Tensor pz(z);
  paddle::complex64* p = pz.data<paddle::complex64>();
  EXPECT_EQ(p[0].real, 1.0f);
  EXPECT_EQ(p[0].imag, -2.0f);
  p[1] = p[0] * conj(p[0]);  // |1 - 2i|^2 = 5
  EXPECT_EQ(z.data<std::complex<float>>()[1], std::complex<float>(5.0f, 0.0f));
  EXPECT_FLOAT_EQ(abs(paddle::complex64(3.0f, 4.0f)), 5.0f);

  EXPECT_EQ(pz.place().GetType(), phi::AllocationType::CPU);
  EXPECT_TRUE(pz.place() == paddle::PlaceType::kCPU);
  EXPECT_TRUE(paddle::Place(phi::AllocationType::CPU) == paddle::CPUPlace());
  EXPECT_EQ(paddle::GPUPlace(1).GetDeviceId(), 1);
  Catch([] { paddle::Place(phi::AllocationType::XPU); }, ErrorCode::kUnimplemented, {"XPU"});
  Catch([] { paddle::empty({2}, paddle::DataType::FLOAT32, paddle::GPUPlace()); },
        ErrorCode::kUnimplemented, {"paddle::empty", "no GPU backend"});
}

}  // namespace
}  // namespace oar
