// FLAGS_check_nan_inf_level: what the NaN/Inf check does (Paddle's flag). Read only
// when FLAGS_check_nan_inf is on, so it is not in the Flags struct of flags.h, whose
// header every kernel includes (set and read through SetFlag/GetFlag like the rest).
#pragma once

namespace oar {

// 0 raises on NaN/Inf; 1 logs tensors with NaN/Inf and goes on; 2 also logs float32
// values beyond the float16 range; 3 logs every checked tensor
// (src/oar/api/nan_inf_check.h).
int FLAGS_check_nan_inf_level();

}  // namespace oar
