"""oar.audio.datasets: Paddle's audio classification datasets ESC50 and TESS, read from
local files (oar downloads nothing; dataset.py says where the files are looked for)."""

from .esc50 import ESC50
from .tess import TESS

__all__ = ["ESC50", "TESS"]
