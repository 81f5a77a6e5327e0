#include "oar/jit/module.h"

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "oar/core/errors.h"
#include "oar/core/grad_mode.h"
#include "oar/core/jit_flags.h"
#include "oar/jit/conv_folding.h"
#include "oar/jit/replay.h"
#include "oar/train/checkpoint.h"

namespace oar::jit {

using json = nlohmann::ordered_json;

namespace {

// The largest model file read: programs are text of a few MB at most.
constexpr uint64_t kMaxModelBytes = uint64_t{1} << 30;

[[noreturn]] void Bad(const std::string& file, const std::string& what) {
  throw errors::InvalidArgument("jit.load: '", file, "' is not a valid oar model: ", what);
}

// Parses a model file's JSON and its programs (without weights).
std::map<std::string, Program> ParsePrograms(const std::string& text, const std::string& file,
                                             json* parsed) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) Bad(file, "not valid JSON (truncated or corrupt)");
  if (!j.is_object() || !j.contains("format") || j["format"] != "oar.model") {
    Bad(file, "its 'format' is not \"oar.model\" (a file of another kind)");
  }
  if (!j.contains("version") || !j["version"].is_number_integer())
    Bad(file, "no integer 'version'");
  const auto version = j["version"].get<int64_t>();
  if (version > kModelVersion) {
    throw errors::Unimplemented("jit.load: '", file,
                                "' was written by a newer oar (format version ", version,
                                "); this build reads versions up to ", kModelVersion);
  }
  if (version < 1) Bad(file, "'version' must be >= 1");
  if (!j.contains("programs") || !j["programs"].is_object() || !j["programs"].contains("eval")) {
    Bad(file, "'programs' must be an object holding at least the \"eval\" program");
  }
  std::map<std::string, Program> programs;
  for (auto it = j["programs"].begin(); it != j["programs"].end(); ++it) {
    programs.emplace(it.key(),
                     Program::FromJson(it.value().dump(), "'" + it.key() + "' of '" + file + "'"));
  }
  if (parsed) *parsed = std::move(j);
  return programs;
}

Tensor Bind(const std::map<std::string, Tensor>& weights, const ValueSpec& spec,
            const std::string& file) {
  auto it = weights.find(spec.name);
  if (it == weights.end()) Bad(file, "the weights file has no tensor '" + spec.name + "'");
  const Tensor& t = it->second;
  if (t.dtype() != spec.dtype || t.shape() != spec.shape) {
    std::ostringstream os;
    os << "weight '" << spec.name << "' is " << DTypeName(t.dtype()) << " " << StrCat(t.shape())
       << " but the program expects " << DTypeName(spec.dtype) << " " << StrCat(spec.shape);
    Bad(file, os.str());
  }
  return t;
}

}  // namespace

const BoundProgram& Module::program(const std::string& mode) const {
  auto it = programs_.find(mode);
  OAR_ENFORCE(it != programs_.end(),
              errors::NotFound("jit Module: no '", mode, "' program in this model"));
  return it->second;
}

std::vector<Tensor> Module::Forward(const std::vector<Tensor>& inputs) const {
  NoGradGuard no_grad;
  const BoundProgram& p = program("eval");
  return Run(p.program, inputs, p.params, p.consts, p.folded.get());
}

Module Load(const std::string& path) {
  const std::string file = path + ".oarmodel";
  std::ifstream f(file, std::ios::binary);
  if (!f) throw errors::NotFound("jit.load: no model file '", file, "'");
  f.seekg(0, std::ios::end);
  const auto size = static_cast<uint64_t>(f.tellg());
  f.seekg(0);
  if (size == 0) Bad(file, "the file is empty");
  if (size > kMaxModelBytes) Bad(file, "larger than a model file can be (1 GiB)");
  std::string text(size, '\0');
  f.read(text.data(), static_cast<std::streamsize>(size));
  Module m;
  std::map<std::string, Program> programs = ParsePrograms(text, file, nullptr);
  m.model_json_ = std::move(text);
  m.tensors_ = oar::Load(path + ".safetensors");
  const std::map<std::string, Tensor> weights(m.tensors_.begin(), m.tensors_.end());
  for (auto& [mode, program] : programs) {
    BoundProgram b;
    for (const ValueSpec& s : program.params) b.params.push_back(Bind(weights, s, file));
    for (const ValueSpec& s : program.consts) b.consts.push_back(Bind(weights, s, file));
    b.program = std::move(program);
    if (mode == "eval" && FLAGS_jit_fold_conv()) {
      b.folded = std::make_shared<const FoldedConvs>(b.program, b.params, b.consts);
    }
    m.programs_.emplace(mode, std::move(b));
  }
  return m;
}

void Save(const std::string& path, const std::string& model_json,
          const std::vector<std::pair<std::string, Tensor>>& tensors) {
  const std::string file = path + ".oarmodel";
  ParsePrograms(model_json, file, nullptr);  // refuse to write what Load would refuse
  if (const auto dir = std::filesystem::path(path).parent_path(); !dir.empty()) {
    std::filesystem::create_directories(dir);
  }
  oar::Save(tensors, path + ".safetensors");
  const std::string tmp = file + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    OAR_ENFORCE(out.good(), errors::InvalidArgument("jit.save: cannot write '", file, "'"));
    out << model_json;
    OAR_ENFORCE(out.good(), errors::InvalidArgument("jit.save: writing '", file, "' failed"));
  }
  std::filesystem::rename(tmp, file);
}

}  // namespace oar::jit
