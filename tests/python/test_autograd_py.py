"""Autograd from Python (docs/autograd.md; docs/python.md 'autograd'): backward, grad, hooks,
grad mode, PyLayer (and its alias oar.autograd.Function), saved-tensor hooks,
jacobian/hessian, inplace versions, Tensor.detach_, flags."""
import threading

import numpy as np
import pytest
import torch

import oar
from oar.autograd import PyLayer


def leaf(values, dtype="float32"):
    return oar.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=False)


def close(t, ref, rtol=1e-6, atol=1e-6):
    np.testing.assert_allclose(t.numpy(), np.asarray(ref), rtol=rtol, atol=atol)


# ---- Tensor.backward ----------------------------------------------------------------------


def test_backward_default_seed_scalar():
    x = leaf([1.0, 2.0, 3.0])
    (x * x).sum().backward()
    close(x.grad, [2.0, 4.0, 6.0])
    assert x.grad.shape == [3] and x.grad.dtype == oar.float32


def test_backward_default_seed_is_ones_for_non_scalar():
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    (x * x * x).backward()
    close(x.grad, 3 * np.array([[1.0, 2.0], [3.0, 4.0]]) ** 2)


def test_backward_custom_grad_tensor():
    x = leaf([1.0, 2.0, 3.0])
    y = x * x
    y.backward(oar.to_tensor([1.0, 0.5, -1.0]))
    close(x.grad, [2.0, 2.0, -6.0])
    x2 = leaf([1.0, 2.0])
    (x2 * 3).sum().backward(grad_tensor=oar.to_tensor(2.0))
    close(x2.grad, [6.0, 6.0])


def test_backward_retain_graph_and_accumulation():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    close(x.grad, [2.0, 4.0])
    y.backward()
    close(x.grad, [4.0, 8.0])  # accumulated
    z = (x * 3).sum()
    z.backward()
    close(x.grad, [7.0, 11.0])


def test_backward_branches_and_shared_subexpression_vs_torch():
    a = np.array([0.3, -1.2, 2.0])
    x, tx = leaf(a, "float64"), torch.tensor(a, requires_grad=True)

    def f(m, v):
        h = m.tanh(v) if m is torch else oar.tanh(v)
        e = m.exp(h)
        return (e * h + h * h - e).sum()

    f(oar, x).backward()
    f(torch, tx).backward()
    close(x.grad, tx.grad.numpy(), rtol=1e-12)


def test_backward_through_int_path_is_cut():
    x = leaf([1.5, 2.5])
    y = (x * 2).astype("int64").astype("float32") + x
    y.sum().backward()
    close(x.grad, [1.0, 1.0])


def test_backward_on_stop_gradient_tensor_errors():
    x = oar.to_tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="stop_gradient"):
        (x * 2).sum().backward()


# ---- oar.grad --------------------------------------------------------------------------------


def test_grad_basic_does_not_touch_dot_grad():
    x = leaf([1.0, 2.0, 3.0])
    w = leaf([4.0, 5.0, 6.0])
    y = (x * w).sum()
    gx, gw = oar.grad(y, [x, w])
    close(gx, [4.0, 5.0, 6.0])
    close(gw, [1.0, 2.0, 3.0])
    assert x.grad is None and w.grad is None
    assert gx.stop_gradient is True


def test_grad_returns_list_for_single_tensor_args():
    x = leaf([2.0])
    out = oar.grad(x * x, x)
    assert isinstance(out, list) and len(out) == 1
    close(out[0], [4.0])


def test_grad_shows_its_signature_and_takes_every_argument_by_name():
    import inspect

    params = inspect.signature(oar.grad).parameters
    assert list(params) == ["outputs", "inputs", "grad_outputs", "retain_graph",
                            "create_graph", "only_inputs", "allow_unused", "no_grad_vars"]
    assert [params[n].default for n in list(params)[2:]] == [None, None, False, True, False,
                                                             None]
    assert oar.grad.__doc__.startswith("d(outputs)/d(inputs)")
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    y = (x * w).sum()
    (gx, gw) = oar.grad(outputs=y, inputs=[x, w], grad_outputs=None, retain_graph=True,
                        create_graph=False, only_inputs=True, allow_unused=False,
                        no_grad_vars=None)
    close(gx, [3.0, 4.0])
    close(gw, [1.0, 2.0])
    (gw_only,) = oar.grad(outputs=[y], inputs=[w], no_grad_vars=[x])
    close(gw_only, [1.0, 2.0])


