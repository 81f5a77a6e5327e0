"""Tensor.grad_fn and oar._C.GradNode on known graphs; forward stacks and the
backward errors that name them (docs/viz.md)."""

import gc
import inspect

import numpy as np
import pytest

import oar


def leaf(values):
    return oar.to_tensor(np.asarray(values, dtype=np.float32), stop_gradient=False)


def line_of(marker):
    """The line number in this file of the line containing `marker`."""
    src, _ = inspect.getsourcelines(inspect.getmodule(line_of))
    for number, text in enumerate(src, 1):
        if marker in text and "line_of(" not in text:
            return number
    raise AssertionError(marker)


@pytest.fixture
def stack_flag():
    oar.set_flags({"FLAGS_record_forward_stack": True})
    yield
    oar.set_flags({"FLAGS_record_forward_stack": False})


def test_names_slots_and_attributes():
    x, w = leaf([[1, 2, 3], [4, 5, 6]]), leaf(np.ones((4, 3)))
    y = oar.matmul(x, w, transpose_y=True).tanh().sum()
    s = y.grad_fn
    assert s.name() == "SumGradNode" and s.forward_op == "sum"
    ((t, slot),) = s.next_functions
    assert t.name() == "TanhGradNode" and slot == 0
    ((m, m_slot),) = t.next_functions
    assert m.name() == "MatmulGradNode" and m_slot == 0
    assert m.attributes() == {"transpose_x": "false", "transpose_y": "true"}
    (ax, sx), (aw, sw) = m.next_functions
    assert (ax.name(), sx, aw.name(), sw) == ("GradNodeAccumulation", 0, "GradNodeAccumulation", 0)
    assert ax == x.grad_fn and aw == w.grad_fn and ax != aw
    assert ax.next_functions == ()
    # Forward ops run in order, so their nodes' sequence numbers increase.
    assert m.sequence_nr < t.sequence_nr < s.sequence_nr


def test_meta_per_slot():
    x, w = leaf(np.ones((2, 3))), oar.ones([3, 4])
    m = oar.matmul(x, w).grad_fn
    out = m.output_meta()
    assert [(d["slot"], d["shape"], d["dtype"], d["stop_gradient"]) for d in out] == [
        (0, [2, 3], oar.float32, False),
        (1, [3, 4], oar.float32, True),
    ]
    (i,) = m.input_meta()
    assert i["shape"] == [2, 4] and i["place"] == "Place(cpu)" and not i["stop_gradient"]


def test_stop_gradient_cuts_an_edge():
    x = leaf([1.0, 2.0])
    c = oar.to_tensor([3.0, 4.0])  # stop_gradient=True
    y = x * c
    nf = y.grad_fn.next_functions
    assert nf[0][0] == x.grad_fn and nf[1] is None
    assert c.grad_fn is None and oar.to_tensor([1.0]).grad_fn is None
    z = (x * 2).detach()
    assert z.grad_fn is None


def test_accumulation_node_reached_once_per_leaf():
    x = leaf([1.0, -2.0])
    y = x * x + x.exp() + x  # x is used four times
    seen, stack, acc = set(), [y.grad_fn], []
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        if n.name() == "GradNodeAccumulation":
            acc.append(n)
        stack += [f[0] for f in n.next_functions if f is not None]
    assert acc == [x.grad_fn]
    x.name = "my_x"
    v = x.grad_fn.variable
    np.testing.assert_array_equal(v.numpy(), x.numpy())
    assert v.stop_gradient is False and v.grad_fn == x.grad_fn
    with pytest.raises(AttributeError, match="only a GradNodeAccumulation"):
        y.grad_fn.variable


