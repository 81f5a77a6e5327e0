"""Device arguments: oar has one device, the CPU; any other place named raises."""

import re

from .dtype import CPUPlace, Place

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
        raise TypeError(
            f"{op}: argument 'device' must be a str or a Place, got {type(device).__name__}"
        )
    m = _DEVICE.match(device.strip().lower())
    if m is None:
        raise ValueError(
            f"{op}: argument 'device' must look like 'cpu', 'gpu' or 'gpu:0', got {device!r}"
        )
    if m.group(1) == "cpu":
        return CPUPlace()
    raise _cpu_only(f"{op}: argument 'device' is {device!r}")
