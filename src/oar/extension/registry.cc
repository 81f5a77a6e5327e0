#include "oar/extension/registry.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <set>

namespace oar::extension {
namespace {

constexpr std::string_view kVector = "@VECTOR";
constexpr std::string_view kOptional = "@OPTIONAL";
constexpr std::string_view kGrad = "@GRAD";
constexpr std::string_view kNew = "@NEW";  // only tells a double-grad output from its namesake

const char* LevelName(size_t level) {
  return level == 0 ? "PD_BUILD_OP" : level == 1 ? "PD_BUILD_GRAD_OP" : "PD_BUILD_DOUBLE_GRAD_OP";
}

std::string Trim(std::string s) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The checks of one level against the level below it (the op it differentiates).
void CheckGradLevel(const CustomOp& op, size_t level) {
  const CustomOpLevel& below = op.levels[level - 1];
  const CustomOpLevel& grad = op.levels[level];
  const auto has = [](const std::vector<ArgSpec>& args, const std::string& key) {
    return std::any_of(args.begin(), args.end(), [&](const ArgSpec& a) { return a.key == key; });
  };
  for (const ArgSpec& in : grad.inputs) {
    const bool of_output = EndsWith(in.key, kGrad) &&
                           has(below.outputs, in.key.substr(0, in.key.size() - kGrad.size()));
    if (!has(below.inputs, in.key) && !has(below.outputs, in.key) && !of_output) {
      throw errors::InvalidArgument(
          "custom op '", op.name, "': input '", in.name, "' of its ", LevelName(level),
          " is neither an input nor an output of the op it differentiates, nor the gradient "
          "(paddle::Grad) of one of its outputs");
    }
  }
  for (const ArgSpec& out : grad.outputs) {
    const bool of_input = EndsWith(out.key, kGrad) &&
                          has(below.inputs, out.key.substr(0, out.key.size() - kGrad.size()));
    if (!of_input) {
      throw errors::InvalidArgument("custom op '", op.name, "': output '", out.name, "' of its ",
                                    LevelName(level),
                                    " is not the gradient (paddle::Grad) of an input of the op it "
                                    "differentiates");
    }
  }
  for (const AttrSpec& a : grad.attrs) {
    const auto it = std::find_if(below.attrs.begin(), below.attrs.end(),
                                 [&](const AttrSpec& b) { return b.name == a.name; });
    if (it == below.attrs.end() || it->type != a.type) {
      throw errors::InvalidArgument("custom op '", op.name, "': attribute '", a.name, ": ",
                                    a.type_name, "' of its ", LevelName(level),
                                    " is not an attribute of the op it differentiates");
    }
  }
}

// A library whose sources call a GPU kernel (Paddle's examples declare
// `relu_cuda_forward` and define it in a .cu file) cannot resolve it here: that
// is named as what oar does not do, other load failures as they are.
[[noreturn]] void ThrowLoadError(const std::string& path, std::string why) {
  std::string lower = why;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (lower.find("undefined symbol") != std::string::npos &&
      (lower.find("cuda") != std::string::npos || lower.find("gpu") != std::string::npos)) {
    throw errors::Unimplemented("cannot load the custom op library ", path, ": ", why,
                                "; it calls a GPU kernel, and oar has no GPU backend: custom "
                                "operators run C++ CPU kernels only (docs/custom_ops.md)");
  }
  throw errors::InvalidArgument("cannot load the custom op library ", path, ": ", why);
}

}  // namespace

ArgSpec ParseArg(const std::string& name) {
  ArgSpec arg{name, name};
  for (std::string_view mark : {kVector, kOptional, kNew}) {
    for (size_t at; (at = arg.key.find(mark)) != std::string::npos;) {
      arg.key.erase(at, mark.size());
      if (mark == kVector) arg.is_list = true;
      if (mark == kOptional) arg.is_optional = true;
    }
  }
  return arg;
}

AttrSpec ParseAttr(const std::string& op, const std::string& decl) {
  static const std::vector<std::pair<std::string, AttrType>> kTypes = {
      {"bool", AttrType::kBool},
      {"int", AttrType::kInt},
      {"float", AttrType::kFloat},
      {"double", AttrType::kDouble},
      {"int64_t", AttrType::kInt64},
      {"std::string", AttrType::kString},
      {"std::vector<bool>", AttrType::kBoolList},
      {"std::vector<int>", AttrType::kIntList},
      {"std::vector<float>", AttrType::kFloatList},
      {"std::vector<double>", AttrType::kDoubleList},
      {"std::vector<int64_t>", AttrType::kInt64List},
      {"std::vector<std::string>", AttrType::kStringList},
  };
  const size_t colon = decl.find(':');
  const std::string name = Trim(decl.substr(0, colon));
  std::string type = colon == std::string::npos ? "" : Trim(decl.substr(colon + 1));
  type.erase(std::remove(type.begin(), type.end(), ' '), type.end());
  for (const auto& [spelling, t] : kTypes) {
    if (type == spelling) return {name, t, spelling};
  }
  throw errors::InvalidArgument("custom op '", op, "': attribute declaration '", decl,
                                "' is not 'name: type' with a type of bool, int, float, double, "
                                "int64_t, std::string or std::vector of one of them");
}

CustomOpRegistry& CustomOpRegistry::Instance() {
  static CustomOpRegistry registry;  // never destroyed before the libraries' ops
  return registry;
}

std::shared_ptr<paddle::OpMetaInfo> CustomOpRegistry::Declare(const std::string& name,
                                                              size_t level) {
  auto info = std::make_shared<paddle::OpMetaInfo>();
  info->name = level == 0 ? name : level == 1 ? name + "_grad" : name + "_grad_grad";
  std::lock_guard lock(mutex_);
  auto& levels = pending_[name];
  if (levels.size() <= level) levels.resize(level + 1);
  if (levels[level]) {
    // Reported when the declarations are built: throwing out of a static
    // initialiser would end the process.
    info->name.clear();
  }
  levels[level] = info;
  return info;
}

std::vector<std::shared_ptr<const CustomOp>> CustomOpRegistry::Build(const Declarations& decls,
                                                                     const std::string& origin) {
  std::vector<std::shared_ptr<const CustomOp>> ops;
  for (const auto& [name, infos] : decls) {
    auto op = std::make_shared<CustomOp>();
    op->name = name;
    for (size_t level = 0; level < infos.size(); ++level) {
      const auto& info = infos[level];
      if (!info) {
        throw errors::InvalidArgument(origin, ": custom op '", name, "' has a ",
                                      LevelName(level + 1), " but no ", LevelName(level));
      }
      if (info->name.empty()) {
        throw errors::InvalidArgument(origin, ": custom op '", name, "' is declared twice by ",
                                      LevelName(level));
      }
      if (!info->kernel) {
        throw errors::InvalidArgument(origin, ": custom op '", info->name,
                                      "' has no kernel: call SetKernelFn(PD_KERNEL(fn))");
      }
      CustomOpLevel l{info, {}, {}, {}};
      std::set<std::string> seen;
      for (const auto& n : info->inputs) l.inputs.push_back(ParseArg(n));
      for (const auto& n : info->outputs) l.outputs.push_back(ParseArg(n));
      for (const auto& a : info->attrs) l.attrs.push_back(ParseAttr(info->name, a));
      for (const auto& [in, out] : info->inplace_map) {
        const auto named = [](const std::vector<std::string>& v, const std::string& n) {
          return std::find(v.begin(), v.end(), n) != v.end();
        };
        if (!named(info->inputs, in) || !named(info->outputs, out)) {
          throw errors::InvalidArgument(
              origin, ": custom op '", info->name, "': SetInplaceMap pairs '", in, "' with '", out,
              "', which are not one of its inputs and one of its outputs");
        }
      }
      size_t lists = 0;
      for (const ArgSpec& o : l.outputs) lists += o.is_list;
      if (lists > 1) {
        throw errors::Unimplemented(origin, ": custom op '", info->name,
                                    "' has more than one paddle::Vec output; oar supports one");
      }
      op->levels.push_back(std::move(l));
    }
    for (size_t level = 1; level < op->levels.size(); ++level) CheckGradLevel(*op, level);
    ops.push_back(std::move(op));
  }
  std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a->name < b->name; });
  return ops;
}

