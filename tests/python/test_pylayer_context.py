"""PyLayerContext's Paddle switches: set_materialize_grads, set_grad_in_dtype_consistent,
mark_not_inplace."""
import numpy as np
import pytest

import oar
from oar.autograd import PyLayer


def _leaf(values, dtype="float64"):
    t = oar.to_tensor(np.asarray(values, dtype=dtype))
    t.stop_gradient = False
    return t


def _two_outputs(materialize):
    seen = {}

    class Two(PyLayer):
        @staticmethod
        def forward(ctx, x):
            if materialize is not None:
                ctx.set_materialize_grads(materialize)
            return x * 3, x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            seen["g2"] = g2
            return g1 * 3 if g2 is None else g1 * 3 + g2 * 2
    return Two, seen


@pytest.mark.parametrize("materialize", [None, True, False])
def test_set_materialize_grads(materialize):
    layer, seen = _two_outputs(materialize)
    x = _leaf([1.0, 2.0])
    layer.apply(x)[0].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])
    if materialize is False:
        assert seen["g2"] is None
    else:
        np.testing.assert_array_equal(seen["g2"].numpy(), [0.0, 0.0])


def test_set_materialize_grads_type_error():
    with pytest.raises(TypeError, match="bool"):
        oar.autograd.PyLayerContext().set_materialize_grads(1)
    with pytest.raises(TypeError, match="bool"):
        oar.autograd.PyLayerContext().set_grad_in_dtype_consistent("no")


@pytest.mark.parametrize("consistent", [True, False])
def test_set_grad_in_dtype_consistent(consistent):
    seen = {}

    class Identity(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.set_grad_in_dtype_consistent(consistent)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            seen["dtype"] = g.dtype
            return g.astype("float32")

    class ToHalf(PyLayer):
        @staticmethod
        def forward(ctx, y):
            return y * 1

        @staticmethod
        def backward(ctx, g):
            return g.astype("float64")  # not y's dtype (float32)

    x = _leaf([1.0, 2.0], "float32")
    ToHalf.apply(Identity.apply(x)).sum().backward()
    assert seen["dtype"] == (oar.float32 if consistent else oar.float64)
    assert x.grad.dtype == oar.float32


def test_mark_not_inplace_keeps_the_input_history():
    class Same(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_not_inplace(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = _leaf([1.0])
    y = Same.apply(x)
    assert y is not x and x.is_leaf
    Same.apply(y).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [4.0])

    class Bad(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_not_inplace(1.0)
            return x

        @staticmethod
        def backward(ctx, g):
            return g
    with pytest.raises(TypeError, match="mark_not_inplace"):
        Bad.apply(_leaf([1.0]))
