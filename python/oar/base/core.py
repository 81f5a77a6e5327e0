"""oar.base.core: the build queries of Paddle's paddle.base.core for a CPU-only build."""

from __future__ import annotations

from ..device import (
    is_compiled_with_cinn,
    is_compiled_with_cuda,  # noqa: F401
    is_compiled_with_custom_device,
    is_compiled_with_distribute,
    is_compiled_with_ipu,
    is_compiled_with_rocm,
    is_compiled_with_xpu,
)


def is_compiled_with_mkldnn() -> bool:
    """True: oar's convolutions and bfloat16 GEMMs run on oneDNN (Paddle's MKLDNN)."""
    return True


def is_compiled_with_onednn() -> bool:
    """True: oar links oneDNN."""
    return True


def is_compiled_with_nccl() -> bool:
    """False: oar's collectives run on Gloo (oar.distributed)."""
    return False


def is_compiled_with_brpc() -> bool:
    """False: oar has no parameter server."""
    return False


def get_cuda_device_count() -> int:
    """0: oar has no CUDA."""
    return 0


__all__ = [
    "is_compiled_with_cuda",
    "is_compiled_with_rocm",
    "is_compiled_with_xpu",
    "is_compiled_with_ipu",
    "is_compiled_with_cinn",
    "is_compiled_with_distribute",
    "is_compiled_with_custom_device",
    "is_compiled_with_mkldnn",
    "is_compiled_with_onednn",
    "is_compiled_with_nccl",
    "is_compiled_with_brpc",
    "get_cuda_device_count",
]