def test_grad_grad_outputs():
    x = leaf([1.0, 2.0])
    (g,) = oar.grad([x * x], [x], grad_outputs=[oar.to_tensor([3.0, -1.0])])
    close(g, [6.0, -4.0])


def test_grad_create_graph_second_and_third_order():
    x = leaf([1.0, 2.0])
    y = (x ** 4).sum()
    (g1,) = oar.grad([y], [x], create_graph=True)
    assert g1.stop_gradient is False
    close(g1, 4 * np.array([1.0, 2.0]) ** 3)
    (g2,) = oar.grad([g1.sum()], [x], create_graph=True)
    close(g2, 12 * np.array([1.0, 2.0]) ** 2)
    (g3,) = oar.grad([g2.sum()], [x])
    close(g3, 24 * np.array([1.0, 2.0]))
    assert g3.stop_gradient is True
    assert x.grad is None


def test_grad_retain_graph_default_follows_create_graph():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    oar.grad([y], [x])
    with pytest.raises(RuntimeError, match="retain_graph"):
        oar.grad([y], [x])
    y2 = (x * x).sum()
    oar.grad([y2], [x], create_graph=True)
    (g,) = oar.grad([y2], [x])  # still there: retain_graph defaulted to True
    close(g, [2.0, 4.0])
    y3 = (x * x).sum()
    oar.grad([y3], [x], retain_graph=True)
    (g,) = oar.grad([y3], [x], retain_graph=False)
    close(g, [2.0, 4.0])


def test_grad_allow_unused_returns_none():
    x = leaf([1.0])
    u = leaf([2.0])
    c = oar.to_tensor([5.0])  # stop_gradient input
    out = oar.grad([(x * 3).sum()], [x, u, c], allow_unused=True)
    assert len(out) == 3
    close(out[0], [3.0])
    assert out[1] is None and out[2] is None


def test_grad_no_grad_vars_cuts_edges():
    x = leaf([1.0, 2.0])
    a = x * x            # a = x^2
    y = (a * x).sum()    # y = x^3, but with a treated as a constant: dy/dx = a
    (g,) = oar.grad([y], [x], no_grad_vars=[a])
    close(g, [1.0, 4.0])
    y2 = ((x * x) * x).sum()
    (g2,) = oar.grad([y2], [x])
    close(g2, [3.0, 12.0])


def test_grad_only_inputs_false_accumulates_other_leaves():
    x = leaf([1.0, 2.0])
    w = leaf([3.0, 4.0])
    (gx,) = oar.grad([(x * w).sum()], [x], only_inputs=False)
    close(gx, [3.0, 4.0])
    assert x.grad is None
    close(w.grad, [1.0, 2.0])


def test_grad_intermediate_inputs():
    x = leaf([1.0, 2.0])
    h = x * 3
    y = (h * h).sum()
    gh, gx = oar.grad([y], [h, x])
    close(gh, [6.0, 12.0])
    close(gx, [18.0, 36.0])


def test_grad_multiple_outputs_sum():
    x = leaf([1.0, 2.0])
    (g,) = oar.grad([(x * x).sum(), (x * 5).sum()], [x])
    close(g, [7.0, 9.0])


def test_autograd_backward_function():
    x = leaf([1.0, 2.0])
    y1 = (x * x).sum()
    y2 = x * 3
    oar.autograd.backward([y1, y2], [None, oar.to_tensor([1.0, 2.0])])
    close(x.grad, [2.0 + 3.0, 4.0 + 6.0])
    x2 = leaf([1.0])
    oar.autograd.backward((x2 * 4).sum())
    close(x2.grad, [4.0])
    y = (x2 * x2).sum()
    oar.autograd.backward([y], retain_graph=True)
    oar.autograd.backward([y])
    close(x2.grad, [4.0 + 2.0 + 2.0])


# ---- stop_gradient / is_leaf / .grad / retain_grads / clear_grad ------------------------------------


def test_stop_gradient_propagation():
    a = leaf([1.0])
    b = oar.to_tensor([2.0])
    assert (a * b).stop_gradient is False
    assert (b * b).stop_gradient is True
    b.stop_gradient = False
    c = b * 2
    c.backward()
    close(b.grad, [2.0])
    # stop_gradient on an intermediate detaches what follows
    x = leaf([1.0, 2.0])
    d = (x * 2).detach()
    assert d.stop_gradient
    (d * x).sum().backward()
    close(x.grad, [2.0, 4.0])


