"""oar: an eager-mode deep-learning framework with Paddle's API.

    import oar
    x = oar.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    y = (x * x).sum()
    y.backward()
    x.grad  # [2., 4., 6.]
"""
import os as _os
import sys as _sys

# Note [OpenMP's spinning and oar's pool]: OpenBLAS and oneDNN run on OpenMP, oar's
# own loops on its intra-op pool (src/oar/core/parallel.h). libgomp's default keeps
# an idle team thread spinning for 300,000 rounds after each GEMM or convolution,
# which holds the core the pool's worker needs for the next elementwise op (the demo
# CNN's step: 50-60 ms against 33-39 ms with 1,000 rounds, benchmarks/training.py).
# libgomp reads these variables when it is loaded, i.e. by the import of _C below;
# a value the user set is kept.
if "OMP_WAIT_POLICY" not in _os.environ and "GOMP_SPINCOUNT" not in _os.environ:
    _os.environ["GOMP_SPINCOUNT"] = "1000"

# mimalloc (oar's tensor memory) returns freed memory to the OS after 10 ms by
# default, so a loop that frees and reallocates the same megabytes pays page faults
# on every new tensor (layer_norm forward+backward at 256x1024: 0.20 ms, or 0.31-0.42
# ms once earlier ops had freed larger blocks; benchmarks/kernels.py). A second keeps
# a running loop's memory mapped. mimalloc reads these when _C loads it.
_os.environ.setdefault("MIMALLOC_DECOMMIT_DELAY", "1000")  # mimalloc 2.0
_os.environ.setdefault("MIMALLOC_PURGE_DELAY", "1000")  # its name from 2.1 on
# The delay does not reach blocks too large for mimalloc's segments: 2.0 maps each
# such block (a 16 MB tensor) when it is allocated and unmaps it when it is freed
# (strace), so every new tensor of that size faults its pages in again (fft of 2^20
# complex128 points, 2 threads: 13-14 ms, 4.2-4.4 with an arena; docs/fft.md). Blocks
# from a reserved arena are kept and purged after the delay like the rest. The arena
# costs address space, not memory (pages are backed as they are touched); a larger
# working set falls back to mapping as before.
_os.environ.setdefault("MIMALLOC_RESERVE_OS_MEMORY", "1GiB")

from . import _C
_C._cpu_isa()  # a bad OAR_MAX_CPU_ISA fails the import, not a later op (oar.device.cpu_isa)
from .framework.dtype import (CPUPlace, Place, bfloat16, bool_, complex64, complex128,
                              convert_dtype, dtype, float16, float32, float64, int8, int16, int32,
                              int64, uint8, uint16, uint32, uint64, float8_e4m3fn, float8_e5m2)
from . import _tensor_patch  # noqa: F401  (numpy(), repr, indexing)
from ._printing import set_printoptions  # noqa: F401
from .framework.size import Size  # noqa: F401
from ._creation import (arange, empty, empty_like, eye, full, full_like, linspace,  # noqa: F401
                        normal, ones, ones_like, rand, randint, randn, seed,
                        standard_normal, to_tensor, uniform, zeros, zeros_like)
from ._dtype_query import is_complex, is_floating_point, is_integer  # noqa: F401
from .framework.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from ._ops import (cast, clone, flatten, gather, nonzero, pow, slice, split,  # noqa: F401
                   stack, t, where)
from ._manipulation import (bmm, broadcast_tensors, broadcast_to, chunk, cross, diag,  # noqa: F401
                            dot, einsum, expand_as, kron, meshgrid, moveaxis, outer,
                            repeat_interleave, rot90, tile, trace, unflatten, unfold, unstack)
from ._indexing import index_put, index_put_, put_along_axis, put_along_axis_  # noqa: F401
from ._math_logic import (clip, clip_, lerp, lerp_, masked_fill, masked_fill_,  # noqa: F401
                          nan_to_num, nan_to_num_)
