"""oar.nn.functional: pooling (as Paddle's paddle.nn.functional.pooling)."""

__all__: list[str] = []
