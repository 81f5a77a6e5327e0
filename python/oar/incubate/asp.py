"""oar.incubate.asp: automatic n:m structured sparsity (Paddle's paddle.incubate.asp), in
eager mode.

An n:m pattern has at least n zeros in every group of m consecutive weights along the
input dimension (1-D), or in every m x m block at least n zeros in each row and column
(2-D). prune_model() zeroes the smallest weights of the supported layers (Linear and
Conv2D, plus those add_supported_layer() names) to such a pattern and, with
with_mask=True, remembers the masks; decorate(optimizer) returns an optimizer whose
step() re-applies them, so pruned weights stay zero while training.
"""

from __future__ import annotations

import itertools
import re
import threading
from enum import Enum
from typing import Any, Callable, Iterable, Union

import numpy as np
import numpy.typing as npt

from ..framework.check import is_int
from .. import _C
from ..nn import Layer
from ..optimizer import Optimizer
from ..framework.param import _set_value
from ..framework.grad_mode import no_grad
from ..tensor.creation import to_tensor

Tensor = _C.Tensor

_ArrayOrTensor = Union[np.ndarray, Tensor]

__all__ = [
    "calculate_density",
    "decorate",
    "prune_model",
    "set_excluded_layers",
    "reset_excluded_layers",
    "add_supported_layer",
    "MaskAlgo",
    "CheckMethod",
    "create_mask",
    "check_sparsity",
    "get_mask_1d",
    "check_mask_1d",
    "get_mask_2d_greedy",
    "get_mask_2d_best",
    "check_mask_2d",
]


class MaskAlgo(Enum):
    """How prune_model builds a mask."""

    MASK_1D = "get_mask_1d"
    MASK_2D_GREEDY = "get_mask_2d_greedy"
    MASK_2D_BEST = "get_mask_2d_best"


class CheckMethod(Enum):
    """How check_sparsity checks a pattern."""

    CHECK_1D = "check_mask_1d"
    CHECK_2D = "check_mask_2d"

    @staticmethod
    def get_checking_method(mask_algo):
        """CHECK_1D for MASK_1D, CHECK_2D for the 2-D algorithms."""
        if not isinstance(mask_algo, MaskAlgo):
            raise TypeError(
                f"get_checking_method: argument 'mask_algo' must be a MaskAlgo, got "
                f"{type(mask_algo).__name__}"
            )
        return CheckMethod.CHECK_1D if mask_algo == MaskAlgo.MASK_1D else CheckMethod.CHECK_2D


# pruning_func(weight, m, n, mask_algo, param_name) -> (pruned weight, mask)
_PruningFunc = Callable[[np.ndarray, int, int, MaskAlgo, str], tuple[np.ndarray, np.ndarray]]


def _array(x, who):
    if isinstance(x, Tensor):
        return x.numpy()
    if isinstance(x, np.ndarray):
        return x
    raise TypeError(f"{who}: expected a numpy ndarray or a Tensor, got {type(x).__name__}")


def calculate_density(x: _ArrayOrTensor) -> float:
    """The fraction of nonzero entries of x (a numpy array or Tensor)."""
    a = _array(x, "calculate_density")
    if a.size == 0:
        raise ValueError("calculate_density: argument 'x' is empty")
    return float(np.count_nonzero(a)) / a.size


def _check_nm(who, n, m):
    for arg, v in (("n", n), ("m", m)):
        if not is_int(v) or v < 1:
            raise ValueError(f"{who}: argument '{arg}' must be a positive int, got {v!r}")
    if n > m:
        raise ValueError(f"{who}: n ({n}) must not exceed m ({m})")


def _groups_1d(mat, m):
    """[rows * ceil(cols / m), m] groups of m along each row, zero-padded."""
    mat = mat.reshape(1, -1) if mat.ndim == 1 else mat
    if mat.ndim != 2:
        raise ValueError(f"expected a 1-D or 2-D matrix, got {mat.ndim} dimensions")
    pad = (-mat.shape[1]) % m
    padded = np.pad(mat, ((0, 0), (0, pad))) if pad else mat
    return padded.reshape(-1, m), padded.shape


