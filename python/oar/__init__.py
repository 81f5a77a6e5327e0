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

# ---- the framework: dtypes, places, defaults, constants, printing, random state -----------
from .framework.dtype import (CPUPlace, Place, bfloat16, bool_, complex64, complex128,
                              convert_dtype, dtype, float16, float32, float64, int8, int16, int32,
                              int64, uint8, uint16, uint32, uint64, float8_e4m3fn, float8_e5m2)
from .framework.dtype import finfo, get_default_dtype, iinfo, set_default_dtype
from .framework.constants import e, inf, nan, newaxis, pi
from .framework.printing import set_printoptions
from .framework.size import Size
from .framework.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .framework.random import (Generator, get_cuda_rng_state, get_rng_state, set_cuda_rng_state,
                               set_rng_state)
from .framework.dlpack import from_dlpack, to_dlpack
from .framework.memory import MmapStorage
from .framework.batch import batch
from .framework import LazyGuard, ParamAttr, create_parameter
from .framework.io import load, save
from .framework.mode import disable_static, enable_static, in_dynamic_mode
from .framework.flags import get_flags, set_flags

# ---- the tensor functions, by subject (oar/tensor/, as Paddle's paddle/tensor/); importing
# oar.tensor binds the Tensor methods written in Python (oar/tensor/methods.py) ----------
from . import tensor
from .tensor.attribute import (check_shape, is_complex, is_floating_point, is_integer,
                               rank, shape)
from .tensor.creation import (arange, as_tensor, asarray, clone, create_tensor, diag,
                              diagflat, empty, empty_like, eye, from_numpy, full,
                              full_like, linspace, logspace, ones, ones_like, polar,
                              range, to_tensor, triu_indices, zeros, zeros_like)
from .tensor.random import (bernoulli, log_normal, manual_seed, normal, rand, rand_like,
                            randint, randint_like, randn, randn_like, seed,
                            standard_normal, uniform)
from .tensor.manipulation import (assign, atleast_1d, atleast_2d, atleast_3d,
                                  block_diag, broadcast_shape, broadcast_shapes,
                                  broadcast_tensors, broadcast_to, cartesian_prod, cast,
                                  cat, chunk, column_stack, concatenate, crop, dsplit,
                                  dstack, expand_as, flatten, gather, hsplit, hstack,
                                  masked_fill, masked_fill_, matrix_transpose, meshgrid,
                                  moveaxis, multiplex, narrow, permute, ravel,
                                  repeat_interleave, reverse, rot90, row_stack,
                                  shard_index, slice, split, stack, swapaxes, swapdims,
                                  tensor_split, tile, tolist, unbind, unflatten, unfold,
                                  unique, unique_consecutive, unstack, view, view_as,
                                  view_as_complex, view_as_real, vsplit, vstack)
from .tensor.indexing import (diagonal_scatter, index_fill, index_put, index_put_,
                              masked_scatter, put_along_axis, put_along_axis_,
                              scatter_add, scatter_reduce, select_scatter,
                              slice_scatter, take, take_along_dim)
from .tensor.search import (argwhere, bucketize, index_sample, kthvalue, mode, msort,
                            nonzero, searchsorted, sort, topk, where)
from .tensor.math import (add_n, addmm, baddbmm, clamp, clip, clip_, combinations,
                          copysign, cummax, cummin, cumulative_trapezoid, deg2rad, diff,
                          div, floor_mod, fmax, fmin, frac, frexp, gammaln, increment,
                          inner, isneginf, isposinf, isreal, kron, ldexp, lerp, lerp_,
                          logcumsumexp, logit, mm, mod, mul, multigammaln, nan_to_num,
                          nan_to_num_, nanmean, nansum, negative, outer, positive, pow,
                          rad2deg, reduce_as, renorm, sgn, stanh, sub, trace, trapezoid,
                          true_divide, vander, vecdot)
from .tensor.logic import (bitwise_invert, eq, ge, greater, gt, is_empty, is_tensor,
                           isin, le, less, lt, ne)
from .tensor.stat import (mean, median, nanmedian, nanquantile, numel, quantile)
from .tensor.linalg import (bincount, bmm, cdist, cross, dist, dot, eigvalsh, ger,
                            histogram, histogram_bin_edges, histogramdd, mv, norm,
                            pdist, t, tensordot)
from .tensor.einsum import einsum
from .tensor.inplace import (abs_, addmm_, baddbmm_, bernoulli_, bitwise_invert_,
                             bitwise_left_shift_, bitwise_right_shift_, cast_, cauchy_,
                             copysign_, cos_, cumprod_, cumsum_, digamma_, div_, equal_,
                             erf_, flatten_, floor_mod_, frac_, gammainc_, gammaincc_,
                             gammaln_, gcd_, geometric_, greater_equal_, greater_than_,
                             hypot_, i0_, index_fill_, lcm_, ldexp_, less_, less_equal_,
                             less_than_, lgamma_, log_, log_normal_, logical_and_,
                             logical_not_, logical_or_, logical_xor_, logit_,
                             masked_scatter_, mod_, multigammaln_, neg_, normal_,
                             not_equal_, polygamma_, pow_, renorm_, reshape_,
                             scatter_add_, sin_, sinc_, squeeze_, sub_, t_, transpose_,
                             tril_, triu_, unsqueeze_, where_)

