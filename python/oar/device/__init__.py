"""oar.device: Paddle's device API on a CPU-only framework.

oar has one device, the CPU. The functions here take Paddle's arguments and answer
truthfully for that build: "cpu" is accepted wherever a device is named, any other
device ("gpu", "gpu:0", "xpu", "npu:1", a CUDAPlace) raises a ValueError saying oar was
built for the CPU only, and every is_compiled_with_* is False.
"""

from __future__ import annotations

import re
from typing import NamedTuple, NoReturn, Sequence

from .. import _C
from ..framework.dtype import CPUPlace, Place
from ..framework.place import _cpu_only, _to_place
from ..framework.typing import PlaceLike, Tensor
from .support import is_bfloat16_supported as _bfloat16_native
from ..framework.random import GeneratorState, get_state
from ..framework.random import set_state

__all__ = [
    "set_device",
    "get_device",
    "get_all_device_type",
    "get_all_custom_device_type",
    "get_available_device",
    "get_available_custom_device",
    "is_compiled_with_cuda",
    "is_compiled_with_rocm",
    "is_compiled_with_xpu",
    "is_compiled_with_ipu",
    "is_compiled_with_cinn",
    "is_compiled_with_distribute",
    "is_compiled_with_custom_device",
    "is_available",
    "device_count",
    "synchronize",
    "CUDAPlace",
    "XPUPlace",
    "IPUPlace",
    "CUDAPinnedPlace",
    "XPUPinnedPlace",
    "get_cudnn_version",
    "get_rng_state",
    "set_rng_state",
    "device",
    "device_guard",
    "get_device_properties",
    "get_device_name",
    "get_device_capability",
    "is_bf16_supported",
    "manual_seed",
    "cpu_isa",
    # device memory counters (_memory.py), streams and events (_streams.py), the legacy
    # typed-tensor factories (_tensor_types.py)
    "max_memory_allocated",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "reset_max_memory_allocated",
    "reset_max_memory_reserved",
    "reset_peak_memory_stats",
    "empty_cache",
    "ipc_collect",
    "Stream",
    "Event",
    "current_stream",
    "set_stream",
    "stream_guard",
    "StreamContext",
    "get_stream_from_external",
    "is_current_stream_capturing",
    "FloatTensor",
    "DoubleTensor",
    "HalfTensor",
    "BFloat16Tensor",
    "ByteTensor",
    "CharTensor",
    "ShortTensor",
    "IntTensor",
    "LongTensor",
    "BoolTensor",
]


def set_device(device: PlaceLike | int) -> Place:
    """Sets the device ops run on; only "cpu" (or a CPUPlace) exists. Returns the Place."""
    return _to_place(device, "set_device")


def get_device(input: Tensor | None = None) -> str | int:
    """The current device's name, "cpu"; with a tensor, its device id: -1 (the CPU)."""
    if input is not None:
        if not isinstance(input, _C.Tensor):
            raise TypeError(
                f"get_device: argument 'input' must be a Tensor or None, got {type(input).__name__}"
            )
        return -1
    return "cpu"


def get_all_device_type() -> list[str]:
    """The device types besides the CPU this build has: none (Paddle's CPU build: [])."""
    return []


def get_all_custom_device_type() -> list[str]:
    """The custom (plug-in) device types registered: none."""
    return []


def get_available_device() -> list[str]:
    """The non-CPU devices available: none (Paddle's CPU build: [])."""
    return []


def get_available_custom_device() -> list[str]:
    """The custom devices available: none."""
    return []


def is_compiled_with_cuda() -> bool:
    """False: oar has no CUDA kernels."""
    return False


def is_compiled_with_rocm() -> bool:
    """False: oar has no ROCm kernels."""
    return False


def is_compiled_with_xpu() -> bool:
    """False: oar has no XPU kernels."""
    return False


def is_compiled_with_ipu() -> bool:
    """False: oar has no IPU support."""
    return False


def is_compiled_with_cinn() -> bool:
    """False: oar has no CINN compiler (it runs eagerly)."""
    return False


def is_compiled_with_distribute() -> bool:
    """True when this build has oar.distributed's collectives (Gloo was found at build
    time, docs/distributed.md)."""
    return hasattr(_C, "_dist_init")


def is_compiled_with_custom_device(device_type: str) -> bool:
    """False for every device type: oar loads no device plug-ins."""
    if not isinstance(device_type, str):
        raise TypeError(
            "is_compiled_with_custom_device: argument 'device_type' must be a str, "
            f"got {type(device_type).__name__}"
        )
    return False