def check_mask_1d(mat: npt.ArrayLike, n: int, m: int) -> bool:
    """Whether every group of m consecutive entries in each row has at least n zeros."""
    _check_nm("check_mask_1d", n, m)
    groups, _ = _groups_1d(np.asarray(mat), m)
    return bool(np.all(np.count_nonzero(groups, axis=1) <= m - n))


def get_mask_1d(mat: npt.ArrayLike, n: int, m: int) -> np.ndarray:
    """The 1-D n:m mask of a 2-D matrix: in each group of m along a row, the n entries of
    smallest magnitude are 0, the others 1."""
    _check_nm("get_mask_1d", n, m)
    mat = np.asarray(mat)
    groups, shape = _groups_1d(mat, m)
    order = np.argsort(np.abs(groups), axis=1, kind="stable")
    mask = np.ones_like(groups)
    np.put_along_axis(mask, order[:, :n], 0, axis=1)
    return mask.reshape(shape)[:, : mat.shape[1]]


def _blocks_2d(mat, m):
    """[number of blocks, m, m] blocks of m x m (row-major over blocks), zero-padded."""
    if mat.ndim != 2:
        raise ValueError(f"expected a 2-D matrix, got {mat.ndim} dimensions")
    pr, pc = (-mat.shape[0]) % m, (-mat.shape[1]) % m
    padded = np.pad(mat, ((0, pr), (0, pc)))
    r, c = padded.shape
    blocks = padded.reshape(r // m, m, c // m, m).transpose(0, 2, 1, 3).reshape(-1, m, m)
    return blocks, padded.shape


def _unblock(blocks, shape, m, out_shape):
    r, c = shape
    full = blocks.reshape(r // m, c // m, m, m).transpose(0, 2, 1, 3).reshape(r, c)
    return full[: out_shape[0], : out_shape[1]]


def check_mask_2d(mat: npt.ArrayLike, n: int, m: int) -> bool:
    """Whether every m x m block has at least n zeros in each row or in each column."""
    _check_nm("check_mask_2d", n, m)
    blocks, _ = _blocks_2d(np.asarray(mat), m)
    nz = blocks != 0
    rows_bad = np.any(nz.sum(axis=2) > m - n, axis=1)
    cols_bad = np.any(nz.sum(axis=1) > m - n, axis=1)
    return bool(not np.any(rows_bad & cols_bad))


def get_mask_2d_greedy(mat: npt.ArrayLike, n: int, m: int) -> np.ndarray:
    """A 2-D n:m mask built greedily: in each m x m block the entries are kept in order of
    decreasing magnitude while their row and column hold fewer than m - n kept ones."""
    _check_nm("get_mask_2d_greedy", n, m)
    mat = np.asarray(mat)
    blocks, shape = _blocks_2d(mat, m)
    keep = m - n
    masks = np.zeros_like(blocks, dtype=np.float64)
    for b, block in enumerate(np.abs(blocks)):
        rows, cols = np.zeros(m, int), np.zeros(m, int)
        for flat in np.argsort(block, axis=None, kind="stable")[::-1]:
            i, j = divmod(int(flat), m)
            if rows[i] < keep and cols[j] < keep:
                masks[b, i, j] = 1.0
                rows[i] += 1
                cols[j] += 1
    return _unblock(masks, shape, m, mat.shape)


_patterns_lock = threading.Lock()
_patterns: dict[tuple[int, int], np.ndarray] = {}


def _valid_patterns(n, m):
    """Every m x m 0/1 matrix with m - n ones in each row and at most m - n in each column."""
    with _patterns_lock:
        if (n, m) not in _patterns:
            keep = m - n
            rows = [
                np.array(r, dtype=np.float64)
                for r in set(itertools.permutations([1] * keep + [0] * n))
            ]
            pats = [np.stack(p) for p in itertools.product(rows, repeat=m)]
            pats = np.stack(pats)
            _patterns[(n, m)] = pats[np.all(pats.sum(axis=1) <= keep, axis=1)]
        return _patterns[(n, m)]


def get_mask_2d_best(mat: npt.ArrayLike, n: int, m: int) -> np.ndarray:
    """The 2-D n:m mask keeping the largest total magnitude in each m x m block (an
    exhaustive search over the valid patterns; m up to 4 is practical)."""
    _check_nm("get_mask_2d_best", n, m)
    if m > 4:
        raise ValueError(
            f"get_mask_2d_best: m = {m} has too many patterns to search; use get_mask_2d_greedy"
        )
    mat = np.asarray(mat)
    blocks, shape = _blocks_2d(mat, m)
    pats = _valid_patterns(n, m)
    score = np.einsum("bij,pij->bp", np.abs(blocks), pats)
    return _unblock(pats[np.argmax(score, axis=1)], shape, m, mat.shape)


def _as_2d(a):
    """A tensor of 1 to 4 dimensions as the 2-D matrix whose rows are pruned, and the
    inverse mapping: 4-D [a, b, c, d] groups along c (Paddle's layout of conv weights
    after prune_model's transpose)."""
    s = a.shape
    if a.ndim == 1:
        return a.reshape(1, -1), lambda x: x.reshape(s)
    if a.ndim == 2:
        return a, lambda x: x
    if a.ndim == 3:
        return a.reshape(s[0] * s[1], s[2]), lambda x: x.reshape(s)
    if a.ndim == 4:
        t = a.transpose(0, 1, 3, 2).reshape(s[0] * s[1] * s[3], s[2])
        return t, lambda x: x.reshape(s[0], s[1], s[3], s[2]).transpose(0, 1, 3, 2)
    raise ValueError(f"expected a tensor of 1 to 4 dimensions, got {a.ndim}")


def create_mask(
    tensor: _ArrayOrTensor, func_name: MaskAlgo = MaskAlgo.MASK_1D, n: int = 2, m: int = 4
) -> np.ndarray:
    """The n:m mask of a 1-D to 4-D array (see _as_2d for the layout), of its shape."""
    if not isinstance(func_name, MaskAlgo):
        raise TypeError(
            f"create_mask: argument 'func_name' must be a MaskAlgo, got {type(func_name).__name__}"
        )
    a = _array(tensor, "create_mask").astype(np.float64)
    mat, back = _as_2d(a)
    return back(globals()[func_name.value](mat, n, m)).astype(a.dtype)


def check_sparsity(
    tensor: _ArrayOrTensor, func_name: CheckMethod = CheckMethod.CHECK_1D, n: int = 2, m: int = 4
) -> bool:
    """Whether a 1-D to 4-D array follows the n:m pattern."""
    if not isinstance(func_name, CheckMethod):
        raise TypeError(
            f"check_sparsity: argument 'func_name' must be a CheckMethod, got "
            f"{type(func_name).__name__}"
        )
    mat, _ = _as_2d(_array(tensor, "check_sparsity").astype(np.float64))
    return globals()[func_name.value](mat, n, m)


# ---- pruning layers ------------------------------------------------------------------
_state_lock = threading.Lock()
_supported: dict = {}  # snake_case layer type name -> pruning function
_excluded: set = set()  # parameter names left dense
_masks: dict = {}  # id(parameter) -> (parameter, mask Tensor), for decorate()


def _snake(name):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower().replace("2_d", "2d")


def _default_pruning(weight, m, n, func_name, param_name):
    """(pruned weight, mask) of one weight array: groups along its input dimension."""
    shape = weight.shape
    if (len(shape) == 2 and shape[0] < m) or (len(shape) == 4 and shape[1] < m):
        return weight.copy(), np.ones_like(weight)
    mask = create_mask(weight.T, func_name=func_name, n=n, m=m).T
    return weight * mask, mask


def add_supported_layer(
    layer: Layer | type[Layer] | str, pruning_func: _PruningFunc | None = None
) -> None:
    """Let prune_model prune layers of this type (a Layer class, instance or its snake_case
    name) with pruning_func(weight, m, n, mask_algo, param_name) -> (pruned, mask)."""
    if isinstance(layer, str):
        name = layer
    elif isinstance(layer, Layer):
        name = _snake(type(layer).__name__)
    elif isinstance(layer, type) and issubclass(layer, Layer):
        name = _snake(layer.__name__)
    else:
        raise TypeError(
            f"add_supported_layer: argument 'layer' must be a Layer class, a Layer "
            f"or a name, got {type(layer).__name__}"
        )
    with _state_lock:
        _supported[name] = pruning_func or _default_pruning


for _name in ("fc", "linear", "conv2d"):
    add_supported_layer(_name)


def set_excluded_layers(param_names: Iterable[str], main_program: Any = None) -> None:
    """Leave the parameters with these names dense in prune_model."""
    with _state_lock:
        _excluded.update(param_names)


def reset_excluded_layers(main_program: Any = None) -> None:
    with _state_lock:
        _excluded.clear()


def prune_model(
    model: Layer, n: int = 2, m: int = 4, mask_algo: str = "mask_1d", with_mask: bool = True
) -> dict[str, np.ndarray]:
    """Prune the weights of model's supported layers to the n:m pattern (mask_algo
    'mask_1d', 'mask_2d_greedy' or 'mask_2d_best'); returns {parameter name: mask}.
    with_mask keeps the masks for decorate()."""
    if not isinstance(model, Layer):
        raise TypeError(
            f"prune_model: argument 'model' must be an oar.nn.Layer, got {type(model).__name__}"
        )
    algos = {
        "mask_1d": MaskAlgo.MASK_1D,
        "mask_2d_greedy": MaskAlgo.MASK_2D_GREEDY,
        "mask_2d_best": MaskAlgo.MASK_2D_BEST,
    }
    if mask_algo not in algos:
        raise ValueError(
            f"prune_model: argument 'mask_algo' must be one of {sorted(algos)}, got {mask_algo!r}"
        )
    _check_nm("prune_model", n, m)
    out = {}
    for layer in model.sublayers(include_self=True):
        prune = _supported.get(_snake(type(layer).__name__))
        w = getattr(layer, "weight", None)
        if prune is None or not isinstance(w, Tensor) or w.name in _excluded:
            continue
        pruned, mask = prune(w.numpy(), m, n, algos[mask_algo], w.name)
        _set_value(w, pruned.astype(w.numpy().dtype))
        out[w.name] = mask
        if with_mask:
            with _state_lock:
                _masks[id(w)] = (w, to_tensor(mask.astype(w.numpy().dtype)))
    return out


class OptimizerWithSparsityGuarantee:
    """An optimizer whose step() and minimize() re-apply prune_model's masks."""

    def __init__(self, optimizer):
        self._optimizer = optimizer

    def __getattr__(self, item):
        return getattr(self._optimizer, item)

    def _apply_masks(self):
        with no_grad():
            for p in self._optimizer._parameter_list:
                entry = _masks.get(id(p))
                if entry is not None and entry[0] is p:
                    p[...] = p * entry[1]

    def step(self):
        self._optimizer.step()
        self._apply_masks()

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        out = self._optimizer.minimize(loss, startup_program, parameters, no_grad_set)
        self._apply_masks()
        return out


def decorate(optimizer: Optimizer) -> OptimizerWithSparsityGuarantee:
    """Wrap optimizer so its updates keep the pruned weights zero (after prune_model)."""
    return OptimizerWithSparsityGuarantee(optimizer)
