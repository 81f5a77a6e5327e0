"""Mixed precision on the CPU (docs/amp.md): auto_cast, decorate with float32
master weights, GradScaler, and whether this CPU computes bfloat16/float16
natively; oar.amp.debugging for NaN/Inf checks, operator statistics and accuracy
comparison."""

from . import debugging  # noqa: F401
from .auto_cast import (
    amp_guard,
    auto_cast,
    get_autocast_cpu_dtype,
    get_autocast_dtype,
    get_autocast_gpu_dtype,
    is_autocast_enabled,
)
from .decorate import decorate
from .grad_scaler import AmpScaler, GradScaler, OptimizerState
from .support import is_bfloat16_supported, is_float16_supported

__all__ = [
    "auto_cast",
    "amp_guard",
    "decorate",
    "GradScaler",
    "AmpScaler",
    "OptimizerState",
    "is_bfloat16_supported",
    "is_float16_supported",
    "debugging",
    "is_autocast_enabled",
    "get_autocast_dtype",
    "get_autocast_cpu_dtype",
    "get_autocast_gpu_dtype",
]
