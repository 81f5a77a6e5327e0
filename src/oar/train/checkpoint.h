// oar::Save / oar::Load: checkpoints in the safetensors format, the same files
// oar.save / oar.load write and read in Python (python/oar/framework/io.py,
// docs/checkpoints.md). A file holds named tensors; Python's nesting metadata
// is written for a flat dict, so oar.load returns {name: Tensor} for a file
// saved here, and Load returns every tensor of a file saved there under its
// flattened name ("model.fc.weight").
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "oar/core/tensor.h"

namespace oar {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// Writes to path + ".tmp<pid>" and renames into place. Throws InvalidArgument
// for duplicate names and InvalidType for unsupported dtypes.
void Save(const NamedTensors& tensors, const std::string& path);

// Reads a safetensors file, checking every header field against the file size
// before reading data: a missing file is NotFound, a corrupt or truncated one
// InvalidArgument naming the problem; nothing is allocated beyond what the
// file holds.
NamedTensors Load(const std::string& path);

}  // namespace oar
