// What a grad node knows about one of its gradient inputs or outputs: whether
// it needs a gradient, the forward tensor's shape/dtype/place (to build zero
// gradients and to check hook results), and for outputs the edge onward.
#pragma once

#include <utility>

#include "oar/autograd/edge.h"
#include "oar/core/ddim.h"
#include "oar/core/dtype.h"
#include "oar/core/place.h"

namespace oar {

class GradSlotMeta {
 public:
  // User-provided: a value-initialized meta (SmallVector::resize) is built by its
  // member initializers alone, without zeroing all of it first.
  GradSlotMeta() noexcept {}  // NOLINT(modernize-use-equals-default)
  // All of a meta at once, as a node fills its slots: built in place, not
  // default-built and then overwritten field by field. The dims, dtype and place
  // are those of a tensor with memory; without them HasTensorMeta() is false.
  GradSlotMeta(bool stop_gradient, Edge&& edge) noexcept
      : stop_gradient_(stop_gradient), adj_edge_(std::move(edge)) {}
  GradSlotMeta(bool stop_gradient, DType dtype, const DDim& dims, const Place& place, Edge&& edge)
      : stop_gradient_(stop_gradient),
        has_meta_(true),
        dtype_(dtype),
        place_(place),
        dims_(dims),
        adj_edge_(std::move(edge)) {}
  bool IsStopGradient() const { return stop_gradient_; }
  void SetStopGradient(bool stop_gradient = true) { stop_gradient_ = stop_gradient; }

  void SetTensorMeta(DType dtype, const DDim& dims) {
    dtype_ = dtype;
    dims_ = dims;
    has_meta_ = true;
  }
  bool HasTensorMeta() const { return has_meta_; }
  const DDim& dims() const { return dims_; }
  DType dtype() const { return dtype_; }
  void SetPlace(const Place& place) { place_ = place; }
  const Place& GetPlace() const { return place_; }

  void SetEdge(const Edge& edge) { adj_edge_ = edge; }
  void SetEdge(const std::shared_ptr<GradNodeBase>& grad_node,
               const std::pair<size_t, size_t>& rank_info) {
    adj_edge_ = Edge(grad_node, rank_info);
  }
  Edge& GetMutableEdge() { return adj_edge_; }
  const Edge& GetEdge() const { return adj_edge_; }

 private:
  bool stop_gradient_ = false;
  bool has_meta_ = false;
  DType dtype_ = DType::kUndefined;
  Place place_;
  DDim dims_;
  Edge adj_edge_;
};

}  // namespace oar