def test_non_leaf_grad_only_with_retain_grads():
    x = leaf([1.0, 2.0])
    h = x * 2
    k = x * 3
    h.retain_grads()
    (h * h + k).sum().backward()
    close(h.grad, [4.0, 8.0])
    assert k.grad is None
    close(x.grad, [8.0 + 3.0, 16.0 + 3.0])


def test_clear_grad_set_to_zero_true_and_false():
    x = leaf([1.0, 2.0])
    (x * x).sum().backward()
    close(x.grad, [2.0, 4.0])
    x.clear_grad()
    assert x.grad is not None
    close(x.grad, [0.0, 0.0])
    (x * x).sum().backward()
    close(x.grad, [2.0, 4.0])
    x.clear_grad(set_to_zero=False)
    assert x.grad is None
    (x * 5).sum().backward()
    close(x.grad, [5.0, 5.0])
    x.clear_gradient(False)
    assert x.grad is None


def test_cleared_gradient_memory_is_released_until_read():
    # nothing else holds the gradient: clear_grad() frees its memory, the zeros come on
    # reading, and the next backward stores its gradient without an add
    n = 1 << 20
    x = leaf(np.arange(n) % 7)
    (x * x).sum().backward()
    with_grad = oar.memory_stats()["bytes_in_use"]
    x.clear_grad()
    assert oar.memory_stats()["bytes_in_use"] <= with_grad - 4 * n
    (x * 3).sum().backward()
    close(x.grad, np.full(n, 3.0))
    x.clear_grad()
    g = x.grad  # reading makes the zeros
    assert g.shape == [n] and g.dtype == oar.float32 and not g.stop_gradient
    assert oar.memory_stats()["bytes_in_use"] >= with_grad
    close(g, np.zeros(n))
    x.clear_grad()  # a Python handle shares the memory: zeroed in place, seen through it
    close(g, np.zeros(n))
    (x * 2).sum().backward()
    close(x.grad, np.full(n, 2.0))
    close(g, np.zeros(n))  # the sum is a new tensor, as for any accumulation
    del g
    x.clear_grad()
    v = oar.to_tensor(np.ones(n, "float32"))
    in_use = oar.memory_stats()["bytes_in_use"]
    oar.reset_peak_memory()
    x.grad = v  # stored as it is, no zeros made first
    assert oar.memory_stats()["peak_bytes"] < in_use + 4 * n
    close(x.grad, np.ones(n))
    x.clear_grad()  # v is held here: zeroed in place
    close(v, np.zeros(n))
    del v
    x.clear_grad()
    x.clear_grad(set_to_zero=False)
    assert x.grad is None


def test_cleared_gradient_read_by_an_optimizer_step():
    # a step between clear_grad() and the next backward reads zeros (Paddle's semantics:
    # momentum and weight decay still move the parameter)
    def run(clear):
        p = oar.create_parameter([3], "float32")
        p.set_value(oar.to_tensor([1.0, -2.0, 3.0]))
        opt = oar.optimizer.Momentum(0.1, 0.9, parameters=[p], weight_decay=0.01)
        (p * p).sum().backward()
        opt.step()
        clear(p)
        opt.step()
        return p.numpy()

    def fill_zeros(p):
        with oar.no_grad():
            p.grad.zero_()

    np.testing.assert_allclose(run(lambda p: p.clear_grad()), run(fill_zeros), rtol=0, atol=0)


def test_set_grad_property():
    x = leaf([1.0, 2.0])
    x.grad = oar.to_tensor([10.0, 20.0])
    (x * 2).sum().backward()
    close(x.grad, [12.0, 22.0])
    x.grad = None
    assert x.grad is None


# ---- hooks -------------------------------------------------------------------------------------------


def test_hook_chain_order_and_remove():
    x = leaf([1.0, 2.0])
    calls = []

    def h1(g):
        calls.append("h1")
        return g * 2

    def h2(g):
        calls.append("h2")
        return g + 1

    y = x * 3
    r1 = y.register_hook(h1)
    y.register_hook(h2)
    y.sum().backward(retain_graph=True)
    assert calls == ["h1", "h2"]
    close(x.grad, (np.array([1.0, 1.0]) * 2 + 1) * 3)  # (g*2+1)*3 = 9
    assert r1.remove() is True
    assert r1.remove() is False
    calls.clear()
    x.clear_grad(False)
    y.sum().backward()
    assert calls == ["h2"]
    close(x.grad, [6.0, 6.0])


