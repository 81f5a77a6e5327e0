// The gathering and scattering ops of gather.yaml / scatter.yaml at the C++ API:
// their error paths (typed, naming the op and the argument) and the guarantee that
// an in-place scatter with a bad position leaves its target untouched. Values and
// gradients are checked against PyTorch by the op registry (tests/op_cases/).
#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;
using testing::ExpectClose;
using testing::Make;
using testing::Values;

Tensor X() { return Make({0, 1, 2, 3, 4, 5}, {2, 3}); }
Tensor Idx(const std::vector<double>& v, std::vector<int64_t> shape) {
  return Make(v, shape, DType::kInt64);
}

TEST(Scatter, OutOfRangePositionsAreIndexErrorsNamingOpAndArgument) {
  Catch([] { gather(X(), Idx({2}, {1}), 0); }, ErrorCode::kOutOfRange,
        {"gather(): argument 'index': index 2 is out of bounds for axis 0 with size 2"});
  Catch(
      [] {
        gather_nd(X(), Idx({0, -4}, {1, 2}));
      },
      ErrorCode::kOutOfRange,
      {"gather_nd(): argument 'index': index -4 is out of bounds for axis 1 with size 3"});
  Catch(
      [] {
        take_along_axis(X(), Idx({3}, {1, 1}), 1, true);
      },
      ErrorCode::kOutOfRange,
      {"take_along_axis(): argument 'indices': index 3 is out of bounds for axis 1"});
  Catch(
      [] {
        scatter(X(), Idx({5}, {1}), Make({1, 1, 1}, {1, 3}), true);
      },
      ErrorCode::kOutOfRange, {"scatter(): argument 'index': index 5 is out of bounds"});
  Catch(
      [] {
        scatter_nd_add(X(), Idx({1, 3}, {1, 2}), Make({1}, {1}));
      },
      ErrorCode::kOutOfRange, {"scatter_nd_add(): argument 'index': index 3"});
  Catch(
      [] {
        index_add(X(), Idx({-3}, {1}), 0, Make({1, 1, 1}, {1, 3}), 1.0);
      },
      ErrorCode::kOutOfRange, {"index_add(): argument 'index': index -3"});
  Catch(
      [] {
        index_put_nd(X(), Idx({2, 0}, {1, 2}), Make({1}, {}), false);
      },
      ErrorCode::kOutOfRange, {"index_put_nd(): argument 'index': index 2"});
  Catch(
      [] {
        scatter_along_axis(X(), Idx({0, 9}, {2, 1}), Make({1}, {}), 1, 0, true, true);
      },
      ErrorCode::kOutOfRange, {"scatter_along_axis(): argument 'indices': index 9"});
}

TEST(Scatter, BadDtypesShapesAndModesAreTypedErrors) {
  Catch([] { gather(X(), Make({0}, {1}), 0); }, ErrorCode::kInvalidType,
        {"gather(): argument 'index' must be an int32 or int64 tensor"});
  Catch(
      [] {
        scatter(X(), Idx({0, 1}, {2}), Make({1, 1, 1}, {1, 3}), true);
      },
      ErrorCode::kInvalidArgument, {"scatter(): argument 'updates' must have shape [2, 3]"});
  Catch(
      [] {
        index_add(X(), Idx({0}, {1}), 1, Make({1, 1, 1}, {1, 3}), 1.0);
      },
      ErrorCode::kInvalidArgument, {"index_add(): argument 'value' must have shape [2, 1]"});
  Catch(
      [] {
        scatter_along_axis(X(), Idx({0}, {1, 1}), Make({1}, {}), 1, 2, true, true);
      },
      ErrorCode::kInvalidArgument, {"scatter_along_axis(): argument 'reduce' (2)"});
  Catch(
      [] {
        index_put_nd(X(), Idx({0}, {1, 1}), Make({1, 2}, {2}), false);
      },
      ErrorCode::kInvalidArgument,
      {"index_put_nd(): argument 'value' of shape [2] does not broadcast to the indexed "
       "shape [1, 3]"});
  Catch(
      [] {
        gather_nd(X(), Idx({0, 0, 0}, {1, 3}));
      },
      ErrorCode::kInvalidArgument, {"gather_nd(): argument 'index' has 3 coordinates per entry"});
}

TEST(Scatter, InPlaceVariantsCheckEveryPositionBeforeWriting) {
  Tensor x = X();
  Catch(
      [&] {
        scatter_(x, Idx({0, 7}, {2}), Make({9, 9, 9, 9, 9, 9}, {2, 3}), true);
      },
      ErrorCode::kOutOfRange);
  Catch(
      [&] {
        index_add_(x, Idx({1, -9}, {2}), 0, Make({9, 9, 9, 9, 9, 9}, {2, 3}), 1.0);
      },
      ErrorCode::kOutOfRange);
  Catch(
      [&] {
        index_put_nd_(x, Idx({0, 0, 5, 0}, {2, 2}), Make({9}, {}), false);
      },
      ErrorCode::kOutOfRange);
  ExpectClose(x, {0, 1, 2, 3, 4, 5}, {2, 3});
}

TEST(Scatter, RepeatedPositionsAccumulateInOrderOrTheLastWins) {
  const Tensor rows = Idx({1, 1, 0}, {3});
  const Tensor upd = Make({1, 1, 1, 2, 2, 2, 4, 4, 4}, {3, 3});
  ExpectClose(scatter(X(), rows, upd, true), {4, 4, 4, 2, 2, 2}, {2, 3});
  ExpectClose(scatter(X(), rows, upd, false), {4, 4, 4, 3, 3, 3}, {2, 3});
  ExpectClose(index_put_nd(X(), Idx({1, 1, 1, 1}, {2, 2}), Make({7, 8}, {2}), true),
              {0, 1, 2, 3, 19, 5}, {2, 3});
}

}  // namespace
}  // namespace oar