void CustomOpRegistry::Publish(const std::vector<std::shared_ptr<const CustomOp>>& ops) {
  for (const auto& op : ops) ops_[op->name] = op;
}

std::vector<std::shared_ptr<const CustomOp>> CustomOpRegistry::LoadLibrary(
    const std::string& path) {
  std::lock_guard load_lock(load_mutex_);
  {
    std::lock_guard lock(mutex_);
    loading_ = true;
    pending_.clear();
  }
  // RTLD_LOCAL: two builds of one library (a rebuilt op) keep their own symbols.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::lock_guard lock(mutex_);
  loading_ = false;
  Declarations decls = std::move(pending_);
  pending_.clear();
  if (!handle) ThrowLoadError(path, dlerror());
  if (auto it = libraries_.find(handle); it != libraries_.end()) {
    dlclose(handle);  // drops the reference this dlopen added
    return it->second;
  }
  std::vector<std::shared_ptr<const CustomOp>> ops;
  try {
    ops = Build(decls, path);
  } catch (...) {
    // The declarations hold functions of the library's code: drop them while it is
    // still mapped.
    decls.clear();
    dlclose(handle);
    throw;
  }
  Publish(ops);
  // The library stays loaded: its kernels may be referenced by recorded graphs.
  libraries_[handle] = ops;
  return ops;
}

std::shared_ptr<const CustomOp> CustomOpRegistry::Find(const std::string& name) {
  std::lock_guard lock(mutex_);
  if (!pending_.empty() && !loading_) {
    // Ops declared in a program linked with liboar (not loaded): built at first use.
    Declarations decls = std::move(pending_);
    pending_.clear();
    Publish(Build(decls, "this program"));
  }
  const auto it = ops_.find(name);
  if (it == ops_.end()) {
    throw errors::NotFound("no custom op named '", name,
                           "' is registered; load its library with "
                           "oar.utils.cpp_extension.load");
  }
  return it->second;
}

}  // namespace oar::extension
