"""oar.nn.attention: choosing the scaled_dot_product_attention backend (Paddle's
paddle.nn.attention)."""

from .sdpa import SDPBackend, _cur_sdpa_kernel_backends, sdpa_kernel  # noqa: F401

__all__ = ["SDPBackend", "sdpa_kernel"]
