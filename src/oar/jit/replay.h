// Running a captured program: each op is called through its eager function
// (oar::<op>), so a replay records gradients, auto-casts and draws random
// numbers exactly as the eager run it was captured from, without Python.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "oar/jit/program.h"

namespace oar::jit {

// kString, kFloats and kStrings: only a custom op's (external_op.h).
enum class AttrKind : uint8_t {
  kBool,
  kInt,
  kFloat,
  kScalar,
  kInts,
  kDType,
  kString,
  kFloats,
  kStrings
};

// The arguments of one call, as the generated replay table reads them.
class ReplayArgs {
 public:
  std::vector<std::vector<Tensor>> tensors;  // per tensor argument
  const std::vector<AttrValue>* attrs = nullptr;

  const Tensor& One(size_t i) const {
    static const Tensor kUndefined;
    return tensors[i].empty() ? kUndefined : tensors[i][0];
  }
  Tensor& Mutable(size_t i) { return tensors[i][0]; }
  const std::vector<Tensor>& List(size_t i) const { return tensors[i]; }
  template <typename T>
  const T& Attr(size_t i) const {
    return std::get<T>((*attrs)[i]);
  }
};

struct OpSchema {
  const char* type;
  const char* tensor_args;  // per tensor argument: 'T' a Tensor, 'L' a Tensor[]
  std::vector<std::pair<const char*, AttrKind>> attrs;
  Tensor (*call)(ReplayArgs&);
};

// The declared op or in-place form named type, or null.
const OpSchema* FindSchema(std::string_view type);

class FoldedConvs;

// Runs program on inputs with the parameter and constant tensors (in the
// program's order). Checks the inputs against the program's specs (count,
// dtype, rank, every non-symbolic dimension): a mismatch is a typed error
// naming the input. Intermediates are freed after their last use. folded:
// the program's convolutions folded with these parameters (conv_folding.h), or
// null to run every op.
std::vector<Tensor> Run(const Program& program, const std::vector<Tensor>& inputs,
                        const std::vector<Tensor>& params, const std::vector<Tensor>& consts,
                        const FoldedConvs* folded = nullptr);

}  // namespace oar::jit