def is_available() -> bool:
    """Whether an accelerator is available: never in oar."""
    return False


def device_count() -> int:
    """The number of GPUs: 0."""
    return 0


def synchronize(device: PlaceLike | int | None = None) -> None:
    """Waits for the device's work; the CPU runs ops synchronously, so only checks device."""
    if device is not None:
        _to_place(device, "synchronize")


def CUDAPlace(id: int = 0) -> NoReturn:  # noqa: N802 - Paddle's name
    """Raises: a GPU place cannot exist in oar."""
    raise _cpu_only(f"CUDAPlace({id})")


def CUDAPinnedPlace() -> NoReturn:  # noqa: N802 - Paddle's name
    """Raises: pinned (page-locked for GPU copies) memory needs a GPU."""
    raise _cpu_only("CUDAPinnedPlace()")


def XPUPinnedPlace() -> NoReturn:  # noqa: N802 - Paddle's name
    """Raises: pinned memory for XPU copies needs an XPU (Paddle's CPU build raises too)."""
    raise _cpu_only("XPUPinnedPlace()")


def XPUPlace(dev_id: int = 0) -> NoReturn:  # noqa: N802 - Paddle's name
    """Raises: an XPU place cannot exist in oar."""
    raise _cpu_only(f"XPUPlace({dev_id})")


def IPUPlace() -> NoReturn:  # noqa: N802 - Paddle's name
    """Raises: an IPU place cannot exist in oar."""
    raise _cpu_only("IPUPlace()")


def get_cudnn_version() -> None:
    """The cuDNN version oar uses: None (no cuDNN; Paddle's CPU build answers the same)."""
    return None


def get_rng_state(device: PlaceLike | int | None = None) -> list[GeneratorState]:
    """The states of the random generators of device (None: the current one, the CPU), as
    a list of GeneratorState (one: the CPU generator's). Give it to set_rng_state to draw
    the same random numbers again."""
    if device is not None:
        _to_place(device, "get_rng_state")
    return [get_state()]


def set_rng_state(
    state_list: Sequence[GeneratorState], device: PlaceLike | int | None = None
) -> None:
    """Restores the generator states returned by get_rng_state(device)."""
    if device is not None:
        _to_place(device, "set_rng_state")
    if not isinstance(state_list, (list, tuple)) or len(state_list) != 1:
        raise ValueError(
            f"set_rng_state(): argument 'state_list' must be the list of one "
            f"GeneratorState that get_rng_state() returns, but got {state_list!r}"
        )
    set_state(state_list[0])


class device:  # noqa: N801 - Paddle's name
    """A context that makes device the current one inside it and restores the previous
    one on exit. The only device is the CPU.

    Args:
        device (str | Place | int | None, optional): the device: "cpu", a CPUPlace, the
            index 0 (the CPU's, when the CPU is current) or None (the current device).

    Raises:
        ValueError: a negative index, an index other than 0, or a non-CPU device.
    """

    def __init__(self, device=None):
        if isinstance(device, int) and not isinstance(device, bool):
            # Paddle reads an index as one of the current device type, the CPU here.
            if device < 0:
                raise ValueError(f"device(): the device index must be non-negative, got {device}")
            if device != 0:
                raise ValueError(f"device(): the CPU device only has index 0, got {device}")
            device = "cpu"
        self.place = _to_place(get_device() if device is None else device, "device()")
        self.prev_place_str = "-1"

    def __enter__(self):
        self.prev_place_str = get_device()
        set_device(self.place)

    def __exit__(self, exc_type, exc_value, traceback):
        set_device(self.prev_place_str)
        return False


class device_guard:  # noqa: N801 - Paddle's name
    """A context that runs its body on device and restores the previous device after.

    Args:
        device (str | Place): the device, "cpu" or a CPUPlace.

    Raises:
        ValueError: device is neither a str nor a Place (as in Paddle, an int is refused
            too), or names a device oar does not have.
    """

    def __init__(self, device):
        if not isinstance(device, (str, Place)):
            raise ValueError(
                f"device_guard(): 'device' must be a string or a Place, but got {type(device)}"
            )
        self._target_place = _to_place(device, "device_guard()")
        self._original_place = None

    def __enter__(self):
        self._original_place = get_device()
        set_device(self._target_place)

    def __exit__(self, exc_type, exc_value, traceback):
        set_device(self._original_place)


