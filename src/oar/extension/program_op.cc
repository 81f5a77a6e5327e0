#include "oar/extension/program_op.h"

#include <string_view>

#include "oar/extension/run_op.h"
#include "oar/jit/external_op.h"

namespace oar::extension {
namespace {

constexpr std::string_view kPrefix = "custom.";

jit::AttrKind KindOf(AttrType t) {
  switch (t) {
    case AttrType::kBool:
      return jit::AttrKind::kBool;
    case AttrType::kInt:
    case AttrType::kInt64:
      return jit::AttrKind::kInt;
    case AttrType::kFloat:
    case AttrType::kDouble:
      return jit::AttrKind::kFloat;
    case AttrType::kString:
      return jit::AttrKind::kString;
    case AttrType::kBoolList:
    case AttrType::kIntList:
    case AttrType::kInt64List:
      return jit::AttrKind::kInts;
    case AttrType::kFloatList:
    case AttrType::kDoubleList:
      return jit::AttrKind::kFloats;
    case AttrType::kStringList:
      return jit::AttrKind::kStrings;
  }
  return jit::AttrKind::kInt;
}

template <typename To, typename From>
std::vector<To> Cast(const std::vector<From>& v) {
  return std::vector<To>(v.begin(), v.end());
}

// A custom op as a program runs it: level 0 of the registered op, its inputs
// in declared order, its outputs flattened.
class CustomProgramOp final : public jit::ExternalOp {
 public:
  explicit CustomProgramOp(std::shared_ptr<const CustomOp> op)
      : ExternalOp(ProgramType(op->name), TensorArgs(*op), Attrs(*op)), op_(std::move(op)) {}

  std::vector<Tensor> Run(const jit::ReplayArgs& args) const override {
    const CustomOpLevel& l = op_->levels[0];
    std::vector<paddle::CallInput> inputs(l.inputs.size());
    for (size_t i = 0; i < l.inputs.size(); ++i) {
      const std::vector<Tensor>& group = args.tensors[i];
      inputs[i].present = !group.empty() || (l.inputs[i].is_list && !l.inputs[i].is_optional);
      for (const Tensor& t : group) inputs[i].tensors.emplace_back(t);
    }
    std::vector<paddle::AttrValue> attrs;
    for (size_t a = 0; a < l.attrs.size(); ++a) {
      attrs.push_back(FromProgramAttr((*args.attrs)[a], l.attrs[a], op_->name));
    }
    std::vector<Tensor> flat;
    for (auto& out : RunCustomOp(op_, 0, std::move(inputs), std::move(attrs))) {
      flat.insert(flat.end(), out.begin(), out.end());
    }
    return flat;
  }

 private:
  static std::string TensorArgs(const CustomOp& op) {
    std::string s;
    for (const ArgSpec& a : op.levels[0].inputs) s += a.is_list ? 'L' : 'T';
    return s;
  }
  static std::vector<std::pair<std::string, jit::AttrKind>> Attrs(const CustomOp& op) {
    std::vector<std::pair<std::string, jit::AttrKind>> attrs;
    for (const AttrSpec& a : op.levels[0].attrs) attrs.emplace_back(a.name, KindOf(a.type));
    return attrs;
  }

  std::shared_ptr<const CustomOp> op_;
};

std::shared_ptr<const jit::ExternalOp> Resolve(std::string_view type) {
  const std::string name(type.substr(kPrefix.size()));
  std::shared_ptr<const CustomOp> op;
  try {
    op = CustomOpRegistry::Instance().Find(name);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kNotFound) throw;
    throw errors::NotFound("the program calls custom op '", name,
                           "', which no loaded library registers: load its library first "
                           "(oar.utils.cpp_extension.load in Python, "
                           "oar::extension::LoadCustomOps in C++)");
  }
  return std::make_shared<const CustomProgramOp>(std::move(op));
}

// Installed with the library: any program parsed after it was loaded may call
// custom ops.
[[maybe_unused]] const bool kResolverInstalled = [] {
  jit::SetExternalOpResolver(std::string(kPrefix), &Resolve);
  return true;
}();

}  // namespace

std::string ProgramType(const std::string& name) { return std::string(kPrefix) + name; }

jit::AttrValue ToProgramAttr(const paddle::AttrValue& value) {
  return std::visit(
      [](const auto& v) -> jit::AttrValue {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string> ||
                      std::is_same_v<T, double> || std::is_same_v<T, std::vector<double>> ||
                      std::is_same_v<T, std::vector<int64_t>> ||
                      std::is_same_v<T, std::vector<std::string>>) {
          return v;
        } else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, int64_t>) {
          return static_cast<int64_t>(v);
        } else if constexpr (std::is_same_v<T, float>) {
          return static_cast<double>(v);
        } else if constexpr (std::is_same_v<T, std::vector<float>>) {
          return Cast<double>(v);
        } else {  // std::vector<bool>, std::vector<int>
          return Cast<int64_t>(v);
        }
      },
      value);
}

paddle::AttrValue FromProgramAttr(const jit::AttrValue& value, const AttrSpec& spec,
                                  const std::string& op) {
  try {
    switch (spec.type) {
      case AttrType::kBool:
        return std::get<bool>(value);
      case AttrType::kInt:
        return static_cast<int>(std::get<int64_t>(value));
      case AttrType::kInt64:
        return std::get<int64_t>(value);
      case AttrType::kFloat:
        return static_cast<float>(std::get<double>(value));
      case AttrType::kDouble:
        return std::get<double>(value);
      case AttrType::kString:
        return std::get<std::string>(value);
      case AttrType::kBoolList:
        return Cast<bool>(std::get<std::vector<int64_t>>(value));
      case AttrType::kIntList:
        return Cast<int>(std::get<std::vector<int64_t>>(value));
      case AttrType::kInt64List:
        return std::get<std::vector<int64_t>>(value);
      case AttrType::kFloatList:
        return Cast<float>(std::get<std::vector<double>>(value));
      case AttrType::kDoubleList:
        return std::get<std::vector<double>>(value);
      case AttrType::kStringList:
        return std::get<std::vector<std::string>>(value);
    }
  } catch (const std::bad_variant_access&) {
  }
  throw errors::InvalidType("custom op '", op, "': the program's attribute '", spec.name,
                            "' is not a ", spec.type_name);
}

}  // namespace oar::extension
