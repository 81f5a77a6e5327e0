"""No leaks (no reference cycles: Note [TensorWrapper lifetimes]): long forward+backward
loops with Python hooks, PyLayers and saved-tensor hooks keep RSS and the allocator's
bytes_in_use flat, and Python callbacks captured by the graph die with it."""
import gc
import os
import sys
import weakref

import numpy as np
import pytest

import oar
from oar.autograd import PyLayer

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


def in_use():
    s = oar.memory_stats()
    return s["bytes_in_use"], s["live_blocks"]


class Cube(PyLayer):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return x * x * x * k

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensor()
        return g * 3 * x * x * ctx.k


BASE = np.linspace(-1.0, 1.0, 64, dtype=np.float32).reshape(8, 8)
EXPECTED = None


def _hook(g):
    return g * 0.5


def _pack(t):
    return ("packed", t)


def _unpack(p):
    return p[1]


def step():
    x = oar.to_tensor(BASE, stop_gradient=False)
    w = oar.to_tensor(BASE * 0.5, stop_gradient=False)
    h = oar.tanh(x @ w)
    h.register_hook(_hook)
    with oar.autograd.saved_tensors_hooks(_pack, _unpack):
        y = Cube.apply(h, 2.0)
        z = oar.exp(y) * h
    z.sum().backward()
    return x.grad.numpy().sum()


def _run(n):
    s = 0.0
    for _ in range(n):
        s += step()
    return s


def test_forward_backward_loop_keeps_memory_flat():
    ref = step()
    assert np.isfinite(ref)
    _run(500)  # warm-up: caches, pools, interned objects
    gc.collect()
    base_bytes = in_use()
    rss0 = rss_bytes()
    samples = []
    for k in range(10):
        total = _run(1000)
        np.testing.assert_allclose(total, 1000 * ref, rtol=1e-4)  # still computing the same thing
        gc.collect()
        samples.append(in_use())
    rss1 = rss_bytes()
    assert all(s == base_bytes for s in samples), (base_bytes, samples)
    growth = rss1 - rss0
    assert growth < 2 * 1024 * 1024, f"RSS grew by {growth / 1024:.0f} KiB over 10,000 iterations"


def test_grad_create_graph_and_double_backward_loop_flat():
    def body():
        x = oar.to_tensor(BASE, stop_gradient=False)
        y = Cube.apply(oar.tanh(x), 1.0)
        y.register_hook(_hook)
        (g,) = oar.grad([y.sum()], [x], create_graph=True)
        (gg,) = oar.grad([(g * g).sum()], [x])
        return float(gg.numpy()[0, 0])

    ref = body()
    for _ in range(200):
        body()
    gc.collect()
    base_bytes = in_use()
    rss0 = rss_bytes()
    for _ in range(3000):
        assert body() == ref
    gc.collect()
    assert in_use() == base_bytes
    growth = rss_bytes() - rss0
    assert growth < 2 * 1024 * 1024, f"RSS grew by {growth / 1024:.0f} KiB"


def test_dropped_graphs_without_backward_are_freed():
    gc.collect()
    base_bytes = in_use()
    for _ in range(2000):
        x = oar.to_tensor(BASE, stop_gradient=False)
        h = oar.exp(x) * x
        h.register_hook(_hook)
        with oar.autograd.saved_tensors_hooks(_pack, _unpack):
            y = Cube.apply(h, 3.0)
        del x, h, y
    gc.collect()
    assert in_use() == base_bytes


def test_retain_graph_then_drop_frees_everything():
    gc.collect()
    base_bytes = in_use()
    x = oar.to_tensor(BASE, stop_gradient=False)
    y = (oar.exp(x) * x).sum()
    y.backward(retain_graph=True)
    y.backward(retain_graph=True)
    del x, y
    gc.collect()
    assert in_use() == base_bytes


def test_numpy_view_released_with_array():
    gc.collect()
    base_bytes = in_use()
    x = oar.ones([1000])
    a = np.asarray(x)  # the zero-copy view (numpy() copies)
    del x
    assert in_use()[0] >= base_bytes[0] + 4000
    del a
    gc.collect()
    assert in_use() == base_bytes


# ---- Python callbacks die with the graph --------------------------------------------------------------


class Payload:
    pass


def _dead(ref):
    gc.collect()
    return ref() is None


def test_hook_closure_freed_when_graph_dropped():
    o = Payload()
    x = oar.to_tensor([1.0], stop_gradient=False)
    y = x * 2
    y.register_hook(lambda g, o=o: g)
    ref = weakref.ref(o)
    del o
    assert not _dead(ref)  # the graph holds the hook
    del y
    assert _dead(ref)


