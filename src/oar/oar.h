// oar's C++ API in one include: tensors, every op with autograd (oar::<op>),
// creation helpers, the engine (Backward(), Grad()) and grad-mode guards.
#pragma once

#include "oar/api/api.h"  // oar::api::<op>: the ops without autograd
#include "oar/autograd/accumulation_node.h"
#include "oar/autograd/backward.h"
#include "oar/autograd/custom_function.h"
#include "oar/autograd/forward_stack.h"
#include "oar/autograd/grad_node.h"
#include "oar/autograd/saved_tensors_hooks.h"
#include "oar/core/allocator.h"
#include "oar/core/errors.h"
#include "oar/core/flags.h"
#include "oar/core/generator.h"
#include "oar/core/grad_mode.h"
#include "oar/core/layer_scope.h"
#include "oar/core/profiler/profiler.h"
#include "oar/core/profiler/record_event.h"
#include "oar/core/tensor.h"
#include "oar/eager/creation.h"
#include "oar/eager/dygraph_functions.h"
#include "oar/eager/functional.h"
#include "oar/jit/module.h"
#include "oar/train/checkpoint.h"
#include "oar/train/conv_layers.h"
#include "oar/train/idx.h"
#include "oar/train/module.h"
#include "oar/train/optimizer.h"
#ifdef OAR_WITH_DISTRIBUTED  // built when Gloo is found (CMakeLists.txt)
#include "oar/distributed/data_parallel.h"
#include "oar/distributed/process_group.h"
#include "oar/distributed/reducer.h"
#endif
