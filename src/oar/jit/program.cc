#include "oar/jit/program.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

#include "oar/core/errors.h"
#include "oar/core/layer_scope.h"
#include "oar/jit/external_op.h"
#include "oar/jit/replay.h"

namespace oar::jit {

using json = nlohmann::ordered_json;

namespace {

// Non-finite floats (a -inf mask fill) are strings: JSON has no number for them.
json FloatToJson(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

json AttrToJson(const AttrValue& a) {
  return std::visit(
      [](const auto& v) -> json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, double>) {
          return FloatToJson(v);
        } else if constexpr (std::is_same_v<T, Scalar>) {
          switch (v.kind()) {
            case Scalar::Kind::kBool:
              return v.to_bool();
            case Scalar::Kind::kInt:
              return v.to_int64();
            case Scalar::Kind::kFloat:
              return FloatToJson(v.to_double());
            case Scalar::Kind::kComplex:
              return json::array({FloatToJson(v.to_double()), FloatToJson(v.imag())});
          }
          return nullptr;
        } else if constexpr (std::is_same_v<T, DType>) {
          return std::string(DTypeName(v));
        } else if constexpr (std::is_same_v<T, std::vector<double>>) {
          json list = json::array();
          for (double d : v) list.push_back(FloatToJson(d));
          return list;
        } else {
          return v;
        }
      },
      a);
}

json SpecToJson(const ValueSpec& s, bool param) {
  json j = {{"name", s.name}, {"dtype", std::string(DTypeName(s.dtype))}, {"shape", s.shape}};
  if (param) {
    j["buffer"] = s.buffer;
    j["trainable"] = s.trainable;
  }
  return j;
}

// Reading: every access names the field it reads, so a corrupt file's error
// says where it is.
class Reader {
 public:
  explicit Reader(std::string what) : what_(std::move(what)) {}

  [[noreturn]] void Fail(const std::string& field, const std::string& expected) const {
    throw errors::InvalidArgument("jit program ", what_, ": field '", field, "': expected ",
                                  expected);
  }
  const json& At(const json& j, const char* key, const std::string& field) const {
    if (!j.is_object() || !j.contains(key)) Fail(field, "to be present");
    return j.at(key);
  }
  const json& Array(const json& j, const std::string& field) const {
    if (!j.is_array()) Fail(field, "a list");
    return j;
  }
  int64_t Int(const json& j, const std::string& field) const {
    if (!j.is_number_integer()) Fail(field, "an integer");
    return j.get<int64_t>();
  }
  int64_t Index(const json& j, const std::string& field, int64_t size) const {
    const int64_t v = Int(j, field);
    if (v < 0 || v >= size) Fail(field, "an index in [0, " + std::to_string(size) + ")");
    return v;
  }
  bool Bool(const json& j, const std::string& field) const {
    if (!j.is_boolean()) Fail(field, "true or false");
    return j.get<bool>();
  }
  std::string String(const json& j, const std::string& field) const {
    if (!j.is_string()) Fail(field, "a string");
    return j.get<std::string>();
  }
  double Float(const json& j, const std::string& field) const {
    if (j.is_number()) return j.get<double>();
    if (j.is_string()) {
      const std::string s = j.get<std::string>();
      if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
      if (s == "inf") return std::numeric_limits<double>::infinity();
      if (s == "-inf") return -std::numeric_limits<double>::infinity();
    }
    Fail(field, "a number");
  }
  std::vector<int64_t> Ints(const json& j, const std::string& field) const {
    Array(j, field);
    std::vector<int64_t> v;
    for (size_t i = 0; i < j.size(); ++i)
      v.push_back(Int(j[i], field + "[" + std::to_string(i) + "]"));
    return v;
  }
  DType DTypeOf(const json& j, const std::string& field) const {
    const std::string name = String(j, field);
    if (name == DTypeName(DType::kUndefined)) return DType::kUndefined;  // "follow the input"
    try {
      return DTypeFromName(name);
    } catch (const Error&) {
      Fail(field, "a dtype name, not '" + name + "'");
    }
  }
  AttrValue Attr(const json& j, AttrKind kind, const std::string& field) const {
    switch (kind) {
      case AttrKind::kBool:
        return Bool(j, field);
      case AttrKind::kInt:
        return Int(j, field);
      case AttrKind::kFloat:
        return Float(j, field);
      case AttrKind::kScalar:
        if (j.is_boolean()) return Scalar(j.get<bool>());
        if (j.is_number_integer()) return Scalar(j.get<int64_t>());
        if (j.is_array() && j.size() == 2) {
          return Scalar(
              std::complex<double>(Float(j[0], field + "[0]"), Float(j[1], field + "[1]")));
        }
        return Scalar(Float(j, field));
      case AttrKind::kInts:
        return Ints(j, field);
      case AttrKind::kDType:
        return DTypeOf(j, field);
      case AttrKind::kString:
        return String(j, field);
      case AttrKind::kFloats: {
        Array(j, field);
        std::vector<double> v;
        for (size_t i = 0; i < j.size(); ++i)
          v.push_back(Float(j[i], field + "[" + std::to_string(i) + "]"));
        return v;
      }
      case AttrKind::kStrings: {
        Array(j, field);
        std::vector<std::string> v;
        for (size_t i = 0; i < j.size(); ++i)
          v.push_back(String(j[i], field + "[" + std::to_string(i) + "]"));
        return v;
      }
    }
    Fail(field, "a known attribute kind");
  }
  ValueSpec Spec(const json& j, const std::string& field, bool param) const {
    ValueSpec s;
    s.name = String(At(j, "name", field + ".name"), field + ".name");
    s.dtype = DTypeOf(At(j, "dtype", field + ".dtype"), field + ".dtype");
    s.shape = Ints(At(j, "shape", field + ".shape"), field + ".shape");
    for (int64_t d : s.shape) {
      if (d < -1) Fail(field + ".shape", "sizes >= 0 (or -1)");
    }
    if (param) {
      s.buffer = Bool(At(j, "buffer", field + ".buffer"), field + ".buffer");
      s.trainable = Bool(At(j, "trainable", field + ".trainable"), field + ".trainable");
    }
    return s;
  }