def test_saved_tensors_before_and_after_a_releasing_backward():
    x = leaf(np.ones((3, 5)))
    y = x.tanh()
    n = y.grad_fn
    (s,) = n.saved_tensors()
    assert (s["name"], s["shape"], s["dtype"], s["released"]) == ("out", [3, 5], oar.float32, False)
    assert s["bytes"] >= 3 * 5 * 4 and s["storage"] != 0
    y.sum().backward(retain_graph=True)
    assert not n.released and not n.saved_tensors()[0]["released"]
    y.sum().backward()
    (s,) = n.saved_tensors()
    assert n.released and s["released"] and s["bytes"] == 0 and s["shape"] == [3, 5]
    with pytest.raises(RuntimeError, match="second time"):
        y.sum().backward()


def test_no_need_buffer_saves_only_meta():
    x = leaf(np.ones((2, 3)))
    (s,) = x.sum().grad_fn.saved_tensors()
    assert s["meta_only"] and s["bytes"] == 0 and s["shape"] == [2, 3]


def test_shape_only_inputs_shown_from_their_slot_meta():
    # add saves nothing for x and y: their shapes come from the node's slot metas
    # (Note [A shape-only input is read from its slot meta]).
    x, y = leaf(np.ones((2, 3))), leaf(np.ones((3,)))
    n = (x + y).grad_fn
    sx, sy = n.saved_tensors()
    assert (sx["name"], sx["shape"], sy["name"], sy["shape"]) == ("x", [2, 3], "y", [3])
    assert sx["meta_only"] and not sx["released"] and sx["bytes"] == 0
    z = x + y
    z.sum().backward()
    sx, sy = z.grad_fn.saved_tensors()
    assert sx["released"] and sy["released"] and sy["shape"] == [3]
    np.testing.assert_array_equal(y.grad.numpy(), np.full((3,), 2.0, np.float32))
    with pytest.raises(RuntimeError, match="second time"):
        z.sum().backward()


def test_node_identity_hash_and_lifetime():
    x = leaf([1.0, 2.0])
    y = (x * 3).exp()
    a, b = y.grad_fn, y.grad_fn
    assert a is not b and a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != y.grad_fn.next_functions[0][0]
    assert repr(a).startswith("<ExpGradNode sequence_nr=")
    del y, b
    gc.collect()
    # The node (and the nodes it feeds) outlive the tensors that made them.
    assert a.name() == "ExpGradNode"
    scale = a.next_functions[0][0]
    assert scale.name() == "ScaleGradNode" and scale.next_functions[0][0] == x.grad_fn
    assert a.saved_tensors()[0]["shape"] == [2]
    del x
    gc.collect()
    acc = scale.next_functions[0][0]
    assert acc.name() == "GradNodeAccumulation" and acc.variable is None


def test_hooks_are_listed():
    x = leaf([1.0, 2.0])
    y = x * 2
    h = y.register_hook(lambda g: g * 2)
    y.retain_grads()
    kinds = sorted(d["kind"] for d in y.grad_fn.hooks())
    assert kinds == ["retain_grad", "tensor"]
    x.register_hook(lambda g: None)
    oar._C._register_grad_accumulated_hook(x, lambda: None)
    assert sorted(d["kind"] for d in x.grad_fn.hooks()) == ["grad_accumulated", "tensor"]
    assert h.remove()
    assert [d["kind"] for d in y.grad_fn.hooks()] == ["retain_grad"]


def test_node_register_hook_sees_and_replaces_the_gradient():
    x = leaf([1.0, 2.0])
    y = x.exp()
    seen = []
    y.grad_fn.register_hook(lambda g: seen.append(g.numpy().copy()) or g * 10)
    y.sum().backward()
    np.testing.assert_array_equal(seen[0], [1.0, 1.0])
    np.testing.assert_allclose(x.grad.numpy(), 10 * np.exp([1.0, 2.0]), rtol=1e-6)
    with pytest.raises(IndexError, match="register_hook.*slot"):
        y.grad_fn.register_hook(print, slot=1)
    with pytest.raises(TypeError, match="'hook' must be callable"):
        y.grad_fn.register_hook(3)


