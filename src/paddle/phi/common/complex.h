// Paddle's include path for phi::dtype::complex (paddle::complex64, complex128): oar's
// definition (src/oar/extension/complex.h, docs/custom_ops.md).
#pragma once

#include "oar/extension/complex.h"
