"""oar.quantization.observers: observers for post-training quantization."""

from .abs_max import AbsmaxObserver, AbsmaxObserverLayer  # noqa: F401

__all__ = ["AbsmaxObserver"]
