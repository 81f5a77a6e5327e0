"""DLPack exchange: to_dlpack, from_dlpack and Tensor.__dlpack__/__dlpack_device__."""

from __future__ import annotations

from typing import Any

from .. import _C
from . import check as C
from .check import _cpu_device

Tensor = _C.Tensor


# ---- DLPack and numpy ----------------------------------------------------------------------
_KDLCPU = 1


def _tensor_dlpack(
    self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None, copy: Any = None
) -> Any:
    """A DLPack capsule of this tensor's memory (the data is shared, not copied)."""
    if stream is not None:
        raise ValueError("__dlpack__(): argument 'stream' must be None for a CPU tensor")
    if copy:
        return _C._to_dlpack(_C.assign(self.detach()))
    return _C._to_dlpack(self.detach())


def _tensor_dlpack_device(self) -> tuple[int, int]:
    """(kDLCPU, 0): oar tensors live in CPU memory."""
    return (_KDLCPU, 0)


def to_dlpack(x: Tensor) -> Any:
    """A DLPack capsule ("dltensor") sharing x's memory; from_dlpack (in oar, numpy, torch,
    ...) turns it back into a tensor without a copy, once.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([1.0, 2.0])
        >>> y = oar.from_dlpack(oar.to_dlpack(x))
        >>> y[0] = 5.0
        >>> print(x.tolist())
        [5.0, 2.0]
    """
    C.tensor("to_dlpack", "x", x)
    return _C._to_dlpack(x.detach())


def from_dlpack(dlpack: Any, *, device: Any = None, copy: bool | None = None) -> Tensor:
    """A tensor sharing the memory of a DLPack capsule or of an object with __dlpack__ and
    __dlpack_device__ (a numpy array, a torch CPU tensor, an oar tensor). copy=True copies.

    Examples:
        >>> import oar
        >>> import numpy as np
        >>> a = np.array([1.0, 2.0])
        >>> t = oar.from_dlpack(a)
        >>> t[1] = 7.0
        >>> print(a)
        [1. 7.]
    """
    _cpu_device("from_dlpack", device)
    if isinstance(dlpack, Tensor):
        return _C.assign(dlpack) if copy else dlpack.detach()
    if type(dlpack).__name__ == "PyCapsule":
        capsule = dlpack
    elif hasattr(dlpack, "__dlpack__") and hasattr(dlpack, "__dlpack_device__"):
        dev = dlpack.__dlpack_device__()
        if int(dev[0]) != _KDLCPU:
            raise ValueError(
                f"from_dlpack(): the data lives on device {tuple(dev)}; oar is "
                f"built for the CPU only (kDLCPU = 1)"
            )
        try:
            capsule = dlpack.__dlpack__()
        except BufferError as e:  # e.g. a read-only numpy array
            raise TypeError(f"from_dlpack(): the object cannot export its data: {e}") from None
    else:
        raise TypeError(
            f"from_dlpack(): argument 'dlpack' must be a DLPack capsule or an "
            f"object with __dlpack__ and __dlpack_device__, but got "
            f"{type(dlpack).__name__}"
        )
    t = _C._from_dlpack(capsule)
    return _C.assign(t) if copy else t