 private:
  std::string what_;
};

// The op of type: a declared op, or one a layer above jit defines (null
// schema when neither; a resolver's error propagates).
void Resolve(ProgramOp& op) {
  op.schema = FindSchema(op.type);
  if (op.schema) return;
  op.external = FindExternalOp(op.type);
  if (op.external) op.schema = &op.external->schema();
}

void ComputeLastUse(Program& p) {
  p.num_values = p.first_op_value();
  for (const ProgramOp& op : p.ops) p.num_values += op.num_outputs;
  p.last_use.assign(static_cast<size_t>(p.num_values), -1);
  p.uses.assign(static_cast<size_t>(p.num_values), 0);
  for (size_t k = 0; k < p.ops.size(); ++k) {
    for (const auto& group : p.ops[k].inputs) {
      for (int64_t id : group) {
        p.last_use[static_cast<size_t>(id)] = static_cast<int64_t>(k);
        ++p.uses[static_cast<size_t>(id)];
      }
    }
  }
  for (int64_t o : p.outputs) ++p.uses[static_cast<size_t>(o)];
  p.chains = PlanChains(p);
  p.chain_at.assign(p.ops.size(), -1);
  for (size_t c = 0; c < p.chains.size(); ++c) {
    p.chain_at[p.chains[c].first] = static_cast<int64_t>(c);
  }
}

}  // namespace

