"""oar.amp.is_bfloat16_supported / is_float16_supported (Paddle's names): does this
CPU do bfloat16 / float16 arithmetic natively?

oar runs every bfloat16/float16 op on any CPU -- the kernels convert to float32
and back -- so False does not mean "fails", it means "no faster than float32,
only smaller". True means the processor has instructions that compute on the
16-bit format itself:

    bfloat16: x86 avx512_bf16 or amx_bf16; aarch64 bf16
    float16:  x86 avx512_fp16 or amx_fp16; aarch64 fphp/asimdhp (half-precision
              scalar/vector arithmetic)

The answer comes from the feature flags Linux lists in /proc/cpuinfo ("flags" on
x86, "Features" on ARM); elsewhere, or when the file cannot be read, it is False.
It is also False when OAR_MAX_CPU_ISA caps oar's kernels below the level that has
those instructions (oar.device.cpu_isa()): oar then does not use them.
"""

from __future__ import annotations

from .. import _C
from ..framework.typing import PlaceLike

__all__ = ["is_bfloat16_supported", "is_float16_supported"]

_BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16", "bf16"})
_FP16_FLAGS = frozenset({"avx512_fp16", "amx_fp16", "fphp", "asimdhp"})
_OTHER_DEVICES = ("gpu", "xpu", "npu", "ipu", "mlu", "custom")


_flags_cache: dict[str, frozenset] = {}


def _capped_below(level):
    """Whether OAR_MAX_CPU_ISA keeps dispatch below `level` on this x86 CPU."""
    detected, dispatched = _C._cpu_isa()
    order = ("sse2", "avx2", "avx512", "avx512_bf16")
    if dispatched not in order:  # not x86-64: no levels to cap
        return False
    return dispatched != detected and order.index(dispatched) < order.index(level)


def _cpu_flags(path="/proc/cpuinfo"):
    """The feature flags of the first processor listed (all cores of a machine
    share them), or an empty set; read once per path."""
    if path not in _flags_cache:
        _flags_cache[path] = _read_flags(path)
    return _flags_cache[path]


def _read_flags(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                key, sep, value = line.partition(":")
                if sep and key.strip().lower() in ("flags", "features"):
                    return frozenset(value.split())
    except OSError:
        pass
    return frozenset()


def _is_cpu(who, device):
    """True for the CPU (None, "cpu", a CPU place), False for another device kind
    (oar has none, so nothing is supported there)."""
    if device is None:
        return True
    if not isinstance(device, str):
        name = str(device).lower()  # a Place prints as "Place(cpu)"
        if "cpu" in name:
            return True
        raise TypeError(
            f"{who}: argument 'device' must be None, a device string such as "
            f"'cpu', or a Place; got {type(device).__name__}"
        )
    kind = device.lower().split(":")[0]
    if kind == "cpu":
        return True
    if kind in _OTHER_DEVICES:
        return False
    raise ValueError(
        f"{who}: argument 'device' must name a device ('cpu', 'gpu:0', ...), got {device!r}"
    )


def is_bfloat16_supported(device: PlaceLike | int | None = None) -> bool:
    """Whether the CPU computes in bfloat16 natively (see the module note; oar runs
    bfloat16 without it, converting). Other device kinds: False."""
    if not _is_cpu("is_bfloat16_supported", device) or _capped_below("avx512_bf16"):
        return False
    return bool(_cpu_flags() & _BF16_FLAGS)


def is_float16_supported(device: PlaceLike | int | None = None) -> bool:
    """Whether the CPU computes in float16 natively (see the module note; oar runs
    float16 without it, converting). Other device kinds: False."""
    # No level of OAR_MAX_CPU_ISA names float16's instructions: any cap excludes them.
    if not _is_cpu("is_float16_supported", device) or _capped_below("avx512_bf16"):
        return False
    return bool(_cpu_flags() & _FP16_FLAGS)
