// A captured program: oar's own IR for a forward pass (docs/jit.md). Values
// are numbered once in SSA form — the inputs first, then the parameters, the
// constants, and each op's output in execution order — and each op is a
// declared op (src/oar/ops/*.yaml) or its in-place form, with the attributes
// of its declaration. The same structure is the program file's JSON, field by
// field (docs/jit.md, "The file format").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "oar/core/dtype.h"
#include "oar/eager/trace.h"
#include "oar/jit/fusion.h"

namespace oar::jit {

// Note [Shapes that depend on values]
// A capture sees one run: where Python read a shape that depends on tensor
// values (the row count of nonzero or masked_select) and wrote it into an
// attribute, the program holds that number. So each op's output shape is kept
// (fixed, or following a symbol like the attributes) and a replay whose shape
// differs stops with an error naming the op instead of computing on.

// The version this build writes; it reads this one and older.
inline constexpr int64_t kProgramVersion = 1;

struct ValueSpec {
  std::string name;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;  // -1: a symbolic dimension (inputs only)
  bool buffer = false;         // parameters: a buffer (running statistics), not trained
  bool trainable = true;
};

// An input dimension that may change between calls (InputSpec's None).
struct Symbol {
  std::string name;
  int64_t input = 0;
  int64_t dim = 0;
};

// An int attribute element that follows a symbol: scale * symbol + offset.
struct SymbolicAttr {
  int64_t op = 0;
  int64_t attr = 0;    // the attribute's position among the op's attributes
  int64_t index = -1;  // the element of an int[] attribute; -1 for an int
  int64_t symbol = 0;
  int64_t scale = 1;
  int64_t offset = 0;
};

// An output dimension that follows a symbol: scale * symbol + offset.
struct SymbolicDim {
  int64_t dim = 0;
  int64_t symbol = 0;
  int64_t scale = 1;
  int64_t offset = 0;
};

struct OpSchema;
class ExternalOp;

struct ProgramOp {
  std::string type;
  const OpSchema* schema = nullptr;
  // A custom op's (Note [Programs call ops from outside the declarations]):
  // what runs it; schema is its schema. Null for a declared op.
  std::shared_ptr<const ExternalOp> external;
  std::vector<std::vector<int64_t>> inputs;
  std::vector<AttrValue> attrs;
  int64_t output = -1;      // the first output; the others follow it
  int64_t num_outputs = 1;  // more than one only for an external op
  std::string layer;
  const std::string* layer_path = nullptr;  // layer, interned: current while it runs
  std::vector<SymbolicAttr> symbolic;       // this op's symbolic attribute elements
  // The (first) output's shape at capture (checked on replay, Note [Shapes that depend on
  // values]); absent (has_shape false) in programs that do not record it.
  bool has_shape = false;
  std::vector<int64_t> shape;
  std::vector<SymbolicDim> symbolic_dims;
};

struct Program {
  std::vector<ValueSpec> inputs, params, consts;
  std::vector<ProgramOp> ops;
  std::vector<int64_t> outputs;
  std::vector<Symbol> symbols;
  // Derived: the number of values, and for each value the last op reading it
  // (-1: none), so a run frees each intermediate after its last use, and how
  // many times it is read (by ops, or as an output).
  int64_t num_values = 0;
  std::vector<int64_t> last_use;
  std::vector<int64_t> uses;
  // Derived: the element-wise chains a replay may run fused (fusion.h), and for
  // each op the chain that starts there (-1: none).
  std::vector<FusedChain> chains;
  std::vector<int64_t> chain_at;

  int64_t first_param() const { return static_cast<int64_t>(inputs.size()); }
  int64_t first_const() const { return first_param() + static_cast<int64_t>(params.size()); }
  int64_t first_op_value() const { return first_const() + static_cast<int64_t>(consts.size()); }

  // Parses and checks a program's JSON; what = where it came from, for errors.
  // Every field is checked (types, value ids defined before use, op types and
  // attributes against the declarations): a corrupt or foreign text is an
  // InvalidArgument naming the field, a newer version an Unimplemented.
  static Program FromJson(const std::string& text, const std::string& what);
  std::string ToJson() const;
};

// The program a finished capture recorded (its constants: the tensors of
// tracer.values() in the order of Program::consts, named "const.<i>").
struct Captured {
  Program program;
  std::vector<Tensor> consts;
};
// outputs: the value ids the captured function returned.
Captured FromTracer(const Tracer& tracer, const std::vector<Tensor>& outputs);

}  // namespace oar::jit
