"""Mixed precision: auto_cast (docs/amp.md)."""
from .auto_cast import amp_guard, auto_cast

__all__ = ["auto_cast", "amp_guard"]