def test_hook_sees_incoming_gradient_and_none_keeps_it():
    x = leaf([1.0, 2.0, 3.0])
    seen = []
    y = x * x
    y.register_hook(lambda g: seen.append(g.numpy().copy()))  # returns None
    (y * oar.to_tensor([1.0, 10.0, 100.0])).sum().backward()
    assert len(seen) == 1
    np.testing.assert_allclose(seen[0], [1.0, 10.0, 100.0])
    close(x.grad, [2.0, 40.0, 600.0])


def test_hook_on_leaf_changes_accumulated_grad():
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: g * 10)
    (x * x).sum().backward()
    close(x.grad, [20.0, 40.0])


def test_hook_on_non_leaf_does_not_change_its_retained_grad():
    x = leaf([1.0, 2.0, 3.0])
    y = x * 2
    y.retain_grads()
    y.register_hook(lambda g: g * 10)
    (y * y).sum().backward()
    close(y.grad, [4.0, 8.0, 12.0])          # Paddle: the un-hooked gradient
    close(x.grad, [80.0, 160.0, 240.0])      # the hooked gradient flows on


def test_hook_registered_after_retain_grads_order_independent():
    x = leaf([1.0])
    y = x * 2
    y.register_hook(lambda g: g * 7)
    y.retain_grads()
    y.sum().backward()
    close(y.grad, [1.0])
    close(x.grad, [14.0])


def test_hooks_apply_in_grad_too():
    x = leaf([1.0, 2.0])
    y = x * x
    y.register_hook(lambda g: g * 0.5)
    (g,) = oar.grad([y.sum()], [x])
    close(g, [1.0, 2.0])


def test_hook_handle_remove_on_leaf():
    x = leaf([3.0])
    h = x.register_hook(lambda g: g * 100)
    h.remove()
    (x * 2).sum().backward()
    close(x.grad, [2.0])


def test_register_hook_on_stop_gradient_tensor_errors():
    with pytest.raises(RuntimeError, match="stop_gradient"):
        oar.to_tensor([1.0]).register_hook(lambda g: g)


def test_register_hook_requires_callable():
    with pytest.raises(TypeError, match="callable"):
        leaf([1.0]).register_hook(3)


def test_hook_closure_double_backward_with_create_graph():
    x = leaf([2.0])
    y = x * x
    y.register_hook(lambda g: g * 3)
    (g,) = oar.grad([y.sum()], [x], create_graph=True)
    close(g, [12.0])
    (gg,) = oar.grad([g.sum()], [x])
    close(gg, [6.0])


def test_final_and_accumulated_hooks():
    x = leaf([1.0, 2.0])
    events = []
    oar.autograd.register_grad_accumulated_hook(x, lambda: events.append(("acc", x.grad.numpy()
                                                                           .tolist())))
    y = (x * 4).sum()
    oar.autograd.register_backward_final_hook(lambda: events.append("final"))
    y.backward()
    assert events == [("acc", [4.0, 4.0]), "final"]


# ---- grad mode -----------------------------------------------------------------------------------------


def test_no_grad_context_and_decorator():
    x = leaf([1.0])
    assert oar.is_grad_enabled()
    with oar.no_grad():
        assert not oar.is_grad_enabled()
        y = x * 2
    assert oar.is_grad_enabled()
    assert y.stop_gradient is True

    @oar.no_grad()
    def f(t):
        assert not oar.is_grad_enabled()
        return t * 2

    assert f(x).stop_gradient is True
    assert oar.is_grad_enabled()
    assert f.__name__ == "f"


def test_enable_grad_inside_no_grad():
    x = leaf([1.0])
    with oar.no_grad():
        with oar.enable_grad():
            assert oar.is_grad_enabled()
            y = x * 2
        assert not oar.is_grad_enabled()

        @oar.enable_grad()
        def g(t):
            return t * 3

        z = g(x)
    assert y.stop_gradient is False and z.stop_gradient is False
    assert oar.is_grad_enabled()


def test_set_grad_enabled_context_decorator_and_function():
    x = leaf([1.0])
    with oar.set_grad_enabled(False):
        assert not oar.is_grad_enabled()
        assert (x * 2).stop_gradient
        with oar.set_grad_enabled(True):
            assert (x * 2).stop_gradient is False
        assert not oar.is_grad_enabled()
    assert oar.is_grad_enabled()

    @oar.set_grad_enabled(False)
    def f(t):
        return t * 2

    assert oar.is_grad_enabled()  # decorating does not change the mode
    assert f(x).stop_gradient is True
    assert oar.is_grad_enabled()
    try:
        oar.set_grad_enabled(False)  # as a plain call: from now on
        assert not oar.is_grad_enabled()
    finally:
        oar.set_grad_enabled(True)
    assert oar.is_grad_enabled()


