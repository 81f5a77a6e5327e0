"""oar.nn: functional ops (layers and losses come later)."""
from . import functional  # noqa: F401
