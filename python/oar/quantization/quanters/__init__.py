"""oar.quantization.quanters: quanters for quantization-aware training."""

from .abs_max import FakeQuanterWithAbsMaxObserver, FakeQuanterWithAbsMaxObserverLayer  # noqa: F401

__all__ = ["FakeQuanterWithAbsMaxObserver"]