def test_no_grad_restored_after_exception():
    with pytest.raises(KeyError):
        with oar.no_grad():
            raise KeyError("x")
    assert oar.is_grad_enabled()

    @oar.no_grad()
    def boom():
        raise ValueError("boom")

    with pytest.raises(ValueError):
        boom()
    assert oar.is_grad_enabled()


def test_grad_mode_is_thread_local():
    x = leaf([1.0, 2.0])
    entered = threading.Event()
    checked = threading.Event()
    result = {}

    def worker():
        with oar.no_grad():
            entered.set()
            checked.wait(10)
            result["worker_enabled"] = oar.is_grad_enabled()
            result["worker_sg"] = (x * 2).stop_gradient

    t = threading.Thread(target=worker)
    t.start()
    assert entered.wait(10)
    result["main_enabled"] = oar.is_grad_enabled()
    result["main_sg"] = (x * 2).stop_gradient
    checked.set()
    t.join(10)
    assert result == {"main_enabled": True, "main_sg": False, "worker_enabled": False,
                      "worker_sg": True}

    # and the other way round: a new thread starts with grad on even inside no_grad here
    seen = {}
    with oar.no_grad():
        th = threading.Thread(target=lambda: seen.update(on=oar.is_grad_enabled()))
        th.start()
        th.join(10)
    assert seen == {"on": True}


def test_backward_in_parallel_threads():
    errors = []
    results = {}

    def work(k):
        try:
            for _ in range(20):
                x = leaf(np.full(64, float(k)))
                (x * x).sum().backward()
                results[k] = float(x.grad.numpy()[0])
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    ths = [threading.Thread(target=work, args=(k,)) for k in range(1, 5)]
    for t in ths:
        t.start()
    for t in ths:
        t.join(30)
    assert errors == []
    assert results == {1: 2.0, 2: 4.0, 3: 6.0, 4: 8.0}


# ---- PyLayer -------------------------------------------------------------------------------------------


class Cube(PyLayer):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensor()
        return g * 3 * x * x


def test_pylayer_basic():
    x = leaf([1.0, 2.0, -3.0])
    y = Cube.apply(x)
    assert isinstance(y, oar.Tensor) and y.stop_gradient is False and not y.is_leaf
    close(y, [1.0, 8.0, -27.0])
    y.sum().backward()
    close(x.grad, [3.0, 12.0, 27.0])


def test_pylayer_forward_runs_without_recording():
    seen = {}

    class F(PyLayer):
        @staticmethod
        def forward(ctx, x):
            seen["enabled"] = oar.is_grad_enabled()
            y = x * 2
            seen["y_sg"] = y.stop_gradient
            return y

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = leaf([1.0])
    F.apply(x).sum().backward()
    assert seen == {"enabled": False, "y_sg": True}
    close(x.grad, [2.0])


def test_pylayer_non_tensor_args_and_kwargs():
    class ScaleBy(PyLayer):
        @staticmethod
        def forward(ctx, x, factor, offset=0.0):
            ctx.factor = factor
            return x * factor + offset

        @staticmethod
        def backward(ctx, g):
            return g * ctx.factor

    x = leaf([1.0, 2.0])
    y = ScaleBy.apply(x, 5.0, offset=1.0)
    close(y, [6.0, 11.0])
    y.sum().backward()
    close(x.grad, [5.0, 5.0])


def test_pylayer_multiple_inputs_and_outputs():
    class MulDiv(PyLayer):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b, a / b

        @staticmethod
        def backward(ctx, g_mul, g_div):
            a, b = ctx.saved_tensor()
            ga = g_mul * b + g_div / b
            gb = g_mul * a - g_div * a / (b * b)
            return ga, gb

    av, bv = np.array([1.0, 2.0]), np.array([4.0, -0.5])
    a, b = leaf(av, "float64"), leaf(bv, "float64")
    p, q = MulDiv.apply(a, b)
    (p * 2 + q * 3).sum().backward()
    ta, tb = torch.tensor(av, requires_grad=True), torch.tensor(bv, requires_grad=True)
    ((ta * tb) * 2 + (ta / tb) * 3).sum().backward()
    close(a.grad, ta.grad.numpy(), rtol=1e-12)
    close(b.grad, tb.grad.numpy(), rtol=1e-12)


