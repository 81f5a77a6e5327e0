#include "oar/distributed/data_parallel.h"

namespace oar::distributed {

DataParallel::DataParallel(std::shared_ptr<nn::Module> module, std::shared_ptr<ProcessGroup> group,
                           ReducerOptions options)
    : module_(std::move(module)), group_(std::move(group)) {
  // Buffers too (running statistics), so every replica starts equal.
  std::vector<Tensor> state;
  for (auto& [name, t] : module_->StateDict()) state.push_back(t);
  BroadcastTensors(state, *group_, group_->ranks().front());
  reducer_ = std::make_unique<Reducer>(module_->Parameters(), group_, options);
}

}  // namespace oar::distributed
