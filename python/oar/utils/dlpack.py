"""oar.utils.dlpack: Paddle's paddle.utils.dlpack, the DLPack exchange functions. They
are oar.to_dlpack and oar.from_dlpack themselves (in Paddle too, the same objects as
paddle.to_dlpack / paddle.from_dlpack)."""

from ..framework.dlpack import from_dlpack, to_dlpack  # noqa: F401

__all__ = ["to_dlpack", "from_dlpack"]
