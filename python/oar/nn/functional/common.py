"""oar.nn.functional: linear, dropout, pad, interpolate, one_hot-like helpers, cosine_similarity, unfold/fold (as Paddle's paddle.nn.functional.common)."""

__all__: list[str] = []