from . import autograd, nn  # noqa: F401
from .framework import LazyGuard, ParamAttr, create_parameter  # noqa: F401
from .framework.io import load, save  # noqa: F401
from . import amp, io, optimizer, regularizer, vision, viz  # noqa: F401
from .amp import (get_autocast_cpu_dtype, get_autocast_dtype,  # noqa: F401 - Paddle's
                  get_autocast_gpu_dtype, is_autocast_enabled)  # top-level aliases
from . import callbacks, metric, static  # noqa: F401
from .hapi import Model, flops, summary  # noqa: F401
from ._stats import (bernoulli, bincount, cummax, cummin, histogram, kthvalue,  # noqa: F401
                     median, mode, norm, randint_like, sort, topk, triu_indices, unique)
from . import linalg  # noqa: F401
from .linalg import eigvalsh  # noqa: F401 - Paddle's top-level alias
from . import profiler  # noqa: F401
from . import distributed  # noqa: F401
from .distributed import DataParallel  # noqa: F401
from .autograd import grad  # noqa: F401
from . import device, distribution, utils, version  # noqa: F401
from . import fft, signal, audio  # noqa: F401  (docs/fft.md, docs/audio.md)
from . import sparse  # noqa: F401
from . import random  # noqa: F401,A004  (paddle.random: initial_seed)
from .device import (CUDAPinnedPlace, CUDAPlace, IPUPlace, XPUPinnedPlace, XPUPlace,  # noqa: F401
                     get_device,
                     is_compiled_with_cinn, is_compiled_with_cuda,
                     is_compiled_with_custom_device, is_compiled_with_distribute,
                     is_compiled_with_ipu, is_compiled_with_rocm, is_compiled_with_xpu,
                     set_device)
from .framework.mode import disable_static, enable_static, in_dynamic_mode  # noqa: F401
# Paddle's small namespaces and the PyTorch-compatible API (docs/compat.md), graph
# learning (docs/geometric.md)
from . import base, compat, geometric, jit, sysconfig, text  # noqa: F401
from .framework.flags import get_flags, set_flags  # noqa: F401
from .base import disable_signal_handler  # noqa: F401
from .compat import disable_torch_proxy as disable_compat  # noqa: F401
from .compat import enable_torch_proxy as enable_compat  # noqa: F401
from . import incubate, quantization  # noqa: F401
from . import special  # noqa: F401  (paddle.special: PyTorch-style names; after compat)
# Paddle's top-level functions, Tensor methods and the oar.tensor namespace beyond the
# declared ops (docs/paddle_api_extra.md); their names join __all__ below.
from . import _framework_extra, _manip_extra, _math_extra, _tensor_extra  # noqa: F401
from ._math_extra import *  # noqa: F401,F403 - Paddle's math functions and aliases
from ._manip_extra import *  # noqa: F401,F403 - manipulation, indexing, scattering
from ._framework_extra import *  # noqa: F401,F403 - Size, finfo, dlpack, rng state, ...
# Paddle's top-level constants, dtype aliases (float, double, ...), PyTorch-style aliases
# and in-place functions (docs/paddle_api_extra.md), all in __all__ as in Paddle's: so
# `from oar import *` binds float to oar.float32, as `from paddle import *` binds it to
# paddle.float32 (and bool to the dtype, as both did already).
from ._paddle_aliases import *  # noqa: F401,F403,A001
from ._paddle_inplace import *  # noqa: F401,F403
from .framework.dtype_aliases import *  # noqa: F401,F403,A001 - oar.float is oar.float32 (no later
# code of this module calls the builtin float)
from .framework import dtype_aliases as _dtype_aliases
from . import _paddle_aliases, _paddle_inplace  # their __all__ join oar's
# Paddle's legacy typed-tensor constructors (FloatTensor, LongTensor, ...; oar.device's
# own, as in Paddle) and its Generator class, which oar.seed's generator is an instance
# of (docs/paddle_api_extra.md)
from .device import _tensor_types
from .device._tensor_types import *  # noqa: F401,F403
from .framework.random import Generator  # noqa: F401

Tensor = _C.Tensor
bool = bool_  # noqa: A001 - Paddle's name
memory_stats = _C.memory_stats

