"""oar.nn.functional: batch/layer/group/instance/rms norm, normalize (as Paddle's paddle.nn.functional.norm)."""

__all__: list[str] = []