# ---- the namespaces ------------------------------------------------------------------------
from . import autograd, nn
from . import amp, io, optimizer, regularizer, vision, viz
from . import callbacks, metric, static
from . import linalg, profiler, distributed
from . import device, distribution, utils, version
from . import fft, signal, audio  # docs/fft.md, docs/audio.md
from . import sparse  # docs/sparse.md
from . import random  # noqa: A004 - paddle.random: initial_seed
# Paddle's small namespaces and the PyTorch-compatible API (docs/compat.md), graph
# learning (docs/geometric.md), incubating APIs, simulated quantization
from . import base, compat, geometric, jit, sysconfig, text
from . import incubate, quantization
from . import special  # paddle.special: PyTorch-style names; after compat

# ---- Paddle's top-level names from the namespaces ----------------------------------------
from .amp import (get_autocast_cpu_dtype, get_autocast_dtype, get_autocast_gpu_dtype,
                  is_autocast_enabled)
from .amp.auto_cast import autocast
from .autograd import grad
from .hapi import Model, flops, summary
from .distributed import DataParallel
from .device import (CUDAPinnedPlace, CUDAPlace, IPUPlace, XPUPinnedPlace, XPUPlace, get_device,
                     is_compiled_with_cinn, is_compiled_with_cuda,
                     is_compiled_with_custom_device, is_compiled_with_distribute,
                     is_compiled_with_ipu, is_compiled_with_rocm, is_compiled_with_xpu,
                     set_device)
from .base import disable_signal_handler
from .compat import disable_torch_proxy as disable_compat
from .compat import enable_torch_proxy as enable_compat
from .nn.functional import (adaptive_avg_pool1d, conv1d, conv2d, conv3d, group_norm,
                            layer_norm)
# Paddle's dtype aliases (float, double, ...), in __all__ as in Paddle's: so `from oar
# import *` binds float to oar.float32, as `from paddle import *` binds it to
# paddle.float32 (and bool to the dtype, as both did already); no later code of this
# module calls the builtin float.
from .framework.dtype_aliases import *  # noqa: F403,A001
from .framework import dtype_aliases as _dtype_aliases
# Paddle's legacy typed-tensor constructors (FloatTensor, LongTensor, ...; oar.device's
# own, as in Paddle)
from .device import _tensor_types
from .device._tensor_types import *  # noqa: F403

Tensor = _C.Tensor
bool = bool_  # noqa: A001 - Paddle's name
memory_stats = _C.memory_stats

# The public ops: those src/oar/ops/ declares with `python: [function, ...]`, as the
# generated C functions themselves (no Python overhead), unless a Python wrapper
# above gives the op Paddle's signature. Internal ops (*_grad, set_value, sum_to,
# ...) stay in oar._C, where tests and wrappers reach them.
for _name in _C._public_ops:
    globals().setdefault(_name, getattr(_C, _name))
del _name

