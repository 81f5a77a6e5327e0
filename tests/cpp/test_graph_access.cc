// Looking at the backward graph from C++: node names, edges, saved tensors
// before and after release, sequence numbers, layer paths and forward stacks
// (Note [Forward stacks]).
#include "oar/autograd/accumulation_node.h"
#include "oar/autograd/forward_stack.h"
#include "oar/core/flags.h"
#include "oar/core/layer_scope.h"
#include "test_util.h"

namespace oar {
namespace {

using testing::Catch;
using testing::Make;

Tensor Leaf(std::vector<double> v, std::vector<int64_t> shape) {
  return Make(std::move(v), std::move(shape), DType::kFloat32, false);
}

const SavedValueInfo* Find(const std::vector<SavedValueInfo>& values, const std::string& name) {
  for (const auto& v : values) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

TEST(GraphAccess, EdgesAttributesAndSavedTensors) {
  Tensor x = Leaf({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor w = Leaf({1, 1, 1, 1, 1, 1}, {2, 3});
  Tensor y = tanh(matmul(x, w, false, true));
  auto tanh_node = y.grad_fn();
  ASSERT_TRUE(tanh_node);
  EXPECT_EQ(tanh_node->name(), "TanhGradNode");
  const Edge& e = tanh_node->OutputMeta()[0][0].GetEdge();
  GradNodeBase* mm = e.GetGradNode();
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->name(), "MatmulGradNode");
  EXPECT_LT(mm->sequence_nr(), tanh_node->sequence_nr());
  const auto values = mm->SavedValues();
  ASSERT_TRUE(Find(values, "transpose_y"));
  EXPECT_EQ(Find(values, "transpose_y")->value, "true");
  EXPECT_FALSE(Find(values, "transpose_y")->is_tensor);
  const SavedValueInfo* sx = Find(values, "x");
  ASSERT_TRUE(sx && sx->is_tensor);
  EXPECT_EQ(sx->dims, DDim({2, 3}));
  EXPECT_GE(sx->bytes, 24);
  // Both leaves end in their accumulation nodes, which know their leaf.
  auto* acc = static_cast<GradNodeAccumulation*>(mm->OutputMeta()[0][0].GetEdge().GetGradNode());
  ASSERT_TRUE(acc->IsAccumulationNode());
  EXPECT_EQ(acc->Variable().impl(), x.impl());

  sum(y).backward();  // releases what the nodes saved
  const auto after = tanh_node->SavedValues();
  ASSERT_EQ(after.size(), 1u);
  EXPECT_TRUE(after[0].released);
  EXPECT_EQ(after[0].bytes, 0);
  EXPECT_EQ(after[0].dims, DDim({2, 2}));
}

TEST(GraphAccess, LayerPathIsRecordedInsideAScope) {
  Tensor x = Leaf({1, 2}, {2});
  Tensor outside = scale(x, 2.0);
  EXPECT_EQ(outside.grad_fn()->layer_path(), nullptr);
  {
    LayerScopeGuard net("Net");
    LayerScopeGuard fc("Net.fc");
    Tensor inside = scale(x, 2.0);
    ASSERT_NE(inside.grad_fn()->layer_path(), nullptr);
    EXPECT_EQ(*inside.grad_fn()->layer_path(), "Net.fc");
  }
  EXPECT_EQ(CurrentLayerPath(), nullptr);
}

std::shared_ptr<const ForwardStack> TestRecorder() {
  auto s = std::make_shared<ForwardStack>();
  s->frames.push_back({"train.cc", 42, "Step"});
  return s;
}

TEST(GraphAccess, ForwardStackNamesTheCallSiteInBackwardErrors) {
  Tensor x = Leaf({1, 2}, {2});
  EXPECT_EQ(scale(x, 2.0).grad_fn()->forward_stack(), nullptr);  // flag off
  SetForwardStackRecorder(&TestRecorder);
  SetFlag("FLAGS_record_forward_stack", 1);
  Tensor z = scale(x, 2.0);
  Tensor s = sin(z);  // saves z
  SetFlag("FLAGS_record_forward_stack", 0);
  SetForwardStackRecorder(nullptr);
  ASSERT_NE(s.grad_fn()->forward_stack(), nullptr);
  EXPECT_EQ(s.grad_fn()->forward_stack()->CallSite(), "train.cc:42 in Step");
  scale_(z, 3.0);  // bumps z's version: the backward of sin must refuse
  Catch([&] { sum(s).backward(); }, ErrorCode::kPreconditionNotMet,
        {"modified by an inplace operation", "(forward op at train.cc:42 in Step)"});
}

}  // namespace
}  // namespace oar
