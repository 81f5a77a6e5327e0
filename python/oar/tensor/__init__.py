"""oar.tensor: the tensor functions, by Paddle's subjects (as paddle/tensor/).

Lowest first (a module imports only those before it, docs/design.md "Python layers"):
attribute (dtype queries, shape), creation, search (sort, topk, where, ...),
manipulation (reshape, split, stack, ...), math, logic (comparisons), stat (mean,
median, quantile), linalg, einsum, indexing (tensor[...], put/take/scatter by index),
inplace (Paddle's x_ functions), random, conversion (numpy()), to_string (repr), and
methods: the one module that binds the Tensor methods written in Python.

oar.tensor is also callable, as paddle.tensor: oar.tensor(data, dtype=None, ...) is a
new tensor holding a copy of data.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from .. import _C
from . import (  # noqa: F401
    attribute,
    conversion,
    creation,
    einsum,
    indexing,
    inplace,
    linalg,
    logic,
    manipulation,
    math,
    methods,
    random,
    search,
    stat,
    to_string,
)
from .creation import _tensor_fn, create_tensor

Tensor = _C.Tensor

# The submodules of Paddle's paddle.tensor and the names each holds (those oar has).
_TENSOR_SUBMODULES = {
    "creation": [
        "to_tensor",
        "zeros",
        "ones",
        "full",
        "empty",
        "arange",
        "linspace",
        "logspace",
        "eye",
        "zeros_like",
        "ones_like",
        "full_like",
        "empty_like",
        "diag",
        "diagflat",
        "diag_embed",
        "tril",
        "triu",
        "tril_indices",
        "triu_indices",
        "meshgrid",
        "assign",
        "clone",
        "complex",
        "polar",
        "cartesian_prod",
        "create_tensor",
        "range",
        "from_dlpack",
        "asarray",
    ],
    "math": [
        "abs",
        "add",
        "add_n",
        "subtract",
        "multiply",
        "divide",
        "floor_divide",
        "remainder",
        "mod",
        "floor_mod",
        "pow",
        "exp",
        "log",
        "log2",
        "log10",
        "log1p",
        "sqrt",
        "rsqrt",
        "sin",
        "cos",
        "tan",
        "tanh",
        "sinh",
        "cosh",
        "sum",
        "nansum",
        "mean",
        "nanmean",
        "prod",
        "max",
        "min",
        "amax",
        "amin",
        "maximum",
        "minimum",
        "fmax",
        "fmin",
        "cumsum",
        "cumprod",
        "logcumsumexp",
        "logsumexp",
        "clip",
        "trunc",
        "frac",
        "round",
        "sign",
        "sgn",
        "lerp",
        "erf",
        "erfinv",
        "lgamma",
        "digamma",
        "polygamma",
        "gammaln",
        "gammainc",
        "gammaincc",
        "multigammaln",
        "i0",
        "i0e",
        "i1",
        "i1e",
        "sinc",
        "logit",
        "logaddexp",
        "hypot",
        "copysign",
        "nextafter",
        "ldexp",
        "frexp",
        "gcd",
        "lcm",
        "diff",
        "trapezoid",
        "cumulative_trapezoid",
        "deg2rad",
        "rad2deg",
        "heaviside",
        "increment",
        "renorm",
        "inner",
        "outer",
        "kron",
        "trace",
        "isfinite",
        "isinf",
        "isnan",
        "isposinf",
        "isneginf",
        "isreal",
        "signbit",
        "stanh",
        "neg",
        "negative",
        "positive",
        "mm",
        "addmm",
        "baddbmm",
        "mul",
        "reduce_as",
        "vander",
        "count_nonzero",
        "take",
        "scale",
        "reciprocal",
        "square",
        "atan2",
        "nan_to_num",
    ],
    "manipulation": [
        "reshape",
        "flatten",
        "squeeze",
        "unsqueeze",
        "transpose",
        "concat",
        "stack",
        "split",
        "tensor_split",
        "hsplit",
        "vsplit",
        "dsplit",
        "chunk",
        "unbind",
        "unstack",
        "tile",
        "expand",
        "expand_as",
        "broadcast_to",
        "broadcast_tensors",
        "flip",
        "roll",
        "rot90",
        "gather",
        "gather_nd",
        "scatter",
        "scatter_nd",
        "scatter_nd_add",
        "put_along_axis",
        "take_along_axis",
        "index_select",
        "index_put",
        "index_add",
        "index_fill",
        "masked_fill",
        "masked_scatter",
        "slice",
        "strided_slice",
        "crop",
        "narrow",
        "moveaxis",
        "permute",
        "ravel",
        "view",
        "view_as",
        "as_strided",
        "unfold",
        "unflatten",
        "atleast_1d",
        "atleast_2d",
        "atleast_3d",
        "hstack",
        "vstack",
        "dstack",
        "column_stack",
        "row_stack",
        "block_diag",
        "select_scatter",
        "slice_scatter",
        "diagonal_scatter",
        "scatter_add",
        "scatter_reduce",
        "repeat_interleave",
        "shard_index",
        "cast",
        "tolist",
        "matrix_transpose",
        "unique_consecutive",
        "unique",
    ],
    "search": [
        "argmax",
        "argmin",
        "argsort",
        "sort",
        "msort",
        "topk",
        "kthvalue",
        "mode",
        "nonzero",
        "argwhere",
        "where",
        "masked_select",
        "index_sample",
        "searchsorted",
        "bucketize",
        "isin",
    ],
    "stat": ["mean", "std", "var", "median", "nanmedian", "quantile", "nanquantile", "numel"],
    "logic": [
        "equal",
        "not_equal",
        "less_than",
        "less_equal",
        "greater_than",
        "greater_equal",
        "logical_and",
        "logical_or",
        "logical_not",
        "logical_xor",
        "bitwise_and",
        "bitwise_or",
        "bitwise_xor",
        "bitwise_not",
        "bitwise_invert",
        "bitwise_left_shift",
        "bitwise_right_shift",
        "allclose",
        "isclose",
        "equal_all",
        "is_empty",
        "is_tensor",
        "gt",
        "ge",
        "lt",
        "le",
        "eq",
        "ne",
    ],
    "random": [
        "rand",
        "randn",
        "randint",
        "randint_like",
        "randperm",
        "uniform",
        "normal",
        "standard_normal",
        "bernoulli",
        "binomial",
        "poisson",
        "multinomial",
        "rand_like",
        "randn_like",
    ],
    "linalg": [
        "matmul",
        "bmm",
        "dot",
        "mv",
        "cross",
        "cdist",
        "pdist",
        "dist",
        "norm",
        "tensordot",
        "cholesky",
        "inverse",
        "histogram",
        "histogramdd",
        "histogram_bin_edges",
        "bincount",
    ],
    "attribute": ["rank", "shape", "real", "imag", "is_complex", "is_floating_point", "is_integer"],
    "einsum": ["einsum"],
}


class _TensorNamespace(types.ModuleType):
    """oar.tensor: callable like Paddle's paddle.tensor(data, ...) (a new tensor) and a
    namespace of the tensor functions, by Paddle's submodules (oar.tensor.math.frexp,
    oar.tensor.search.argwhere, oar.tensor.triu, ...)."""

    def __call__(
        self,
        data: Any,
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool = False,
        pin_memory: bool = False,
    ) -> Tensor:
        return _tensor_fn(data, dtype, device, requires_grad, pin_memory)


sys.modules[__name__].__class__ = _TensorNamespace


def _fill_namespace(oar_module):
    """Gives oar.tensor and its submodules Paddle's names that they do not define (the
    C ops among them), from the finished oar module (called at the end of its import).
    A submodule gets them as module attributes (PEP 562 __getattr__ and __dir__), not as
    globals: its own code keeps Python's builtins (max, min, sum, abs, round, pow, ...)."""
    ns = sys.modules[__name__]
    for sub, names in _TENSOR_SUBMODULES.items():
        m = sys.modules[f"{__name__}.{sub}"]
        extra = {
            n: getattr(oar_module, n) for n in names if hasattr(oar_module, n) and n not in vars(m)
        }
        if extra:
            m.__getattr__ = _module_getattr(m.__name__, extra)
            m.__dir__ = _module_dir(m, extra)
        for n in names:
            if hasattr(oar_module, n):
                setattr(ns, n, getattr(oar_module, n))
        setattr(ns, sub, m)
    ns.create_tensor = create_tensor


def _module_getattr(module_name, extra):
    def __getattr__(name):
        try:
            return extra[name]
        except KeyError:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}") from None

    return __getattr__


def _module_dir(module, extra):
    def __dir__():
        return sorted(set(vars(module)) | set(extra))

    return __dir__