def test_pylayer_only_one_output_used():
    class Two(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            assert g1.shape == [2] and g2.shape == [2]
            return g1 * 2 + g2 * 3

    x = leaf([1.0, 1.0])
    _, b = Two.apply(x)
    b.sum().backward()
    close(x.grad, [3.0, 3.0])


def test_pylayer_none_gradient_for_input():
    class First(PyLayer):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            return g, None

    a, b = leaf([1.0]), leaf([2.0])
    First.apply(a, b).sum().backward()
    close(a.grad, [1.0])
    assert b.grad is None


def test_pylayer_mark_non_differentiable():
    class ArgMaxAndVal(PyLayer):
        @staticmethod
        def forward(ctx, x):
            idx = (x > 0).astype("float32")
            ctx.mark_non_differentiable(idx)
            return x * 2, idx

        @staticmethod
        def backward(ctx, g, g_idx):
            return g * 2

    x = leaf([1.0, -1.0])
    y, idx = ArgMaxAndVal.apply(x)
    assert y.stop_gradient is False
    assert idx.stop_gradient is True
    (y.sum() + idx.sum()).backward()
    close(x.grad, [2.0, 2.0])


def test_pylayer_double_backward():
    class Square(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensor()
            return g * 2 * x  # oar ops: differentiable

    x = leaf([3.0, -1.0])
    y = Square.apply(x)
    (g,) = oar.grad([(y * y).sum()], [x], create_graph=True)   # d/dx x^4 = 4x^3
    close(g, [108.0, -4.0])
    (gg,) = oar.grad([g.sum()], [x])                            # 12x^2
    close(gg, [108.0, 12.0])


def test_pylayer_in_a_chain_vs_torch():
    a = np.array([0.5, -1.5, 2.0])
    x = leaf(a, "float64")
    y = Cube.apply(oar.tanh(x) * 2)
    (y * y).sum().backward()
    tx = torch.tensor(a, requires_grad=True)
    ty = (torch.tanh(tx) * 2) ** 3
    (ty * ty).sum().backward()
    close(x.grad, tx.grad.numpy(), rtol=1e-10)


def test_pylayer_backward_ctx_attributes_and_grad_name():
    x = leaf([1.0])
    y = Cube.apply(x)
    assert "Cube" in y._grad_fn_name


# ---- saved_tensors_hooks --------------------------------------------------------------------------------


def test_saved_tensors_hooks_called_and_gradients_right():
    packed, unpacked = [], []

    def pack(t):
        packed.append(t.shape)
        return ("box", t.numpy().copy(), t.dtype)

    def unpack(p):
        unpacked.append(p[0])
        return oar.to_tensor(p[1], dtype=p[2])

    a = np.array([0.2, 1.3, -0.7])
    x = leaf(a, "float64")
    with oar.autograd.saved_tensors_hooks(pack, unpack):
        y = oar.exp(x) * x        # exp saves its output, multiply saves both inputs
    assert len(packed) >= 2
    n_packed = len(packed)
    y.sum().backward()
    assert len(unpacked) == n_packed
    assert set(unpacked) == {"box"}
    tx = torch.tensor(a, requires_grad=True)
    (torch.exp(tx) * tx).sum().backward()
    close(x.grad, tx.grad.numpy(), rtol=1e-12)


def test_saved_tensors_hooks_only_inside_block():
    calls = []
    x = leaf([1.0, 2.0])
    with oar.autograd.saved_tensors_hooks(lambda t: calls.append(1) or t, lambda p: p):
        y = x * x
    n = len(calls)
    assert n >= 1
    z = x * x
    (y + z).sum().backward()
    assert len(calls) == n
    close(x.grad, [4.0, 8.0])


def test_saved_tensors_hooks_nest():
    order = []
    x = leaf([2.0])
    with oar.autograd.saved_tensors_hooks(lambda t: ("outer", t), lambda p: p[1]):
        with oar.autograd.saved_tensors_hooks(lambda t: order.append("inner") or ("inner", t),
                                              lambda p: order.append("unpack_inner") or p[1]):
            y = x * x
        z = y * 3
    (z.sum()).backward()
    assert "inner" in order and "unpack_inner" in order
    close(x.grad, [12.0])


def test_saved_tensors_hooks_with_pylayer():
    calls = []
    x = leaf([1.0, 2.0])
    with oar.autograd.saved_tensors_hooks(lambda t: calls.append("p") or t,
                                          lambda p: calls.append("u") or p):
        y = Cube.apply(x)
    y.sum().backward()
    close(x.grad, [3.0, 12.0])
    assert calls.count("p") >= 1 and calls.count("u") == calls.count("p")


# ---- jacobian / hessian -------------------------------------------------------------------------------------


def test_jacobian_vs_torch():
    a = np.array([0.5, -1.0, 2.0])
    W = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]])
    x = leaf(a, "float64")
    y = oar.tanh(oar.to_tensor(W) @ x) * 2
    J = oar.autograd.jacobian(y, x)
    assert J.shape == [2, 3]
    tJ = torch.autograd.functional.jacobian(lambda t: torch.tanh(torch.tensor(W) @ t) * 2,
                                            torch.tensor(a))
    close(J, tJ.numpy(), rtol=1e-10)


