// Graph capture: while a Tracer is current on a thread, every eager function
// called from outside another eager function records itself — its op name,
// which values its tensor arguments are, its attributes and its output — so a
// forward pass becomes a program of declared ops (oar.jit.to_static,
// docs/jit.md). The ops still run eagerly while they are recorded: capture is
// an eager run that also writes down what it did.
//
// Note [Capture records the outermost eager call]
// Eager functions call each other (promotion casts then calls the op again,
// auto-cast casts, compositions call their parts). Only the call made from
// outside any eager function is recorded: replaying it repeats everything it
// did inside, so recording the inner calls too would run them twice. A
// thread-local depth tells the two apart; it costs one thread-local load per
// op when no capture runs.
//
// Note [Values are tensor impls]
// A value of the program is a tensor impl (the storage handle every Tensor of
// it shares). The tracer holds a reference to every impl it has seen, so no
// impl is freed and its address reused by another tensor while a capture
// runs. An in-place op rebinds its input's impl to a new value (the program is
// in SSA form); a tensor first seen as an op input that is neither an input of
// the program nor a registered parameter is a constant.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "oar/core/dtype.h"
#include "oar/core/macros.h"
#include "oar/core/scalar.h"
#include "oar/core/tensor.h"

namespace oar::jit {

// An attribute value, one per non-tensor argument of the op's declaration
// (strings and float and string lists: a custom op's, external_op.h).
using AttrValue = std::variant<bool, int64_t, double, Scalar, std::vector<int64_t>, DType,
                               std::string, std::vector<double>, std::vector<std::string>>;

// One tensor argument of a recorded call: a Tensor or a Tensor[].
class TensorArg {
 public:
  TensorArg(const Tensor& t) : one_(&t) {}                      // NOLINT: implicit by design
  TensorArg(const std::vector<Tensor>& list) : list_(&list) {}  // NOLINT
  const Tensor* one() const { return one_; }
  const std::vector<Tensor>* list() const { return list_; }

 private:
  const Tensor* one_ = nullptr;
  const std::vector<Tensor>* list_ = nullptr;
};

enum class ValueKind : uint8_t { kInput, kParam, kConst, kOp };

struct TracedValue {
  ValueKind kind;
  Tensor tensor;     // keeps the impl alive (Note [Values are tensor impls])
  std::string name;  // a parameter's name
  int64_t version;   // a constant's inplace version when first seen
};

struct TracedOp {
  std::string type;                          // the op ("add", or "add_" in place)
  std::vector<std::vector<int64_t>> inputs;  // value ids per tensor argument ([] undefined)
  std::vector<AttrValue> attrs;              // the declaration's attributes in order
  int64_t output = -1;                       // the first output; several are consecutive values
  int64_t num_outputs = 1;                   // more than one only for a custom op
  std::vector<int64_t> shape;                // the first output's shape when it was recorded
  std::string layer;                         // the oar.nn.Layer path that ran it
};

class Tracer;
namespace detail {
// The tracer of this thread (Tracer::Current).
extern constinit OAR_HOT_TLS thread_local Tracer* tls_tracer;
}  // namespace detail

class Tracer {
 public:
  explicit Tracer(bool full_graph) : full_graph_(full_graph) {}
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  // The tracer of this thread, or null when no capture runs (read inline by every op).
  static Tracer* Current();
  // Makes tracer (or null) current on this thread; returns the one that was.
  static Tracer* Exchange(Tracer* tracer);
  // Makes tracer current on this thread for the guard's lifetime.
  class ActiveGuard {
   public:
    explicit ActiveGuard(Tracer* tracer);
    ~ActiveGuard();
    ActiveGuard(const ActiveGuard&) = delete;
    ActiveGuard& operator=(const ActiveGuard&) = delete;

   private:
    Tracer* previous_;
  };

  // One eager call being recorded (Note [Capture records the outermost eager call]).
  // Made by the generated eager functions when Current() is set and not nested;
  // Finish records the output, the destructor ends the nesting (also on throw).
  class Recording {
   public:
    Recording(Tracer& tracer, const char* op, std::initializer_list<TensorArg> inputs,
              std::initializer_list<AttrValue> attrs);
    // An op that is not declared (a custom op, Note [Programs call ops from
    // outside the declarations]), with any number of outputs.
    Recording(Tracer& tracer, std::string op, const std::vector<TensorArg>& inputs,
              std::vector<AttrValue> attrs);
    ~Recording() { --tracer_.depth_; }
    Recording(const Recording&) = delete;
    Recording& operator=(const Recording&) = delete;
    Tensor Finish(Tensor out);
    Tensor& FinishInplace(Tensor& out);
    // Records outs as the op's outputs, in order (none undefined).
    void FinishAll(const std::vector<Tensor>& outs);

   private:
    template <typename Args>
    void AddInputs(const Args& inputs);

    Tracer& tracer_;
    TracedOp op_;
  };
  bool nested() const { return depth_ > 0; }

  // Program inputs and parameters, registered before the traced code runs.
  int64_t AddInput(const Tensor& t);
  int64_t AddParam(const std::string& name, const Tensor& t);
  // The value t is (registering it as a constant when first seen; -1 when undefined).
  int64_t ValueOf(const Tensor& t);
  // The value t is, or -1 if the tracer has not seen it.
  int64_t Find(const Tensor& t) const;
  // Whether t's value depends on the inputs or parameters (an op output, an
  // input or a parameter): Python may not read it while capturing.
  bool IsDynamic(const Tensor& t) const;
  // Records a call that is not a declared op (detach) with one input.
  void RecordPseudoOp(const std::string& type, const Tensor& input, const Tensor& out);

  // Stops recording: the capture cannot express what just happened. The first
  // reason is kept; later ops run eagerly and are not recorded.
  void Break(std::string reason);
  bool broken() const { return !break_reason_.empty(); }
  const std::string& break_reason() const { return break_reason_; }
  bool full_graph() const { return full_graph_; }

  const std::vector<TracedValue>& values() const { return values_; }
  const std::vector<TracedOp>& ops() const { return ops_; }
  // Typed error if a constant was written while capturing (its value at the
  // start of the program is gone).
  void CheckConstants() const;

 private:
  int64_t NewValue(ValueKind kind, const Tensor& t, std::string name);
  // Records op with outs as its outputs (new values) and the first one's shape.
  void AddOp(TracedOp op, const Tensor& out);
  void AddOp(TracedOp op, const std::vector<Tensor>& outs);

  bool full_graph_;
  int depth_ = 0;
  std::string break_reason_;
  std::vector<TracedValue> values_;
  std::vector<TracedOp> ops_;
  std::unordered_map<const TensorBase*, int64_t> ids_;
};

inline Tracer* Tracer::Current() { return detail::tls_tracer; }

}  // namespace oar::jit