# The public ops: those src/oar/ops/ declares with `python: [function, ...]`, as the
# generated C functions themselves (no Python overhead), unless a Python wrapper
# above gives the op Paddle's signature. Internal ops (*_grad, set_value, sum_to,
# ...) stay in oar._C, where tests and wrappers reach them.
for _name in _C._public_ops:
    globals().setdefault(_name, getattr(_C, _name))

__all__ = sorted(set(_C._public_ops) | {
    "CPUPlace", "Place", "Size", "Tensor", "bfloat16", "bool", "complex64", "complex128",
    "convert_dtype",
    "dtype", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
    "uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2", "is_complex", "is_floating_point", "is_integer",
    "arange", "empty", "empty_like", "eye", "full", "full_like", "linspace", "normal", "ones",
    "ones_like", "rand", "randint", "randn", "seed", "standard_normal", "to_tensor", "uniform",
    "zeros", "zeros_like",
    "enable_grad", "is_grad_enabled", "no_grad", "set_grad_enabled", "grad",
    "cast", "clone", "flatten", "gather", "nonzero", "numel", "pow", "slice", "split", "stack",
    "t", "where",
    "autograd", "nn", "set_flags", "get_flags", "memory_stats",
    # training (oar.nn layers, optimizers, data, checkpoints, the high-level API)
    "LazyGuard", "ParamAttr", "create_parameter", "load", "save", "io", "optimizer", "regularizer", "vision",
    "callbacks", "metric", "static", "Model", "summary", "flops", "profiler",
    # shape manipulation and small linear algebra (_manipulation.py)
    "bmm", "broadcast_tensors", "broadcast_to", "chunk", "cross", "diag", "dot", "einsum",
    "expand_as", "kron", "meshgrid", "moveaxis", "outer", "repeat_interleave", "rot90", "tile",
    "trace", "unflatten", "unfold", "unstack",
    "index_put", "index_put_", "put_along_axis", "put_along_axis_",
    # statistics, search, scans and random ops with Python signatures (_stats.py)
    "bernoulli", "bincount", "cummax", "cummin", "histogram", "kthvalue", "median", "mode",
    "norm", "randint_like", "sort", "topk", "triu_indices", "unique", "linalg", "eigvalsh",
    # data-parallel training across processes (oar.distributed, docs/distributed.md)
    "distributed", "DataParallel",
    # the device and mode API (device/, _mode.py), version, utils
    "device", "distribution", "utils", "version", "CUDAPinnedPlace", "CUDAPlace", "IPUPlace",
    "XPUPinnedPlace", "XPUPlace",
    "get_device", "set_device", "is_compiled_with_cinn", "is_compiled_with_cuda",
    "is_compiled_with_custom_device", "is_compiled_with_distribute", "is_compiled_with_ipu",
    "is_compiled_with_rocm", "is_compiled_with_xpu", "disable_static", "enable_static",
    "in_dynamic_mode",
    # Paddle's small namespaces, the PyTorch-compatible API, graph learning
    "base", "compat", "geometric", "jit", "sysconfig", "text", "enable_compat", "disable_compat",
    "disable_signal_handler",
    # incubating APIs and simulated quantization (docs/incubate.md, docs/quantization.md)
    "incubate", "quantization",
    # printing (_printing.py)
    "set_printoptions",
    # Fourier transforms, short-time transforms, audio features and WAV I/O (docs/fft.md)
    "fft", "signal", "audio",
    # sparse COO/CSR tensors (sparse/, docs/sparse.md)
    "sparse",
    # paddle.random's initial_seed; the generator class
    "random", "Generator",
    # the auto-cast state (amp/auto_cast.py)
    "is_autocast_enabled", "get_autocast_dtype", "get_autocast_cpu_dtype",
    "get_autocast_gpu_dtype",
} | set(_math_extra.__all__) | set(_manip_extra.__all__) | set(_framework_extra.__all__)
    | set(_paddle_aliases.__all__) | set(_paddle_inplace.__all__) | set(_dtype_aliases.__all__)
    | set(_tensor_types.__all__))
del _name
_framework_extra._build_tensor_namespace(_sys.modules[__name__])

__version__ = version.full_version
