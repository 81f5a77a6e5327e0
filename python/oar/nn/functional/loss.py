"""oar.nn.functional: losses (as Paddle's paddle.nn.functional.loss)."""

__all__: list[str] = []
