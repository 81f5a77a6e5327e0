"""PyLayer: a Python forward/backward pair recorded as one node of the graph."""
from .. import _C


class PyLayerContext(_C._FunctionContext):
    """The `ctx` of PyLayer.forward/backward: save_for_backward(*tensors),
    saved_tensor(), mark_non_differentiable(*tensors), and any attributes you set."""


class PyLayer:
    """Subclass with @staticmethod forward(ctx, *args, **kwargs) and
    backward(ctx, *grads), then call MyLayer.apply(*args, **kwargs).

    forward runs without recording; backward receives one gradient per forward
    output and returns one gradient (or None) per Tensor input. Written in oar
    ops, backward is itself differentiable (gradients of any order)."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("PyLayer subclasses must define forward(ctx, ...)")

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("PyLayer subclasses must define backward(ctx, *grads)")

    @classmethod
    def apply(cls, *args, **kwargs):
        return _C._pylayer_apply(cls, PyLayerContext(), args, kwargs)
