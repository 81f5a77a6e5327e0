"""oar.device: Paddle's device API on a CPU-only framework.

oar has one device, the CPU. The functions here take Paddle's arguments and answer
truthfully for that build: "cpu" is accepted wherever a device is named, any other
device ("gpu", "gpu:0", "xpu", "npu:1", a CUDAPlace) raises a ValueError saying oar was
built for the CPU only, and every is_compiled_with_* is False.
"""
from __future__ import annotations

import re

from .._dtype import CPUPlace, Place

__all__ = [
    "set_device", "get_device", "get_all_device_type", "get_all_custom_device_type",
    "get_available_device", "get_available_custom_device", "is_compiled_with_cuda",
    "is_compiled_with_rocm", "is_compiled_with_xpu", "is_compiled_with_ipu",
    "is_compiled_with_cinn", "is_compiled_with_distribute", "is_compiled_with_custom_device",
    "is_available", "device_count", "synchronize", "CUDAPlace", "XPUPlace", "IPUPlace",
    "CUDAPinnedPlace", "get_cudnn_version", "get_rng_state", "set_rng_state",
]

_DEVICE = re.compile(r"^([a-z_]+)(?::(\d+))?$")


def _cpu_only(what):
    return ValueError(f"{what}: oar is built for the CPU only; the only device is 'cpu'")


def _to_place(device, op):
    if isinstance(device, Place):
        if device.kind == "cpu":
            return device
        raise _cpu_only(f"{op}: argument 'device' is {device!r}")
    if isinstance(device, int) and not isinstance(device, bool):
        # Paddle reads an int as a GPU index.
        raise _cpu_only(f"{op}: argument 'device' is the GPU index {device}")
    if not isinstance(device, str):
        raise TypeError(f"{op}: argument 'device' must be a str or a Place, got "
                        f"{type(device).__name__}")
    m = _DEVICE.match(device.strip().lower())
    if m is None:
        raise ValueError(f"{op}: argument 'device' must look like 'cpu', 'gpu' or 'gpu:0', "
                         f"got {device!r}")
    if m.group(1) == "cpu":
        return CPUPlace()
    raise _cpu_only(f"{op}: argument 'device' is {device!r}")


def set_device(device):
    """Sets the device ops run on; only "cpu" (or a CPUPlace) exists. Returns the Place."""
    return _to_place(device, "set_device")


def get_device(input=None):
    """The current device's name, "cpu"; with a tensor, its device id: -1 (the CPU)."""
    if input is not None:
        from .. import _C
        if not isinstance(input, _C.Tensor):
            raise TypeError(f"get_device: argument 'input' must be a Tensor or None, got "
                            f"{type(input).__name__}")
        return -1
    return "cpu"


def get_all_device_type():
    """The device types besides the CPU this build has: none (Paddle's CPU build: [])."""
    return []


def get_all_custom_device_type():
    """The custom (plug-in) device types registered: none."""
    return []


def get_available_device():
    """The non-CPU devices available: none (Paddle's CPU build: [])."""
    return []


def get_available_custom_device():
    """The custom devices available: none."""
    return []


def is_compiled_with_cuda():
    """False: oar has no CUDA kernels."""
    return False


def is_compiled_with_rocm():
    """False: oar has no ROCm kernels."""
    return False


def is_compiled_with_xpu():
    """False: oar has no XPU kernels."""
    return False


def is_compiled_with_ipu():
    """False: oar has no IPU support."""
    return False


def is_compiled_with_cinn():
    """False: oar has no CINN compiler (it runs eagerly)."""
    return False


def is_compiled_with_distribute():
    """True when this build has oar.distributed's collectives (Gloo was found at build
    time, docs/distributed.md)."""
    from .. import _C
    return hasattr(_C, "_dist_init")


def is_compiled_with_custom_device(device_type):
    """False for every device type: oar loads no device plug-ins."""
    if not isinstance(device_type, str):
        raise TypeError("is_compiled_with_custom_device: argument 'device_type' must be a str, "
                        f"got {type(device_type).__name__}")
    return False


def is_available():
    """Whether an accelerator is available: never in oar."""
    return False


def device_count():
    """The number of GPUs: 0."""
    return 0


def synchronize(device=None):
    """Waits for the device's work; the CPU runs ops synchronously, so only checks device."""
    if device is not None:
        _to_place(device, "synchronize")


def CUDAPlace(id=0):  # noqa: N802 - Paddle's name
    """Raises: a GPU place cannot exist in oar."""
    raise _cpu_only(f"CUDAPlace({id})")


def CUDAPinnedPlace():  # noqa: N802 - Paddle's name
    """Raises: pinned (page-locked for GPU copies) memory needs a GPU."""
    raise _cpu_only("CUDAPinnedPlace()")


def XPUPlace(dev_id=0):  # noqa: N802 - Paddle's name
    """Raises: an XPU place cannot exist in oar."""
    raise _cpu_only(f"XPUPlace({dev_id})")


def IPUPlace():  # noqa: N802 - Paddle's name
    """Raises: an IPU place cannot exist in oar."""
    raise _cpu_only("IPUPlace()")


def get_cudnn_version():
    """The cuDNN version oar uses: None (no cuDNN; Paddle's CPU build answers the same)."""
    return None


def get_rng_state(device=None):
    """The states of the random generators of device (None: the current one, the CPU), as
    a list of GeneratorState (one: the CPU generator's). Give it to set_rng_state to draw
    the same random numbers again."""
    from ._rng import get_state
    if device is not None:
        _to_place(device, "get_rng_state")
    return [get_state()]


def set_rng_state(state_list, device=None):
    """Restores the generator states returned by get_rng_state(device)."""
    from ._rng import set_state
    if device is not None:
        _to_place(device, "set_rng_state")
    if not isinstance(state_list, (list, tuple)) or len(state_list) != 1:
        raise ValueError(f"set_rng_state(): argument 'state_list' must be the list of one "
                         f"GeneratorState that get_rng_state() returns, but got {state_list!r}")
    set_state(state_list[0])
