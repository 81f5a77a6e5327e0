// A saved model, served without Python: oar::jit::Load("model") reads what
// oar.jit.save("model") wrote — model.oarmodel (the programs, JSON) and
// model.safetensors (parameters and constants) — and Forward runs the
// inference program (docs/jit.md).
//
// Note [A loaded module is shared read-only]
// Forward keeps every intermediate in a table of its own and runs with
// gradients off, and the parameters are never written, so one Module may
// serve Forward calls from several threads at once.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "oar/jit/program.h"

namespace oar::jit {

inline constexpr int64_t kModelVersion = 1;

class FoldedConvs;

// One program of a saved model with the tensors it reads, in its order.
struct BoundProgram {
  Program program;
  std::vector<Tensor> params;
  std::vector<Tensor> consts;
  // The inference program's convolutions folded with these weights
  // (conv_folding.h); null for the other programs.
  std::shared_ptr<const FoldedConvs> folded;
};

class Module {
 public:
  // The inference ("eval") program's outputs for inputs, without gradients.
  std::vector<Tensor> Forward(const std::vector<Tensor>& inputs) const;
  // The programs by mode ("eval", and "train" when training runs differently).
  const std::map<std::string, BoundProgram>& programs() const { return programs_; }
  const BoundProgram& program(const std::string& mode) const;
  // Every tensor of the weights file, by name (parameters and constants).
  const std::vector<std::pair<std::string, Tensor>>& tensors() const { return tensors_; }
  // The model file's JSON as read (Python keeps its own fields there).
  const std::string& model_json() const { return model_json_; }

 private:
  friend Module Load(const std::string& path);
  std::map<std::string, BoundProgram> programs_;
  std::vector<std::pair<std::string, Tensor>> tensors_;
  std::string model_json_;
};

// Reads path + ".oarmodel" and path + ".safetensors". A missing file is
// NotFound; a truncated, corrupt or foreign one InvalidArgument naming the
// file and what is wrong; a newer format version Unimplemented; a weight whose
// dtype or shape differs from the program's InvalidArgument naming it.
Module Load(const std::string& path);

// Writes the two files of a model: model_json must be an "oar.model" object
// whose programs all parse (checked before anything is written), tensors the
// weights they name.
void Save(const std::string& path, const std::string& model_json,
          const std::vector<std::pair<std::string, Tensor>>& tensors);

}  // namespace oar::jit
