// Ops a program may call that no declaration in src/oar/ops names: the custom
// operators of user libraries (docs/custom_ops.md), which the extension layer
// above jit loads and runs.
//
// Note [Programs call ops from outside the declarations]
// jit knows its declared ops at build time (op_replay.inc); a custom op is
// known only once its library is loaded, by a layer jit may not depend on. So
// that layer installs a resolver for a type prefix ("custom."): a capture
// records the op under its prefixed type, and parsing a program asks the
// resolver for an ExternalOp, which says the op's tensor arguments and
// attributes as an OpSchema does (so the file's fields are read and checked
// the same way) and runs it. An op may have several outputs, numbered as
// consecutive values. A program naming an op whose library is not loaded is
// a NotFound error at parse time that says to load it, never a failure
// halfway through a run.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "oar/jit/replay.h"

namespace oar::jit {

class ExternalOp {
 public:
  // type: the program's name for the op ("custom.relu"); tensor_args: 'T' (a
  // Tensor, possibly omitted) or 'L' (a Tensor[]) per tensor argument.
  ExternalOp(std::string type, std::string tensor_args,
             std::vector<std::pair<std::string, AttrKind>> attrs);
  virtual ~ExternalOp() = default;
  ExternalOp(const ExternalOp&) = delete;
  ExternalOp& operator=(const ExternalOp&) = delete;

  // The schema the program reader checks the op against (its call is unused:
  // Run runs the op).
  const OpSchema& schema() const { return schema_; }
  // Runs the op: every output, in order (a list output flattened).
  virtual std::vector<Tensor> Run(const ReplayArgs& args) const = 0;

 private:
  std::string type_, tensor_args_;
  std::vector<std::string> attr_names_;
  OpSchema schema_;
};

// Finds the op a layer above jit defines for a type under its prefix; throws
// a typed error (NotFound) when it knows no such op.
using ExternalOpResolver = std::shared_ptr<const ExternalOp> (*)(std::string_view type);

// Installs resolver for the types starting with prefix (replacing any before).
void SetExternalOpResolver(std::string prefix, ExternalOpResolver resolver);

// The op of type (null when no resolver's prefix matches; a resolver's error
// propagates).
std::shared_ptr<const ExternalOp> FindExternalOp(std::string_view type);

}  // namespace oar::jit
