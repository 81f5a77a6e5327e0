"""oar.nn.functional: scaled_dot_product_attention (as Paddle's paddle.nn.functional.flash_attention)."""

__all__: list[str] = []
