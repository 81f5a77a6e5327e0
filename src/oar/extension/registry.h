// The registry of custom operators (docs/custom_ops.md): what PD_BUILD_OP and
// its grad-op declarations register when a user's shared library is loaded.
//
// Note [Custom ops are published per library]
// A library's static initialisers register its ops while dlopen runs. They are
// collected apart and published together once dlopen returned and every
// declaration checked out, so no caller ever finds half a library's ops, and a
// library that fails its checks leaves the registry as it was. An op whose
// name is already registered is replaced (a rebuilt library loaded again in the
// same process); graphs recorded with the old one keep it alive. One mutex
// guards the table; loads are serialised by a second one, since the
// registrations of one dlopen must not mix with another's.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "oar/extension/op_meta_info.h"

namespace oar::extension {

enum class AttrType {
  kBool,
  kInt,
  kFloat,
  kDouble,
  kInt64,
  kString,
  kBoolList,
  kIntList,
  kFloatList,
  kDoubleList,
  kInt64List,
  kStringList,
};

struct AttrSpec {
  std::string name;
  AttrType type;
  std::string type_name;  // as declared ("std::vector<int>")
};

// One declared tensor argument: its full name ("X@VECTOR"), the name it is
// matched by across levels without the list/optional marks ("X"), and those marks.
struct ArgSpec {
  std::string name;
  std::string key;
  bool is_list = false;
  bool is_optional = false;
};

struct CustomOpLevel {
  std::shared_ptr<paddle::OpMetaInfo> info;
  std::vector<ArgSpec> inputs, outputs;
  std::vector<AttrSpec> attrs;
};

// An op and the grad ops declared for it: levels[0] is the forward op,
// levels[1] its grad op, levels[2] the double-grad op (absent levels stop there).
struct CustomOp {
  std::string name;
  std::vector<CustomOpLevel> levels;
};

class CustomOpRegistry {
 public:
  static CustomOpRegistry& Instance();

  // OpMetaInfoBuilder: a new declaration of op `name` at `level`.
  std::shared_ptr<paddle::OpMetaInfo> Declare(const std::string& name, size_t level);
  // Loads the shared library at `path` and returns the ops it registered (the
  // same ops again when it is already loaded). Typed errors name the library
  // and the op.
  std::vector<std::shared_ptr<const CustomOp>> LoadLibrary(const std::string& path);
  // The op called `name`; a NotFound error when none is registered.
  std::shared_ptr<const CustomOp> Find(const std::string& name);

 private:
  using Declarations =
      std::unordered_map<std::string, std::vector<std::shared_ptr<paddle::OpMetaInfo>>>;
  // Checks a library's declarations and turns them into ops.
  static std::vector<std::shared_ptr<const CustomOp>> Build(const Declarations& decls,
                                                            const std::string& origin);
  void Publish(const std::vector<std::shared_ptr<const CustomOp>>& ops);

  std::mutex mutex_;       // ops_, pending_, loading_
  std::mutex load_mutex_;  // one dlopen at a time (Note [Custom ops are published per library])
  std::unordered_map<std::string, std::shared_ptr<const CustomOp>> ops_;
  Declarations pending_;
  bool loading_ = false;
  std::unordered_map<void*, std::vector<std::shared_ptr<const CustomOp>>> libraries_;
};

// Loads a custom-op library into this process, as Python's
// oar.utils.cpp_extension.load does after compiling it: a C++ program serving a
// saved model that calls the library's ops loads it before oar::jit::Load.
inline std::vector<std::shared_ptr<const CustomOp>> LoadCustomOps(const std::string& path) {
  return CustomOpRegistry::Instance().LoadLibrary(path);
}

// Splits "name: type" into its parts; an error names the op and the declaration.
AttrSpec ParseAttr(const std::string& op, const std::string& decl);
ArgSpec ParseArg(const std::string& name);

}  // namespace oar::extension
