"""The errors of oar.load and oar.save's readers (oar.framework.io, .paddle_pickle)."""

from __future__ import annotations

__all__ = ["CheckpointError", "UnsafeCheckpointError"]


class CheckpointError(ValueError):
    """The file is not a readable checkpoint (corrupt, truncated, neither safetensors nor
    Paddle's pickle format, or written by an incompatible version)."""


class UnsafeCheckpointError(CheckpointError):
    """A pickled checkpoint names a global that is not data (a function, a class, a
    module): oar.load refuses it before calling anything. `global_name` is the
    "module.name" the file asked for, `path` the file."""

    def __init__(self, path: str, global_name: str, why: str = "") -> None:
        self.path, self.global_name = path, global_name
        super().__init__(
            f"oar.load: {path!r} asks the unpickler for {global_name}"
            + (f" ({why})" if why else "")
            + "; oar.load reads only what paddle.save writes (numpy arrays, dtypes and "
            "scalars, OrderedDict, builtin containers and numbers) and never runs code "
            "from a file: nothing was called"
        )
