"""oar.nn.functional: convolutions (as Paddle's paddle.nn.functional.conv)."""

__all__: list[str] = []
