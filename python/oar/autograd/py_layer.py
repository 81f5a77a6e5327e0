"""PyLayer: a Python forward/backward pair recorded as one node of the graph."""

from .. import _C


class PyLayerContext(_C._FunctionContext):
    """The `ctx` of PyLayer.forward/backward: save_for_backward(*tensors),
    saved_tensor(), mark_non_differentiable(*tensors), mark_not_inplace(*tensors),
    set_materialize_grads(bool), set_grad_in_dtype_consistent(bool), and any attributes
    you set."""

    def mark_not_inplace(self, *args):
        """Marks inputs that forward may return as they are: the output becomes a new
        tensor sharing the input's data, so the input's own gradient history is kept.
        oar does this for every input forward returns, marked or not, so this only
        checks that the arguments are Tensors."""
        for i, t in enumerate(args):
            if not isinstance(t, _C.Tensor):
                raise TypeError(
                    f"mark_not_inplace(): argument {i} must be a Tensor, but got {type(t).__name__}"
                )


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
