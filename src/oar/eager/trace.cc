#include "oar/eager/trace.h"

#include <utility>

#include "oar/core/errors.h"
#include "oar/core/layer_scope.h"
#include "oar/core/macros.h"

namespace oar::jit {

namespace detail {
constinit OAR_HOT_TLS thread_local Tracer* tls_tracer = nullptr;
}  // namespace detail
using detail::tls_tracer;

Tracer* Tracer::Exchange(Tracer* tracer) { return std::exchange(tls_tracer, tracer); }

Tracer::ActiveGuard::ActiveGuard(Tracer* tracer) : previous_(tls_tracer) { tls_tracer = tracer; }
Tracer::ActiveGuard::~ActiveGuard() { tls_tracer = previous_; }

template <typename Args>
void Tracer::Recording::AddInputs(const Args& inputs) {
  op_.inputs.reserve(inputs.size());
  for (const TensorArg& a : inputs) {
    std::vector<int64_t> ids;
    if (a.one()) {
      if (a.one()->defined()) ids.push_back(tracer_.ValueOf(*a.one()));
    } else {
      ids.reserve(a.list()->size());
      for (const Tensor& t : *a.list()) ids.push_back(tracer_.ValueOf(t));
    }
    op_.inputs.push_back(std::move(ids));
  }
  if (const std::string* path = CurrentLayerPath()) op_.layer = *path;
}

Tracer::Recording::Recording(Tracer& tracer, const char* op,
                             std::initializer_list<TensorArg> inputs,
                             std::initializer_list<AttrValue> attrs)
    : tracer_(tracer) {
  ++tracer_.depth_;
  if (tracer_.broken()) return;
  op_.type = op;
  AddInputs(inputs);
  op_.attrs.assign(attrs.begin(), attrs.end());
}

Tracer::Recording::Recording(Tracer& tracer, std::string op, const std::vector<TensorArg>& inputs,
                             std::vector<AttrValue> attrs)
    : tracer_(tracer) {
  ++tracer_.depth_;
  if (tracer_.broken()) return;
  op_.type = std::move(op);
  AddInputs(inputs);
  op_.attrs = std::move(attrs);
}

Tensor Tracer::Recording::Finish(Tensor out) {
  if (!tracer_.broken()) tracer_.AddOp(std::move(op_), out);
  return out;
}

Tensor& Tracer::Recording::FinishInplace(Tensor& out) {
  if (!tracer_.broken()) tracer_.AddOp(std::move(op_), out);
  return out;
}

void Tracer::Recording::FinishAll(const std::vector<Tensor>& outs) {
  if (!tracer_.broken()) tracer_.AddOp(std::move(op_), outs);
}

void Tracer::AddOp(TracedOp op, const Tensor& out) {
  op.output = NewValue(ValueKind::kOp, out, "");
  if (out.defined()) op.shape = out.shape();
  ops_.push_back(std::move(op));
}

void Tracer::AddOp(TracedOp op, const std::vector<Tensor>& outs) {
  OAR_ENFORCE(!outs.empty(), errors::Fatal("capture: op ", op.type, " recorded no output"));
  // Consecutive ids: no other value is made in between.
  op.output = NewValue(ValueKind::kOp, outs[0], "");
  for (size_t i = 1; i < outs.size(); ++i) NewValue(ValueKind::kOp, outs[i], "");
  op.num_outputs = static_cast<int64_t>(outs.size());
  op.shape = outs[0].shape();
  ops_.push_back(std::move(op));
}

int64_t Tracer::NewValue(ValueKind kind, const Tensor& t, std::string name) {
  const auto id = static_cast<int64_t>(values_.size());
  values_.push_back({kind, t, std::move(name),
                     t.defined() ? static_cast<int64_t>(t.current_inplace_version()) : 0});
  if (t.defined()) ids_[t.impl().get()] = id;  // an in-place op rebinds the impl
  return id;
}

int64_t Tracer::AddInput(const Tensor& t) {
  OAR_ENFORCE(t.defined(), errors::InvalidArgument("to_static(): an input tensor is undefined"));
  OAR_ENFORCE(Find(t) < 0, errors::InvalidArgument(
                               "to_static(): the same tensor is passed as two inputs; pass a "
                               "copy (x.clone()) for the second"));
  return NewValue(ValueKind::kInput, t, "");
}

int64_t Tracer::AddParam(const std::string& name, const Tensor& t) {
  if (const int64_t id = Find(t); id >= 0) return id;  // shared weights: one value
  return NewValue(ValueKind::kParam, t, name);
}

int64_t Tracer::Find(const Tensor& t) const {
  if (!t.defined()) return -1;
  auto it = ids_.find(t.impl().get());
  return it == ids_.end() ? -1 : it->second;
}

int64_t Tracer::ValueOf(const Tensor& t) {
  if (!t.defined()) return -1;
  if (const int64_t id = Find(t); id >= 0) return id;
  return NewValue(ValueKind::kConst, t, "");
}

bool Tracer::IsDynamic(const Tensor& t) const {
  const int64_t id = Find(t);
  return id >= 0 && values_[static_cast<size_t>(id)].kind != ValueKind::kConst;
}

void Tracer::RecordPseudoOp(const std::string& type, const Tensor& input, const Tensor& out) {
  if (broken() || depth_ > 0) return;
  TracedOp op;
  op.type = type;
  op.inputs.push_back({ValueOf(input)});
  if (const std::string* path = CurrentLayerPath()) op.layer = *path;
  AddOp(std::move(op), out);
}

void Tracer::Break(std::string reason) {
  if (break_reason_.empty()) break_reason_ = std::move(reason);
}

void Tracer::CheckConstants() const {
  for (const TracedValue& v : values_) {
    if (v.kind != ValueKind::kConst) continue;
    OAR_ENFORCE(static_cast<int64_t>(v.tensor.current_inplace_version()) == v.version,
                errors::PreconditionNotMet(
                    "to_static(): a tensor that is neither an input nor a parameter of the "
                    "captured function (shape ",
                    v.tensor.shape(),
                    ") was written in place while capturing; pass it as "
                    "an input or register it as a buffer of the layer"));
  }
}

}  // namespace oar::jit