def test_jacobian_tuple_inputs_vs_torch():
    a, b = np.array([1.0, 2.0]), np.array([3.0, -1.0, 0.5])
    x, z = leaf(a, "float64"), leaf(b, "float64")
    y = (x * x).sum() * z
    Jx, Jz = oar.autograd.jacobian(y, (x, z))
    tJ = torch.autograd.functional.jacobian(lambda p, q: (p * p).sum() * q,
                                            (torch.tensor(a), torch.tensor(b)))
    close(Jx, tJ[0].numpy(), rtol=1e-12)
    close(Jz, tJ[1].numpy(), rtol=1e-12)


def test_jacobian_batched():
    a = np.arange(6, dtype=np.float64).reshape(2, 3) / 5
    x = leaf(a, "float64")
    y = x * x
    J = oar.autograd.jacobian(y, x, batch_axis=0)
    assert J.shape == [2, 3, 3]
    for b in range(2):
        close(J[b], np.diag(2 * a[b]), rtol=1e-12)


def test_hessian_vs_torch():
    a = np.array([0.3, -0.8, 1.1])
    x = leaf(a, "float64")
    y = (oar.exp(x) * x * x).sum() + (x.sum()) ** 3
    H = oar.autograd.hessian(y, x)
    assert H.shape == [3, 3]

    def f(t):
        return (torch.exp(t) * t * t).sum() + t.sum() ** 3

    tH = torch.autograd.functional.hessian(f, torch.tensor(a))
    close(H, tH.numpy(), rtol=1e-10)


def test_hessian_tuple_inputs_vs_torch():
    a, b = np.array([1.0, 2.0]), np.array([0.5])
    x, z = leaf(a, "float64"), leaf(b, "float64")
    y = ((x * x).sum() * z * z).sum()
    H = oar.autograd.hessian(y, (x, z))
    tH = torch.autograd.functional.hessian(lambda p, q: ((p * p).sum() * q * q).sum(),
                                           (torch.tensor(a), torch.tensor(b)))
    for i in range(2):
        for j in range(2):
            close(H[i][j], tH[i][j].numpy().reshape(H[i][j].shape), rtol=1e-12)


# ---- inplace version, in-place ops in graphs ----------------------------------------------------------------


def test_inplace_version_and_inplace_on_non_leaf():
    x = leaf([1.0, 2.0])
    y = x * 2
    v = y.inplace_version
    oar.scale_(y, 3.0)
    assert y.inplace_version == v + 1
    y.sum().backward()
    close(x.grad, [6.0, 6.0])


def test_inplace_under_no_grad_on_leaf_ok():
    x = leaf([1.0, 2.0])
    with oar.no_grad():
        x[0] = 5.0
    assert x.inplace_version == 1
    (x * x).sum().backward()
    close(x.grad, [10.0, 4.0])


# ---- flags ----------------------------------------------------------------------------------------------------


def test_check_nan_inf_flag():
    assert oar.get_flags("FLAGS_check_nan_inf") == {"FLAGS_check_nan_inf": False}
    oar.set_flags({"FLAGS_check_nan_inf": True})
    try:
        assert oar.get_flags(["FLAGS_check_nan_inf"]) == {"FLAGS_check_nan_inf": True}
        with pytest.raises(RuntimeError, match=r"\blog\b") as e:
            oar.log(oar.to_tensor([-1.0]))
        assert "NaN" in str(e.value)
        oar.log(oar.to_tensor([2.0]))  # finite results still fine
    finally:
        oar.set_flags({"FLAGS_check_nan_inf": False})
    assert oar.get_flags("FLAGS_check_nan_inf") == {"FLAGS_check_nan_inf": False}
    out = oar.log(oar.to_tensor([-1.0]))
    assert np.isnan(out.numpy()[0])


