"""oar.nn.functional: pairwise_distance (as Paddle's paddle.nn.functional.distance)."""

__all__: list[str] = []