def get_device_properties(device: PlaceLike | int | None = None) -> NoReturn:
    """The properties (name, compute capability, memory, ...) of a GPU or custom device.

    Args:
        device (str | Place | int | None, optional): the device; None is the current one.

    Returns:
        object: never; see Raises.

    Raises:
        ValueError: always: oar is a CPU build (as paddle.device.cuda's on Paddle's CPU
            build; paddle.device's fails there with a NameError).
    """
    raise ValueError(
        "get_device_properties(): oar is built for the CPU only; device "
        "properties describe a GPU or custom device"
    )


def get_device_name(device: PlaceLike | int | None = None) -> NoReturn:
    """The name of a GPU or custom device.

    Args:
        device (str | Place | int | None, optional): the device; None is the current one.

    Returns:
        str: never; see Raises.

    Raises:
        ValueError: always: oar is a CPU build.
    """
    raise ValueError(
        "get_device_name(): oar is built for the CPU only; the name is a GPU or custom device's"
    )


def get_device_capability(device: PlaceLike | int | None = None) -> NoReturn:
    """The (major, minor) compute capability of a GPU or custom device.

    Args:
        device (str | Place | int | None, optional): the device; None is the current one.

    Returns:
        tuple[int, int]: never; see Raises.

    Raises:
        ValueError: always: oar is a CPU build.
    """
    raise ValueError(
        "get_device_capability(): oar is built for the CPU only; the compute "
        "capability is a GPU or custom device's"
    )


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether the current device computes in bfloat16.

    oar computes bfloat16 on every CPU, converting through float32 where the CPU lacks
    native bfloat16 instructions; with including_emulation=False only the native support
    counts (oar.amp.is_bfloat16_supported()).

    Args:
        including_emulation (bool, optional): count support by conversion. Default True.

    Returns:
        bool: True with emulation; else whether the CPU has bfloat16 instructions.
    """
    if including_emulation:
        return True
    return _bfloat16_native()


def manual_seed(seed: int | float | str) -> None:
    """Seeds the current device's (the CPU's) default random generator, as oar.seed.

    Args:
        seed (int): the seed, converted with int() (so "3" and 3.7 give 3); it must lie
            in [0, 2**64), the generator's 64-bit unsigned range.

    Returns:
        None

    Raises:
        TypeError: the seed is outside [0, 2**64) (Paddle's CPU build raises TypeError
            too). ValueError/TypeError from int() for a value that is not a number.
    """
    seed = int(seed)
    if not 0 <= seed < 2**64:
        raise TypeError(f"manual_seed(): argument 'seed' must be in [0, 2**64), got {seed}")
    # _C.seed takes an int64 and stores its bits as the uint64 seed; seeds of 2**63 and
    # above pass as the negative int64 with the same bits.
    _C.seed(seed - 2**64 if seed >= 2**63 else seed)


from ._memory import (
    empty_cache,
    ipc_collect,
    max_memory_allocated,  # noqa: E402,F401
    max_memory_reserved,
    memory_allocated,
    memory_reserved,
    reset_max_memory_allocated,
    reset_max_memory_reserved,
    reset_peak_memory_stats,
)
from ._streams import (
    Event,
    Stream,
    StreamContext,
    current_stream,  # noqa: E402,F401
    get_stream_from_external,
    is_current_stream_capturing,
    set_stream,
    stream_guard,
)
from ._tensor_types import (
    BFloat16Tensor,
    BoolTensor,
    ByteTensor,  # noqa: E402,F401
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)


class CpuIsa(NamedTuple):
    """The result of cpu_isa()."""

    dispatched: str
    detected: str


def cpu_isa() -> CpuIsa:
    """The instruction-set level oar's kernels dispatch to, and the CPU's own.

    Levels, lowest first: ``"sse2"``, ``"avx2"`` (x86-64-v3), ``"avx512"``
    (x86-64-v4), ``"avx512_bf16"``; ``"scalar"`` off x86-64. The hand-written SIMD
    kernels and oneDNN use the dispatched level, which is the CPU's unless the
    environment variable ``OAR_MAX_CPU_ISA`` (read once, at import) caps it lower,
    as the test command does to run a wide machine's tests on the narrower paths.
    An oar extension: Paddle has no such query.

    Returns:
        CpuIsa: a named tuple ``(dispatched, detected)`` of level names.

    Example::

        >>> import oar
        >>> oar.device.cpu_isa().dispatched in ("sse2", "avx2", "avx512", "avx512_bf16")
        True
    """
    dispatched_detected = _C._cpu_isa()
    return CpuIsa(dispatched=dispatched_detected[1], detected=dispatched_detected[0])
