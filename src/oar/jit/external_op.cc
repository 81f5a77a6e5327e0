#include "oar/jit/external_op.h"

#include <mutex>

namespace oar::jit {

namespace {

struct Resolvers {
  std::mutex mutex;
  std::vector<std::pair<std::string, ExternalOpResolver>> by_prefix;
};

Resolvers& GetResolvers() {
  static Resolvers r;
  return r;
}

}  // namespace

ExternalOp::ExternalOp(std::string type, std::string tensor_args,
                       std::vector<std::pair<std::string, AttrKind>> attrs)
    : type_(std::move(type)), tensor_args_(std::move(tensor_args)) {
  attr_names_.reserve(attrs.size());
  for (auto& a : attrs) attr_names_.push_back(std::move(a.first));
  schema_.type = type_.c_str();
  schema_.tensor_args = tensor_args_.c_str();
  for (size_t i = 0; i < attrs.size(); ++i) {
    schema_.attrs.emplace_back(attr_names_[i].c_str(), attrs[i].second);
  }
  schema_.call = nullptr;
}

void SetExternalOpResolver(std::string prefix, ExternalOpResolver resolver) {
  Resolvers& r = GetResolvers();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto& [p, f] : r.by_prefix) {
    if (p == prefix) {
      f = resolver;
      return;
    }
  }
  r.by_prefix.emplace_back(std::move(prefix), resolver);
}

std::shared_ptr<const ExternalOp> FindExternalOp(std::string_view type) {
  ExternalOpResolver found = nullptr;
  {
    Resolvers& r = GetResolvers();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (const auto& [p, f] : r.by_prefix) {
      if (type.starts_with(p)) found = f;
    }
  }
  return found ? found(type) : nullptr;
}

}  // namespace oar::jit