# `from oar import *`: the public ops, the names above and Paddle's dtype aliases.
__all__ = sorted(set(_C._public_ops) | set(_dtype_aliases.__all__) | set(_tensor_types.__all__) | {
    "CPUPlace", "CUDAPinnedPlace", "CUDAPlace", "DataParallel", "Generator", "IPUPlace",
    "LazyGuard", "MmapStorage", "Model", "ParamAttr", "Place", "Size", "Tensor",
    "XPUPinnedPlace", "XPUPlace", "abs_", "adaptive_avg_pool1d", "add_n", "addmm",
    "addmm_", "arange", "argwhere", "as_tensor", "asarray", "assign", "atleast_1d",
    "atleast_2d", "atleast_3d", "audio", "autocast", "autograd", "baddbmm", "baddbmm_",
    "base", "batch", "bernoulli", "bernoulli_", "bfloat16", "bincount",
    "bitwise_invert", "bitwise_invert_", "bitwise_left_shift_", "bitwise_right_shift_",
    "block_diag", "bmm", "bool", "broadcast_shape", "broadcast_shapes",
    "broadcast_tensors", "broadcast_to", "bucketize", "callbacks", "cartesian_prod",
    "cast", "cast_", "cat", "cauchy_", "cdist", "check_shape", "chunk", "clamp",
    "clone", "column_stack", "combinations", "compat", "complex128", "complex64",
    "concatenate", "conv1d", "conv2d", "conv3d", "convert_dtype", "copysign",
    "copysign_", "cos_", "create_parameter", "create_tensor", "crop", "cross", "cummax",
    "cummin", "cumprod_", "cumsum_", "cumulative_trapezoid", "deg2rad", "device",
    "diag", "diagflat", "diagonal_scatter", "diff", "digamma_", "disable_compat",
    "disable_signal_handler", "disable_static", "dist", "distributed", "distribution",
    "div", "div_", "dot", "dsplit", "dstack", "dtype", "e", "eigvalsh", "einsum",
    "empty", "empty_like", "enable_compat", "enable_grad", "enable_static", "eq",
    "equal_", "erf_", "expand_as", "eye", "fft", "finfo", "flatten", "flatten_",
    "float16", "float32", "float64", "float8_e4m3fn", "float8_e5m2", "floor_mod",
    "floor_mod_", "flops", "fmax", "fmin", "frac", "frac_", "frexp", "from_dlpack",
    "from_numpy", "full", "full_like", "gammainc_", "gammaincc_", "gammaln", "gammaln_",
    "gather", "gcd_", "ge", "geometric", "geometric_", "ger", "get_autocast_cpu_dtype",
    "get_autocast_dtype", "get_autocast_gpu_dtype", "get_cuda_rng_state",
    "get_default_dtype", "get_device", "get_flags", "get_rng_state", "grad", "greater",
    "greater_equal_", "greater_than_", "group_norm", "gt", "histogram",
    "histogram_bin_edges", "histogramdd", "hsplit", "hstack", "hypot_", "i0_", "iinfo",
    "in_dynamic_mode", "increment", "incubate", "index_fill", "index_fill_",
    "index_put", "index_put_", "index_sample", "inf", "inner", "int16", "int32",
    "int64", "int8", "io", "is_autocast_enabled", "is_compiled_with_cinn",
    "is_compiled_with_cuda", "is_compiled_with_custom_device",
    "is_compiled_with_distribute", "is_compiled_with_ipu", "is_compiled_with_rocm",
    "is_compiled_with_xpu", "is_complex", "is_empty", "is_floating_point",
    "is_grad_enabled", "is_integer", "is_tensor", "isin", "isneginf", "isposinf",
    "isreal", "jit", "kron", "kthvalue", "layer_norm", "lcm_", "ldexp", "ldexp_", "le",
    "less", "less_", "less_equal_", "less_than_", "lgamma_", "linalg", "linspace",
    "load", "log_", "log_normal", "log_normal_", "logcumsumexp", "logical_and_",
    "logical_not_", "logical_or_", "logical_xor_", "logit", "logit_", "logspace", "lt",
    "manual_seed", "masked_scatter", "masked_scatter_", "matrix_transpose", "mean",
    "median", "memory_stats", "meshgrid", "metric", "mm", "mod", "mod_", "mode",
    "moveaxis", "msort", "mul", "multigammaln", "multigammaln_", "multiplex", "mv",
    "nan", "nanmean", "nanmedian", "nanquantile", "nansum", "narrow", "ne", "neg_",
    "negative", "newaxis", "nn", "no_grad", "nonzero", "norm", "normal", "normal_",
    "not_equal_", "numel", "ones", "ones_like", "optimizer", "outer", "pdist",
    "permute", "pi", "polar", "polygamma_", "positive", "pow", "pow_", "profiler",
    "put_along_axis", "put_along_axis_", "quantile", "quantization", "rad2deg", "rand",
    "rand_like", "randint", "randint_like", "randn", "randn_like", "random", "range",
    "rank", "ravel", "reduce_as", "regularizer", "renorm", "renorm_",
    "repeat_interleave", "reshape_", "reverse", "rot90", "row_stack", "save",
    "scatter_add", "scatter_add_", "scatter_reduce", "searchsorted", "seed",
    "select_scatter", "set_cuda_rng_state", "set_default_dtype", "set_device",
    "set_flags", "set_grad_enabled", "set_printoptions", "set_rng_state", "sgn",
    "shape", "shard_index", "signal", "sin_", "sinc_", "slice", "slice_scatter", "sort",
    "sparse", "split", "squeeze_", "stack", "standard_normal", "stanh", "static", "sub",
    "sub_", "summary", "swapaxes", "swapdims", "sysconfig", "t", "t_", "take",
    "take_along_dim", "tensor", "tensor_split", "tensordot", "text", "tile",
    "to_dlpack", "to_tensor", "tolist", "topk", "trace", "transpose_", "trapezoid",
    "tril_", "triu_", "triu_indices", "true_divide", "uint16", "uint32", "uint64",
    "uint8", "unbind", "unflatten", "unfold", "uniform", "unique", "unique_consecutive",
    "unsqueeze_", "unstack", "utils", "vander", "vecdot", "version", "view", "view_as",
    "view_as_complex", "view_as_real", "vision", "vsplit", "vstack", "where", "where_",
    "zeros", "zeros_like"
})
tensor._fill_namespace(_sys.modules[__name__])

__version__ = version.full_version
