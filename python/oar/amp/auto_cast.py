"""oar.amp.auto_cast: mixed precision for the ops run inside a block.

The casting happens in C++ at the top of every op (Note [Auto-cast happens in
the forward pass], src/oar/eager/amp.h); this module validates the arguments
and pushes and pops the thread's auto-cast state. See docs/amp.md.
"""

from __future__ import annotations

import contextlib

from .. import _C
from ..framework.dtype import convert_dtype
from typing import Any

__all__ = ["auto_cast", "amp_guard"]

_LEVELS = {"O0": 0, "O1": 1, "O2": 2}

# Paddle's names for ops oar calls otherwise, accepted in the custom lists so
# Paddle code passes its lists unchanged.
_PADDLE_NAMES = {
    "matmul_v2": ["matmul"],
    "mul": ["matmul"],
    "conv2d": ["conv"],
    "conv3d": ["conv"],
    "depthwise_conv2d": ["conv"],
    "conv2d_transpose": ["conv_transpose"],
    "elementwise_add": ["add"],
    "elementwise_sub": ["subtract"],
    "elementwise_mul": ["multiply"],
    "elementwise_div": ["divide"],
    "elementwise_max": ["maximum"],
    "elementwise_min": ["minimum"],
    "reduce_sum": ["sum"],
    "reduce_mean": ["mean"],
    "reduce_prod": ["prod"],
    "lookup_table_v2": ["embedding"],
    "softmax_with_cross_entropy": ["cross_entropy_hard", "cross_entropy_soft"],
    "cross_entropy": ["cross_entropy_hard", "cross_entropy_soft"],
    "cross_entropy2": ["cross_entropy_hard", "cross_entropy_soft"],
}


def _names(arg, value):
    if value is None:
        return set()
    if isinstance(value, str) or not hasattr(value, "__iter__"):
        raise TypeError(
            f"auto_cast: argument '{arg}' must be a set or list of op names, "
            f"got {type(value).__name__}"
        )
    out = set()
    for n in value:
        if not isinstance(n, str):
            raise TypeError(
                f"auto_cast: argument '{arg}' must hold op names (str), got {type(n).__name__}"
            )
        out.update(_PADDLE_NAMES.get(n, [n]))
    return out


class auto_cast(contextlib.ContextDecorator):
    """Runs the ops inside the block in mixed precision (a context manager and a
    decorator; thread-local; blocks nest, the inner one deciding).

    Args:
        enable: False runs the block without auto-cast (also inside an outer one).
        custom_white_list: op names (oar's, or Paddle's common ones) to run in the
            low dtype in addition to the defaults (matmul, linear, conv, conv_transpose).
        custom_black_list: op names to run in float32 in addition to the defaults
            (exp, log, pow, softmax, log_softmax, losses, norms, sum, mean, ...).
        level: "O1" (the lists decide; other ops follow their inputs) or "O2" (every
            op in the low dtype but the black list); "O0" is off.
        dtype: "bfloat16" (default) or "float16".
        use_promote: at O2, an op outside the lists with a float32 input runs in
            float32.

    Gradients come back in each input's own dtype: the casts are ops of the graph.
    """

    def __init__(
        self,
        enable=True,
        custom_white_list=None,
        custom_black_list=None,
        level="O1",
        dtype="bfloat16",
        use_promote=True,
    ):
        if not isinstance(level, str) or level.upper() not in _LEVELS:
            raise ValueError(
                f"auto_cast: argument 'level' must be 'O0', 'O1' or 'O2', got {level!r}"
            )
        try:
            d = convert_dtype(dtype)
        except (TypeError, ValueError):
            d = None
        if d is None or d.name not in ("bfloat16", "float16"):
            raise ValueError(
                f"auto_cast: argument 'dtype' must be 'bfloat16' or 'float16', got {dtype!r}"
            )
        white = _names("custom_white_list", custom_white_list)
        black = _names("custom_black_list", custom_black_list)
        both = sorted(white & black)
        if both:
            raise ValueError(
                f"auto_cast: ops {both} are in both custom_white_list and custom_black_list"
            )
        self._level = _LEVELS[level.upper()] if enable else 0
        self._dtype = d
        self._white = sorted(white) or None
        self._black = sorted(black) or None
        self._use_promote = bool(use_promote)

    def __enter__(self):
        _C._amp_enter(self._level, self._dtype, self._white, self._black, self._use_promote)
        return self

    def __exit__(self, *exc):
        _C._amp_exit()
        return False


amp_guard = auto_cast  # Paddle's older name


def is_autocast_enabled(device_type: Any = None) -> bool:
    """Whether an auto_cast block at level O1 or O2 is active on this thread.

    Args:
        device_type: ignored, as in Paddle (every device shares one auto-cast state).

    Returns:
        bool: True inside `auto_cast()` (enabled, level O1/O2), False otherwise.

    Examples:
        >>> import oar
        >>> print(oar.amp.is_autocast_enabled())
        False
        >>> with oar.amp.auto_cast():
        ...     print(oar.amp.is_autocast_enabled())
        True
    """
    return _C._amp_state()[0] != 0


def get_autocast_dtype(device_type: Any = None) -> str:
    """The low-precision dtype of the active auto_cast block, as a name; "float16" when
    none is active (Paddle's default AMP dtype).

    Args:
        device_type: ignored, as in Paddle.

    Returns:
        str: "bfloat16" or "float16".

    Examples:
        >>> import oar
        >>> with oar.amp.auto_cast(dtype="bfloat16"):
        ...     print(oar.amp.get_autocast_dtype())
        bfloat16
        >>> print(oar.amp.get_autocast_dtype())
        float16
    """
    level, dtype, _ = _C._amp_state()
    return dtype.name if level else "float16"


# Paddle's names for the same state (one state for every device).
get_autocast_cpu_dtype = get_autocast_dtype
get_autocast_gpu_dtype = get_autocast_dtype


def autocast(
    device_type: str | None,
    dtype: str = "float16",
    enabled: bool = True,
    cache_enabled: bool = True,
) -> Any:
    """auto_cast(enable=enabled, dtype=dtype), PyTorch's way round; device_type and
    cache_enabled are not used (as in Paddle)."""
    return auto_cast(enable=enabled, dtype=dtype)
