// Folding a loaded program's convolutions for serving (docs/jit.md): each
// conv -> batch_norm_infer [-> add] [-> relu] group whose weight and batch
// norm tensors are parameters or constants, and whose intermediates nothing
// else reads, runs as one oneDNN convolution with the batch norm folded into
// its weight and bias, the weight packed once, and the add and relu applied as
// post-ops (Note [Convolutions folded for inference] in
// kernels/cpu/conv_inference.h). A 2-D max_pool is a group of its own: given
// the channels-last output of a folded convolution it pools in that layout
// (kernels/cpu/max_pool_channels_last.h), so the next one reads it as is. Module::Forward builds
// the folding when it loads a model (Note [A loaded module is shared read-only]: its weights never
// change); a Python replay, whose parameters may be trained, runs the ops.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "oar/core/tensor.h"
#include "oar/kernels/cpu/conv_inference.h"

namespace oar::jit {

struct Program;

struct ConvGroup {
  size_t first = 0, last = 0;  // the program's ops first..last (inclusive)
  bool max_pool = false;       // a max_pool op (x, output, spec.strides and paddings)
  std::vector<int64_t> kernel_size;
  bool ceil_mode = false;
  int64_t x = -1;
  int64_t weight = -1, mean = -1, variance = -1, scale = -1, shift = -1;
  int64_t residual = -1;        // the add's other operand, -1 without an add
  int64_t output = -1;          // the last op's output
  bool program_output = false;  // returned by the program: kept contiguous
  // Where folded groups alone read the output (set by FoldedConvs): those that read it as
  // their input, in program order (the first one's input layout is the one the output
  // may take), and how many reads they all make (as input or residual); else none and 0
  // (Note [A convolution's only reader takes its output blocked], Note [A block's output
  // stays in blocks for both its readers]).
  std::vector<int64_t> readers;
  int64_t reads = 0;
  double epsilon = 0;
  conv_engine::InferenceConvSpec spec;
};

// The groups of program, in program order (structure only: dtypes and shapes
// are checked when the weights are known).
std::vector<ConvGroup> PlanConvGroups(const Program& program);

// An output one call keeps in the layout of a folded convolution that reads it, until
// its last folded reader takes it (Note [A convolution's only reader takes its output
// blocked] in kernels/cpu/conv_inference.cc).
struct HeldBlocked {
  int64_t id = -1;  // the value's index
  conv_engine::BlockedActivation value;
  int64_t reads_left = 0;
};
using BlockedValues = std::vector<HeldBlocked>;

class FoldedConvs {
 public:
  // Folds the groups whose weights (params and consts, in the program's order)
  // are float32 of the shapes a batch norm after that convolution needs.
  FoldedConvs(const Program& program, const std::vector<Tensor>& params,
              const std::vector<Tensor>& consts);
  ~FoldedConvs();

  // The group starting at op k, or null.
  const ConvGroup* At(size_t k) const;
  // The prepared convolution of a group At returned (null for a max_pool).
  const conv_engine::InferenceConv* Conv(const ConvGroup& group) const;
  // Runs group on values (the replay's table) and stores its output there, or in
  // `blocked` where its readers take it so; false when this call cannot take the
  // folded path (a gradient to record, auto-cast, the NaN/Inf check, a capture
  // recording, or operands the folded kernel does not take), touching nothing but
  // operands held in `blocked`, which it moves to values as tensors.
  bool Run(const ConvGroup& group, std::vector<Tensor>& values, BlockedValues& blocked) const;
  size_t size() const { return groups_.size(); }

 private:
  bool RunMaxPool(const ConvGroup& group, std::vector<Tensor>& values,
                  BlockedValues& blocked) const;
  // Whether max_pool groups make all the reads of group's output.
  bool ReadByPoolsAlone(const ConvGroup& group) const;
  // The first of the convolutions that read group's output as their input, where they all
  // read an input of out_dims in its layout; else null.
  const conv_engine::InferenceConv* FirstConvReader(const ConvGroup& group,
                                                    const DDim& out_dims) const;

  std::vector<ConvGroup> groups_;
  std::vector<std::unique_ptr<conv_engine::InferenceConv>> convs_;
  std::vector<int64_t> at_;  // per op: the group starting there, -1 none
};

}  // namespace oar::jit
