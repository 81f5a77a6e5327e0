// An edge of the backward graph: the grad node a gradient flows into, and
// which of its input slots (slot id, rank) receives it.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>

namespace oar {

class GradNodeBase;

class Edge {
 public:
  Edge() = default;
  Edge(const std::shared_ptr<GradNodeBase>& grad_node, size_t in_slot_id, size_t in_rank)
      : in_slot_id_(in_slot_id), in_rank_(in_rank), grad_node_(grad_node) {}
  Edge(const std::shared_ptr<GradNodeBase>& grad_node, const std::pair<size_t, size_t>& rank_info)
      : Edge(grad_node, rank_info.first, rank_info.second) {}

  GradNodeBase* GetGradNode() const { return grad_node_.get(); }
  const std::shared_ptr<GradNodeBase>& GetMutableGradNode() const { return grad_node_; }
  std::shared_ptr<GradNodeBase>& MutableGradNodeRef() { return grad_node_; }
  void SetGradNode(const std::shared_ptr<GradNodeBase>& node) { grad_node_ = node; }
  std::pair<size_t, size_t> GetEdgeRankInfo() const { return {in_slot_id_, in_rank_}; }
  void SetEdgeRankInfo(size_t slot_id, size_t in_rank) {
    in_slot_id_ = slot_id;
    in_rank_ = in_rank;
  }
  bool IsInitialized() const { return grad_node_ != nullptr; }
  void Clear() {
    grad_node_.reset();
    in_slot_id_ = 0;
    in_rank_ = 0;
  }

 private:
  size_t in_slot_id_ = 0;
  size_t in_rank_ = 0;
  std::shared_ptr<GradNodeBase> grad_node_;
};

}  // namespace oar
