"""Writing a result into the out= tensor the caller gives (the compat functions')."""

from ..framework import check as C
from ..framework.param import _set_value


def _write(api, src, dst, name="out"):
    """Copy src into the caller's buffer dst (same shape; cast to dst's dtype)."""
    C.tensor(api, name, dst)
    if list(dst.shape) != list(src.shape):
        raise ValueError(
            f"{api}(): argument '{name}' has shape {list(dst.shape)}, but the "
            f"result has shape {list(src.shape)}"
        )
    _set_value(dst, src)
    return dst
