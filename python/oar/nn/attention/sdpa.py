"""SDPBackend and the sdpa_kernel context manager.

oar runs on the CPU, where Paddle has only the math backend: FLASH_ATTENTION and
EFFICIENT_ATTENTION are known names that start disabled, as in a CPU build of Paddle.
The selection is process-wide state that sdpa_kernel sets and restores."""

from __future__ import annotations

import contextlib
from enum import IntEnum
from typing import Any, Iterator


class SDPBackend(IntEnum):
    """The backends of scaled dot product attention, for sdpa_kernel.

    ERROR (-1) stands for a failure to determine the backend; MATH (0) is the plain
    matmul-softmax-matmul composition (the only one on the CPU); FLASH_ATTENTION (1)
    and EFFICIENT_ATTENTION (2) are GPU kernels.
    """

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2


_backend_enabled = {
    SDPBackend.MATH: True,
    SDPBackend.FLASH_ATTENTION: False,
    SDPBackend.EFFICIENT_ATTENTION: False,
}
_current_priority = [SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]


def _set_enabled_backends(backends):
    # Names outside the table (ERROR) enable nothing, so sdpa_kernel(SDPBackend.ERROR)
    # leaves no backend enabled, as in Paddle.
    for b in _backend_enabled:
        _backend_enabled[b] = b in backends


def _cur_sdpa_kernel_backends(with_priority=False):
    """The enabled backends, in table order or (with_priority) in priority order.

    Args:
        with_priority (bool, optional): Sort by the current priority. Default: False.

    Returns:
        list[SDPBackend]
    """
    backends = [b for b, on in _backend_enabled.items() if on]
    if with_priority:
        rank = {b: i for i, b in enumerate(_current_priority)}
        backends.sort(key=lambda b: rank.get(b, len(rank)))
    return backends


def _validate_backends(backends):
    if isinstance(backends, SDPBackend):
        backends = [backends]
    if not isinstance(backends, (list, tuple)):
        raise TypeError(
            "backends must be an instance of SDPBackend or a list of SDPBackend instances"
        )
    for b in backends:
        if not isinstance(b, SDPBackend):
            raise TypeError(f"All backends must be SDPBackend instances, got {type(b)}")
    return list(dict.fromkeys(backends))


@contextlib.contextmanager
def sdpa_kernel(
    backends: SDPBackend | list[SDPBackend], set_priority: bool = False
) -> Iterator[dict[Any, Any]]:
    """Within the block, only the given backends are enabled for scaled dot product
    attention; on exit the previous selection (and priority) comes back.

    Args:
        backends (SDPBackend|list[SDPBackend]): The backend or backends to enable;
            duplicates are ignored.
        set_priority (bool, optional): Also make the order of `backends` their
            priority (the other backends follow in their previous order). Default: False.

    Yields:
        dict: an empty dict, as Paddle.

    Raises:
        AssertionError: backends is neither an SDPBackend nor a list.
        TypeError: a list item is not an SDPBackend.
        ValueError: an empty list.
    """
    global _current_priority
    assert isinstance(backends, (list, SDPBackend)), (
        "Backend must be an instance of SDPBackend or a list of SDPBackend instances"
    )
    backends = _validate_backends(backends)
    if not backends:
        raise ValueError("At least one backend must be specified")
    saved_enabled = dict(_backend_enabled)
    saved_priority = list(_current_priority)
    try:
        _set_enabled_backends(backends)
        if set_priority:
            _current_priority = backends + [b for b in saved_priority if b not in backends]
        yield {}
    finally:
        _backend_enabled.update(saved_enabled)
        _current_priority = saved_priority
