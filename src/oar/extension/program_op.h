// Custom ops in captured programs (docs/custom_ops.md, "Capture and serving"):
// a capture records a custom op under the type "custom.<name>" with its
// inputs and attributes, and a program naming one runs it through the
// registry (Note [Programs call ops from outside the declarations]).
#pragma once

#include <string>
#include <vector>

#include "oar/eager/trace.h"
#include "oar/extension/registry.h"

namespace oar::extension {

// The program type of custom op `name`.
std::string ProgramType(const std::string& name);

// An attribute as a program holds it, and back (as declared by spec).
jit::AttrValue ToProgramAttr(const paddle::AttrValue& value);
paddle::AttrValue FromProgramAttr(const jit::AttrValue& value, const AttrSpec& spec,
                                  const std::string& op);

}  // namespace oar::extension
