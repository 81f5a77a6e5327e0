// A CUDA source: load() refuses it (oar has no GPU backend).
#include "paddle/extension.h"