Captured FromTracer(const Tracer& tracer, const std::vector<Tensor>& outputs) {
  tracer.CheckConstants();
  const auto& values = tracer.values();
  // Renumber: inputs, parameters, constants, then op outputs (in op order).
  std::vector<int64_t> id(values.size(), -1);
  Captured c;
  Program& p = c.program;
  for (ValueKind kind : {ValueKind::kInput, ValueKind::kParam, ValueKind::kConst}) {
    for (size_t v = 0; v < values.size(); ++v) {
      if (values[v].kind != kind) continue;
      ValueSpec s;
      s.dtype = values[v].tensor.dtype();
      s.shape = values[v].tensor.shape();
      if (kind == ValueKind::kInput) {
        s.name = "input." + std::to_string(p.inputs.size());
        id[v] = static_cast<int64_t>(p.inputs.size());
        p.inputs.push_back(std::move(s));
      } else if (kind == ValueKind::kParam) {
        s.name = values[v].name;
        id[v] = static_cast<int64_t>(p.params.size());
        p.params.push_back(std::move(s));
      } else {
        s.name = "const." + std::to_string(p.consts.size());
        id[v] = static_cast<int64_t>(p.consts.size());
        p.consts.push_back(std::move(s));
        c.consts.push_back(values[v].tensor);
      }
    }
  }
  for (size_t v = 0; v < values.size(); ++v) {
    if (values[v].kind == ValueKind::kParam) id[v] += p.first_param();
    if (values[v].kind == ValueKind::kConst) id[v] += p.first_const();
  }
  int64_t next = p.first_op_value();
  for (const TracedOp& t : tracer.ops()) {
    ProgramOp op;
    op.type = t.type;
    Resolve(op);
    OAR_ENFORCE(op.schema != nullptr, errors::Fatal("to_static(): no replay entry for ", t.type));
    for (const auto& group : t.inputs) {
      std::vector<int64_t> ids;
      for (int64_t v : group) ids.push_back(id[static_cast<size_t>(v)]);
      op.inputs.push_back(std::move(ids));
    }
    op.attrs = t.attrs;
    op.layer = t.layer;
    if (!op.layer.empty()) op.layer_path = InternLayerPath(op.layer);
    op.has_shape = true;
    op.shape = t.shape;
    op.output = next;
    op.num_outputs = t.num_outputs;
    for (int64_t i = 0; i < t.num_outputs; ++i) id[static_cast<size_t>(t.output + i)] = next++;
    p.ops.push_back(std::move(op));
  }
  for (const Tensor& o : outputs) {
    const int64_t v = tracer.Find(o);
    OAR_ENFORCE(v >= 0, errors::InvalidArgument(
                            "to_static(): the function returned a tensor the capture did not "
                            "see computed (made outside oar's ops)"));
    p.outputs.push_back(id[static_cast<size_t>(v)]);
  }
  ComputeLastUse(p);
  return c;
}

std::string Program::ToJson() const {
  json j;
  j["format"] = "oar.program";
  j["version"] = kProgramVersion;
  j["inputs"] = json::array();
  for (const auto& s : inputs) j["inputs"].push_back(SpecToJson(s, false));
  j["params"] = json::array();
  for (const auto& s : params) j["params"].push_back(SpecToJson(s, true));
  j["consts"] = json::array();
  for (const auto& s : consts) j["consts"].push_back(SpecToJson(s, false));
  j["ops"] = json::array();
  json sym_attrs = json::array();
  json sym_shapes = json::array();
  for (size_t k = 0; k < ops.size(); ++k) {
    const ProgramOp& op = ops[k];
    json attrs = json::object();
    for (size_t a = 0; a < op.attrs.size(); ++a)
      attrs[op.schema->attrs[a].first] = AttrToJson(op.attrs[a]);
    json jop = {{"type", op.type},
                {"inputs", op.inputs},
                {"attrs", attrs},
                {"output", op.output},
                {"layer", op.layer}};
    if (op.num_outputs != 1) jop["num_outputs"] = op.num_outputs;
    if (op.has_shape) jop["shape"] = op.shape;
    j["ops"].push_back(std::move(jop));
    for (const SymbolicDim& d : op.symbolic_dims) {
      sym_shapes.push_back({{"op", k},
                            {"dim", d.dim},
                            {"symbol", d.symbol},
                            {"scale", d.scale},
                            {"offset", d.offset}});
    }
    for (const SymbolicAttr& s : op.symbolic) {
      sym_attrs.push_back({{"op", k},
                           {"attr", op.schema->attrs[static_cast<size_t>(s.attr)].first},
                           {"index", s.index},
                           {"symbol", s.symbol},
                           {"scale", s.scale},
                           {"offset", s.offset}});
    }
  }
  j["outputs"] = outputs;
  j["symbols"] = json::array();
  for (const Symbol& s : symbols) {
    j["symbols"].push_back({{"name", s.name}, {"input", s.input}, {"dim", s.dim}});
  }
  j["symbolic_attrs"] = sym_attrs;
  j["symbolic_shapes"] = sym_shapes;
  return j.dump();
}