def test_pylayer_node_saved_tensors():
    class Cube(oar.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensor()
            return 3 * x * x * g

    x = leaf([1.0, 2.0, 3.0])
    n = Cube.apply(x).grad_fn
    (s,) = n.saved_tensors()
    assert s["name"] == "saved_tensor[0]" and s["shape"] == [3] and not s["released"]
    assert n.next_functions[0][0] == x.grad_fn


class _Block(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = oar.nn.Linear(3, 3)

    def forward(self, x):
        return oar.tanh(self.fc(x))


class _Net(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.block1 = _Block()
        self.head = oar.nn.Sequential(oar.nn.Linear(3, 2), oar.nn.ReLU())

    def forward(self, x):
        return self.head(self.block1(x)).sum()


def test_layer_paths():
    net = _Net()
    y = net(oar.randn([4, 3]))
    assert y.grad_fn.layer_path == "_Net"
    paths = set()
    stack, seen = [y.grad_fn], set()
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        if n.name() != "GradNodeAccumulation":
            paths.add((n.forward_op, n.layer_path))
        stack += [f[0] for f in n.next_functions if f is not None]
    assert ("linear", "_Net.block1.fc") in paths
    assert ("tanh", "_Net.block1") in paths
    assert ("linear", "_Net.head.0") in paths and ("relu", "_Net.head.1") in paths
    assert oar._C._current_layer() is None
    assert (oar.randn([2]) * leaf([1.0, 1.0])).grad_fn.layer_path is None


def test_layer_scope_is_left_when_forward_raises():
    class Bad(oar.nn.Layer):
        def forward(self, x):
            raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        Bad()(oar.ones([1]))
    assert oar._C._current_layer() is None


def test_forward_stack_off_by_default():
    assert oar.get_flags("FLAGS_record_forward_stack")["FLAGS_record_forward_stack"] is False
    assert (leaf([1.0]) * 2).grad_fn.forward_stack is None


def test_forward_stack_names_the_call_site(stack_flag):
    x = leaf([1.0, 2.0])
    y = x.sin()  # call site: sin
    frames = y.grad_fn.forward_stack
    assert frames[0] == (
        __file__,
        line_of("# call site: sin"),
        "test_forward_stack_names_the_call_site",
    )
    # Frames inside oar (the Layer machinery, nn.functional) are left out.
    net = _Net()
    out = net(oar.randn([2, 3]))  # call site: net
    lin = out.grad_fn.next_functions[0][0]
    assert all("/oar/" not in f[0] for f in lin.forward_stack)
    assert (
        __file__,
        line_of("# call site: net"),
        "test_forward_stack_names_the_call_site",
    ) in lin.forward_stack


def test_inplace_error_names_the_call_site(stack_flag):
    x = leaf([1.0, 2.0])
    z = x * 2
    w = z.sin()  # saves z
    z.add_(oar.ones([2]))
    with pytest.raises(RuntimeError) as e:
        w.sum().backward()
    msg = str(e.value)
    assert "modified by an inplace operation" in msg
    assert f"forward op at {__file__}:{line_of('w = z.sin()  # saves z')}" in msg


def test_nan_inf_error_names_the_call_site(stack_flag):
    x = leaf([0.0, 1.0])
    y = oar.sqrt(x)  # infinite gradient at 0
    oar.set_flags({"FLAGS_check_nan_inf": True})
    try:
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
    finally:
        oar.set_flags({"FLAGS_check_nan_inf": False})
    msg = str(e.value)
    assert "SqrtGradNode" in msg and "Inf" in msg
    assert f"{__file__}:{line_of('infinite gradient at 0')}" in msg


def test_hook_error_names_the_call_site_and_layer(stack_flag):
    class One(oar.nn.Layer):
        def forward(self, x):
            return x * 3  # scaled here

    x = leaf([1.0, 2.0])
    y = One()(x)
    y.register_hook(lambda g: oar.ones([3]))
    with pytest.raises(ValueError) as e:
        y.sum().backward()
    msg = str(e.value)
    assert "returned a tensor of shape [3]" in msg
    assert f"{__file__}:{line_of('# scaled here')} in forward, layer One" in msg