def test_check_nan_inf_in_backward():
    x = leaf([0.0])
    y = oar.sqrt(x)  # forward finite (0), backward 0.5/sqrt(0) = inf
    oar.set_flags({"FLAGS_check_nan_inf": True})
    try:
        with pytest.raises(RuntimeError, match="Inf|inf"):
            y.sum().backward()
    finally:
        oar.set_flags({"FLAGS_check_nan_inf": False})
    z = (oar.to_tensor([3.0], stop_gradient=False) * 2).sum()
    z.backward()  # healthy afterwards


# ---- more hook / graph cases ---------------------------------------------------------------------------------


def test_hook_on_tensor_used_twice_sees_summed_gradient_once():
    x = leaf([1.0, 2.0])
    calls = []
    y = x * 2
    y.register_hook(lambda g: calls.append(g.numpy().copy()))
    (y * 3 + y * y).sum().backward()
    assert len(calls) == 1
    np.testing.assert_allclose(calls[0], [3.0 + 4.0, 3.0 + 8.0])
    close(x.grad, [14.0, 22.0])


def test_hook_on_grad_input_changes_grad_result():
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: g * 10)
    (g,) = oar.grad([(x * x).sum()], [x])
    close(g, [20.0, 40.0])
    assert x.grad is None


def test_pylayer_outputs_stop_gradient_when_nothing_requires_grad():
    x = leaf([1.0])
    with oar.no_grad():
        assert Cube.apply(x).stop_gradient is True
    assert Cube.apply(oar.to_tensor([1.0])).stop_gradient is True


def test_very_deep_graph_backward_and_free_do_not_overflow():
    z = leaf([1.0])
    w = z
    for _ in range(100_000):
        w = oar.scale(w, 1.0, 1.0)
    w.backward()
    close(z.grad, [1.0])
    w = z
    for _ in range(100_000):
        w = oar.scale(w, 1.0, 1.0)
    del w  # freeing the unused graph must be iterative
    (z * 2).sum().backward()
    close(z.grad, [3.0])


def test_parallel_backward_with_python_hooks_pylayer_and_saved_hooks():
    errors, results = [], {}

    def work(k):
        try:
            for _ in range(40):
                # large enough that the bindings release the GIL around the engine
                x = oar.to_tensor(np.full((300, 300), float(k), np.float32), stop_gradient=False)
                h = x * 1.0
                h.register_hook(lambda g: g * 2)
                with oar.autograd.saved_tensors_hooks(lambda t: ("p", t), lambda p: p[1]):
                    y = Cube.apply(h)
                y.sum().backward()
                results[k] = float(x.grad.numpy()[0, 0])
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    ths = [threading.Thread(target=work, args=(k,), daemon=True) for k in range(1, 5)]
    for t in ths:
        t.start()
    for t in ths:
        t.join(60)
    assert not any(t.is_alive() for t in ths), "deadlock: a backward thread did not finish"
    assert errors == []
    assert results == {k: 3.0 * k * k * 2 for k in range(1, 5)}


def test_grad_create_graph_constant_gradient_requires_grad_flag():
    x = leaf([1.0, 2.0])
    (g,) = oar.grad([(x * 2).sum()], [x], create_graph=True)
    close(g, [2.0, 2.0])
    assert g.stop_gradient is False  # results have stop_gradient = not create_graph
    (g2,) = oar.grad([g.sum()], [x], allow_unused=True)
    assert g2 is None  # constant: x does not reach it


# ---- Tensor.detach_ ------------------------------------------------------------------------
def test_detach_inplace_cuts_the_graph_and_keeps_the_storage():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 3
    assert y.detach_() is y
    assert y.stop_gradient and y.is_leaf and y.grad_fn is None
    (y * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 6.0])  # y is a constant now
    assert y.grad is None
    p = oar.to_tensor([1.0], stop_gradient=False)
    p.detach_()
    assert p.stop_gradient


def test_detach_inplace_keeps_inplace_safety():
    # The storage (and its version counter) is shared with what the graph saved, so a
    # write through the detached tensor still invalidates the saved input.
    a = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    b = a * 2
    c = b * b
    b.detach_()
    b.add_(oar.to_tensor([1.0, 1.0]))
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()


def test_autograd_function_is_pylayer():
    assert oar.autograd.Function is oar.autograd.PyLayer

    class Cube(oar.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensor()
            return g * 3 * x ** 2

    x = oar.to_tensor([1.0, -2.0, 0.5], stop_gradient=False)
    y = Cube.apply(x)
    y.sum().backward()
    np.testing.assert_allclose(y.numpy(), [1.0, -8.0, 0.125])
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 12.0, 0.75])
