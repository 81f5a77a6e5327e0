// The flag the convolution kernels read to pick their algorithm. It is set and
// read by name like every flag (SetFlag/GetFlag in flags.h) but declared here,
// apart from flags.h, which nearly every file includes: flipping the algorithm
// recompiles the convolution kernels, not the rest.
#pragma once

namespace oar {

// A 3x3 stride-1 float32 convolution may run Winograd's algorithm where it is
// faster: the eager passes (Note [Winograd's algorithm in the eager
// convolution] in kernels/cpu/conv_impl.h) and the C++ runtime's folded
// convolutions (Note [Winograd's algorithm for small activations] in
// kernels/cpu/conv_inference.h); off: always the direct algorithm. A folded
// convolution reads it when its model is loaded.
bool FLAGS_conv_winograd();

}  // namespace oar