def test_hook_closure_freed_after_backward_and_drop():
    o = Payload()
    x = oar.to_tensor([1.0], stop_gradient=False)
    y = x * 2
    y.register_hook(lambda g, o=o: g * 1.0)
    ref = weakref.ref(o)
    del o
    y.sum().backward()
    del y
    assert _dead(ref)


def test_leaf_hook_closure_freed_with_leaf():
    o = Payload()
    x = oar.to_tensor([1.0], stop_gradient=False)
    x.register_hook(lambda g, o=o: g)
    ref = weakref.ref(o)
    del o
    (x * 2).sum().backward()
    assert not _dead(ref)
    del x
    assert _dead(ref)


def test_removed_hook_closure_freed_while_graph_alive():
    o = Payload()
    x = oar.to_tensor([1.0], stop_gradient=False)
    y = x * 2
    handle = y.register_hook(lambda g, o=o: g)
    ref = weakref.ref(o)
    del o
    assert handle.remove()
    assert _dead(ref)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0])


def test_pylayer_ctx_attributes_and_class_freed():
    o = Payload()

    class P(PyLayer):
        @staticmethod
        def forward(ctx, a, payload):
            ctx.payload = payload
            out = a * 2
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = oar.to_tensor([1.0], stop_gradient=False)
    y = P.apply(x, o)
    ref_o, ref_cls = weakref.ref(o), weakref.ref(P)
    del o, P
    assert not _dead(ref_o)
    del y
    assert _dead(ref_o)
    assert _dead(ref_cls)


def test_saved_tensors_hooks_packed_objects_freed():
    o = Payload()
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    with oar.autograd.saved_tensors_hooks(lambda t, o=o: (o, t), lambda p: p[1]):
        y = x * x
    ref = weakref.ref(o)
    del o
    assert not _dead(ref)
    y.sum().backward()   # releases the saved (packed) values
    assert _dead(ref)
    # and without running backward: dropping the graph frees them
    o2 = Payload()
    with oar.autograd.saved_tensors_hooks(lambda t, o=o2: (o, t), lambda p: p[1]):
        y2 = x * x
    ref2 = weakref.ref(o2)
    del o2
    del y2
    assert _dead(ref2)


def test_final_and_accumulated_hooks_freed():
    o = Payload()
    oar.autograd.register_backward_final_hook(lambda o=o: None)
    ref = weakref.ref(o)
    del o
    (oar.to_tensor([1.0], stop_gradient=False) * 2).sum().backward()
    assert _dead(ref)
    o2 = Payload()
    x = oar.to_tensor([1.0], stop_gradient=False)
    oar.autograd.register_grad_accumulated_hook(x, lambda o=o2: None)
    ref2 = weakref.ref(o2)
    del o2
    (x * 2).sum().backward()
    del x
    assert _dead(ref2)


def test_hook_exceptions_do_not_leak_tracebacks():
    class Boom(Exception):
        pass

    o = Payload()
    x = oar.to_tensor([1.0], stop_gradient=False)

    def h(g, o=o):
        local = o  # noqa: F841 - kept alive by the traceback's frame
        raise Boom()

    y = x * 2
    y.register_hook(h)
    ref = weakref.ref(o)
    del o, h
    with pytest.raises(Boom):
        y.sum().backward()
    del y
    assert _dead(ref)


def test_hook_call_does_not_leak_python_objects():
    x = oar.to_tensor(BASE, stop_gradient=False)
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(1))
    z = y.sum()
    for _ in range(200):
        z.backward(retain_graph=True)
    gc.collect()
    n0 = len(gc.get_objects())
    for _ in range(2000):
        z.backward(retain_graph=True)
    gc.collect()
    assert len(gc.get_objects()) - n0 < 50
    assert len(seen) == 2200


def test_freed_tensor_objects_are_reused_and_free_their_tensors():
    # Note [Tensor objects are reused]: a freed oar.Tensor's memory holds the next one,
    # its tensor (and the tensor's block) released all the same; subclasses are left out.
    a = oar.to_tensor(BASE)
    gc.collect()
    before = in_use()
    freed = [a + i for i in range(200)]  # more objects than are kept
    del freed
    blocks = sys.getallocatedblocks()
    again = [a + i for i in range(48)]  # kept memory: no new Python heap blocks for them
    assert sys.getallocatedblocks() - blocks < 16
    del again
    assert in_use() == before
    u = a * 2
    np.testing.assert_array_equal(u.numpy(), BASE * 2)
    kept = [a + i for i in range(200)]  # more than are kept
    for i, k in enumerate(kept):
        np.testing.assert_array_equal(k.numpy(), BASE + i)
    del kept, k, u
    assert in_use() == before
    p = oar.create_parameter([2, 2], "float32")
    assert type(p) is not oar.Tensor
    del p
    v = a - 1
    np.testing.assert_array_equal(v.numpy(), BASE - 1)
