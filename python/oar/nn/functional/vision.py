"""oar.nn.functional: pixel_shuffle, grid helpers (as Paddle's paddle.nn.functional.vision)."""

__all__: list[str] = []
