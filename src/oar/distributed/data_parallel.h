// Data-parallel training from C++ (Paddle's paddle.DataParallel): wraps a
// module, makes every rank start from rank 0's parameters, and averages the
// gradients across the group during backward through a Reducer.
//
//   auto group = oar::distributed::ProcessGroup::Init(Options::FromEnvironment());
//   oar::distributed::DataParallel model(net, group);
//   auto loss = loss_fn(model(x_shard), y_shard);
//   loss.backward();  // .grad holds the average over the ranks here
#pragma once

#include <memory>

#include "oar/distributed/reducer.h"
#include "oar/train/module.h"

namespace oar::distributed {

class DataParallel {
 public:
  DataParallel(std::shared_ptr<nn::Module> module, std::shared_ptr<ProcessGroup> group,
               ReducerOptions options = {});
  Tensor operator()(const Tensor& x) { return module_->Forward(x); }
  nn::Module& module() { return *module_; }
  Reducer& reducer() { return *reducer_; }

  // While alive, backward passes accumulate locally (gradient accumulation).
  class NoSync {
   public:
    explicit NoSync(Reducer& r) : r_(r), prev_(r.require_sync()) { r_.set_require_sync(false); }
    ~NoSync() { r_.set_require_sync(prev_); }
    NoSync(const NoSync&) = delete;
    NoSync& operator=(const NoSync&) = delete;

   private:
    Reducer& r_;
    bool prev_;
  };
  NoSync no_sync() { return NoSync(*reducer_); }

 private:
  std::shared_ptr<nn::Module> module_;
  std::shared_ptr<ProcessGroup> group_;
  std::unique_ptr<Reducer> reducer_;
};

}  // namespace oar::distributed
