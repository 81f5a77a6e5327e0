"""oar.amp.support: the CPU's native float16/bfloat16 support, as oar.amp names it (the
queries live in oar.device.support, below oar.amp)."""

from ..device.support import is_bfloat16_supported, is_float16_supported  # noqa: F401

__all__ = ["is_bfloat16_supported", "is_float16_supported"]