Program Program::FromJson(const std::string& text, const std::string& what) {
  const Reader r(what);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw errors::InvalidArgument("jit program ", what, ": not valid JSON (", e.what(), ")");
  }
  if (!j.is_object() || !j.contains("format") || j["format"] != "oar.program") {
    throw errors::InvalidArgument("jit program ", what,
                                  ": not an oar program (its 'format' is not \"oar.program\")");
  }
  const int64_t version = r.Int(r.At(j, "version", "version"), "version");
  if (version > kProgramVersion) {
    throw errors::Unimplemented("jit program ", what, ": written by a newer oar (format version ",
                                version, "); this build reads versions up to ", kProgramVersion);
  }
  if (version < 1) r.Fail("version", "a version >= 1");
  Program p;
  const char* spec_lists[] = {"inputs", "params", "consts"};
  std::vector<ValueSpec>* specs[] = {&p.inputs, &p.params, &p.consts};
  for (int l = 0; l < 3; ++l) {
    const json& arr = r.Array(r.At(j, spec_lists[l], spec_lists[l]), spec_lists[l]);
    for (size_t i = 0; i < arr.size(); ++i) {
      specs[l]->push_back(
          r.Spec(arr[i], std::string(spec_lists[l]) + "[" + std::to_string(i) + "]", l == 1));
    }
  }
  const json& ops = r.Array(r.At(j, "ops", "ops"), "ops");
  int64_t defined = p.first_op_value();  // the next op's first output
  for (size_t k = 0; k < ops.size(); ++k) {
    const std::string f = "ops[" + std::to_string(k) + "]";
    ProgramOp op;
    op.type = r.String(r.At(ops[k], "type", f + ".type"), f + ".type");
    Resolve(op);
    if (!op.schema) r.Fail(f + ".type", "an op this build declares, not '" + op.type + "'");
    const json& ins = r.Array(r.At(ops[k], "inputs", f + ".inputs"), f + ".inputs");
    const size_t n = std::strlen(op.schema->tensor_args);
    if (ins.size() != n)
      r.Fail(f + ".inputs", std::to_string(n) + " tensor arguments for " + op.type);
    for (size_t i = 0; i < n; ++i) {
      const std::string fi = f + ".inputs[" + std::to_string(i) + "]";
      std::vector<int64_t> group = r.Ints(ins[i], fi);
      if (op.schema->tensor_args[i] == 'T' && group.size() > 1) r.Fail(fi, "at most one value");
      for (int64_t v : group) {
        if (v < 0 || v >= defined) r.Fail(fi, "values defined before the op");
      }
      op.inputs.push_back(std::move(group));
    }
    const json& attrs = r.At(ops[k], "attrs", f + ".attrs");
    if (!attrs.is_object() || attrs.size() != op.schema->attrs.size()) {
      r.Fail(f + ".attrs", std::to_string(op.schema->attrs.size()) + " attributes for " + op.type);
    }
    for (const auto& [name, kind] : op.schema->attrs) {
      const std::string fa = f + ".attrs." + name;
      op.attrs.push_back(r.Attr(r.At(attrs, name, fa), kind, fa));
    }
    op.output = r.Int(r.At(ops[k], "output", f + ".output"), f + ".output");
    if (op.output != defined) r.Fail(f + ".output", "value " + std::to_string(defined));
    if (ops[k].contains("num_outputs")) {
      op.num_outputs = r.Int(ops[k]["num_outputs"], f + ".num_outputs");
      if (op.num_outputs < 1 || (!op.external && op.num_outputs != 1))
        r.Fail(f + ".num_outputs", op.external ? "at least 1" : "1 for " + op.type);
    }
    defined += op.num_outputs;
    if (ops[k].contains("layer")) op.layer = r.String(ops[k]["layer"], f + ".layer");
    if (!op.layer.empty()) op.layer_path = InternLayerPath(op.layer);
    if (ops[k].contains("shape")) {
      op.has_shape = true;
      op.shape = r.Ints(ops[k]["shape"], f + ".shape");
      for (int64_t d : op.shape) {
        if (d < 0) r.Fail(f + ".shape", "sizes >= 0");
      }
    }
    p.ops.push_back(std::move(op));
  }
  const int64_t num_values = defined;
  const json& outs = r.Array(r.At(j, "outputs", "outputs"), "outputs");
  for (size_t i = 0; i < outs.size(); ++i) {
    p.outputs.push_back(r.Index(outs[i], "outputs[" + std::to_string(i) + "]", num_values));
  }
  if (j.contains("symbols")) {
    const json& syms = r.Array(j["symbols"], "symbols");
    for (size_t s = 0; s < syms.size(); ++s) {
      const std::string f = "symbols[" + std::to_string(s) + "]";
      Symbol sym;
      sym.name = r.String(r.At(syms[s], "name", f + ".name"), f + ".name");
      sym.input = r.Index(r.At(syms[s], "input", f + ".input"), f + ".input",
                          static_cast<int64_t>(p.inputs.size()));
      const auto& shape = p.inputs[static_cast<size_t>(sym.input)].shape;
      sym.dim =
          r.Index(r.At(syms[s], "dim", f + ".dim"), f + ".dim", static_cast<int64_t>(shape.size()));
      if (shape[static_cast<size_t>(sym.dim)] != -1)
        r.Fail(f + ".dim", "a dimension whose size is -1");
      p.symbols.push_back(std::move(sym));
    }
  }
  if (j.contains("symbolic_attrs")) {
    const json& sa = r.Array(j["symbolic_attrs"], "symbolic_attrs");
    for (size_t i = 0; i < sa.size(); ++i) {
      const std::string f = "symbolic_attrs[" + std::to_string(i) + "]";
      SymbolicAttr s;
      s.op = r.Index(r.At(sa[i], "op", f + ".op"), f + ".op", static_cast<int64_t>(p.ops.size()));
      ProgramOp& op = p.ops[static_cast<size_t>(s.op)];
      const std::string name = r.String(r.At(sa[i], "attr", f + ".attr"), f + ".attr");
      s.attr = -1;
      for (size_t a = 0; a < op.schema->attrs.size(); ++a) {
        if (name == op.schema->attrs[a].first) s.attr = static_cast<int64_t>(a);
      }
      if (s.attr < 0) r.Fail(f + ".attr", "an attribute of " + op.type);
      const AttrValue& value = op.attrs[static_cast<size_t>(s.attr)];
      s.index = r.Int(r.At(sa[i], "index", f + ".index"), f + ".index");
      if (const auto* ints = std::get_if<std::vector<int64_t>>(&value)) {
        if (s.index < 0 || s.index >= static_cast<int64_t>(ints->size()))
          r.Fail(f + ".index", "an element of the list");
      } else if (!std::holds_alternative<int64_t>(value) || s.index != -1) {
        r.Fail(f + ".attr", "an int or int[] attribute (index -1 for an int)");
      }
      s.symbol = r.Index(r.At(sa[i], "symbol", f + ".symbol"), f + ".symbol",
                         static_cast<int64_t>(p.symbols.size()));
      s.scale = r.Int(r.At(sa[i], "scale", f + ".scale"), f + ".scale");
      s.offset = r.Int(r.At(sa[i], "offset", f + ".offset"), f + ".offset");
      op.symbolic.push_back(s);
    }
  }
  if (j.contains("symbolic_shapes")) {
    const json& ss = r.Array(j["symbolic_shapes"], "symbolic_shapes");
    for (size_t i = 0; i < ss.size(); ++i) {
      const std::string f = "symbolic_shapes[" + std::to_string(i) + "]";
      const int64_t k =
          r.Index(r.At(ss[i], "op", f + ".op"), f + ".op", static_cast<int64_t>(p.ops.size()));
      ProgramOp& op = p.ops[static_cast<size_t>(k)];
      if (!op.has_shape) r.Fail(f + ".op", "an op with a recorded shape");
      SymbolicDim d;
      d.dim = r.Index(r.At(ss[i], "dim", f + ".dim"), f + ".dim",
                      static_cast<int64_t>(op.shape.size()));
      d.symbol = r.Index(r.At(ss[i], "symbol", f + ".symbol"), f + ".symbol",
                         static_cast<int64_t>(p.symbols.size()));
      d.scale = r.Int(r.At(ss[i], "scale", f + ".scale"), f + ".scale");
      d.offset = r.Int(r.At(ss[i], "offset", f + ".offset"), f + ".offset");
      op.symbolic_dims.push_back(d);
    }
  }
  ComputeLastUse(p);
  return p;
}

}  // namespace oar::jit
