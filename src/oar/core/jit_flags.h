// The flags only the C++ runtime of captured programs reads (src/oar/jit/). They
// are set and read by name like every flag (SetFlag/GetFlag in flags.h) but
// declared here, apart from flags.h, which nearly every file includes: a flag
// for the runtime recompiles the runtime, not the kernels.
#pragma once

namespace oar {

// oar::jit::Load folds the inference program's conv + batch norm groups
// (src/oar/jit/conv_folding.h); off: they run op by op.
bool FLAGS_jit_fold_conv();

}  // namespace oar
