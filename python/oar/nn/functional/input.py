"""oar.nn.functional: one_hot, embedding (as Paddle's paddle.nn.functional.input)."""

__all__: list[str] = []
