"""oar.geometric: segment reductions and message passing against torch's scatter_reduce
(values and gradients), Paddle's conventions (empty rows are 0, ties all receive the
gradient, out_size, sub/div messages, 1-D features), reindexing and neighbour sampling,
and the typed errors."""
import numpy as np
import pytest
import torch

import oar
import oar.geometric as G

RNG = np.random.default_rng(3)
REDUCE = {"sum": "sum", "mean": "mean", "max": "amax", "min": "amin"}


def _t(a, dtype="float64", grad=False):
    t = oar.to_tensor(np.asarray(a, dtype=dtype))
    t.stop_gradient = not grad
    return t


def _torch_reduce(msg, dst, rows, reduce_op):
    idx = dst.reshape([-1] + [1] * (msg.dim() - 1)).expand_as(msg)
    out = torch.zeros((rows,) + tuple(msg.shape[1:]), dtype=msg.dtype)
    return out.scatter_reduce(0, idx, msg, REDUCE[reduce_op], include_self=False)


@pytest.mark.parametrize("reduce_op", ["sum", "mean", "max", "min"])
def test_segment_ops_vs_torch(reduce_op):
    data = RNG.standard_normal((7, 3, 2))
    ids = np.array([0, 0, 1, 3, 3, 3, 5])
    x = _t(data, grad=True)
    out = getattr(G, f"segment_{reduce_op}")(x, oar.to_tensor(ids))
    xt = torch.tensor(data, requires_grad=True)
    want = _torch_reduce(xt, torch.tensor(ids), 6, reduce_op)
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-12)
    w = RNG.standard_normal(want.shape)
    (out * _t(w)).sum().backward()
    (want * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("reduce_op", ["sum", "mean", "max", "min"])
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_send_u_recv_vs_torch(reduce_op, index_dtype):
    x_np = RNG.standard_normal((4, 3))
    src, dst = np.array([0, 1, 2, 0, 3, 3]), np.array([1, 2, 1, 0, 1, 4])
    x = _t(x_np, grad=True)
    out = G.send_u_recv(x, oar.to_tensor(src.astype(index_dtype)),
                        oar.to_tensor(dst.astype(index_dtype)), reduce_op, out_size=6)
    xt = torch.tensor(x_np, requires_grad=True)
    want = _torch_reduce(xt[torch.tensor(src)], torch.tensor(dst), 6, reduce_op)
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-12)
    w = RNG.standard_normal(want.shape)
    (out * _t(w)).sum().backward()
    (want * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("message_op", ["add", "sub", "mul", "div"])
@pytest.mark.parametrize("reduce_op", ["sum", "mean", "max", "min"])
def test_send_ue_recv_vs_torch(message_op, reduce_op):
    x_np = RNG.standard_normal((4, 1, 3))
    y_np = RNG.uniform(0.5, 2.0, (5, 2, 1)) * RNG.choice([-1, 1], (5, 2, 1))
    src, dst = np.array([0, 1, 2, 0, 3]), np.array([1, 2, 1, 0, 1])
    x, y = _t(x_np, grad=True), _t(y_np, grad=True)
    out = G.send_ue_recv(x, y, oar.to_tensor(src), oar.to_tensor(dst), message_op, reduce_op)
    assert out.shape == [4, 2, 3]  # x's row count, broadcast features
    xt, yt = torch.tensor(x_np, requires_grad=True), torch.tensor(y_np, requires_grad=True)
    xs = xt[torch.tensor(src)]
    msg = {"add": xs + yt, "sub": xs - yt, "mul": xs * yt, "div": xs / yt}[message_op]
    want = _torch_reduce(msg, torch.tensor(dst), 4, reduce_op)
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-12)
    w = RNG.standard_normal(want.shape)
    (out * _t(w)).sum().backward()
    (want * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(y.grad.numpy(), yt.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize("message_op", ["add", "sub", "mul", "div"])
def test_send_uv_vs_torch_and_second_order(message_op):
    x_np, y_np = RNG.standard_normal((3, 4)), RNG.uniform(0.5, 2.0, (5, 1))
    src, dst = np.array([0, 2, 1, 0]), np.array([4, 0, 0, 3])
    x, y = _t(x_np, grad=True), _t(y_np, grad=True)
    out = G.send_uv(x, y, oar.to_tensor(src), oar.to_tensor(dst), message_op)
    xt, yt = torch.tensor(x_np, requires_grad=True), torch.tensor(y_np, requires_grad=True)
    a, b = xt[torch.tensor(src)], yt[torch.tensor(dst)]
    want = {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b}[message_op]
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-12)
    # second order through the backward formulas
    gx, = oar.grad((out * out).sum(), [x], create_graph=True)
    gxt, = torch.autograd.grad((want * want).sum(), [xt], create_graph=True)
    gy2, = oar.grad(gx.sum(), [y])
    gyt2, = torch.autograd.grad(gxt.sum(), [yt])
    np.testing.assert_allclose(gy2.numpy(), gyt2.numpy(), rtol=1e-10)


def test_paddle_conventions():
    x = _t([[0, 2, 3], [1, 4, 5], [2, 6, 7]], "float32")
    src, dst = oar.to_tensor([0, 2, 0], dtype="int32"), oar.to_tensor([1, 1, 0], dtype="int32")
    np.testing.assert_array_equal(G.send_u_recv(x, src, dst).numpy(),
                                  [[0, 2, 3], [2, 8, 10], [0, 0, 0]])  # x's rows by default
    np.testing.assert_array_equal(G.send_u_recv(x, src, dst, out_size=oar.max(dst) + 1).shape,
                                  [2, 3])
    np.testing.assert_array_equal(G.send_u_recv(x, src, dst, "max", out_size=0).shape, [3, 3])
    # a 1-D y is one value per edge
    y = _t([1, 1, 1], "float32")
    np.testing.assert_array_equal(G.send_ue_recv(x, y, src, dst).numpy(),
                                  [[1, 3, 4], [4, 10, 12], [0, 0, 0]])
    # ties: every tied member receives the gradient (Paddle), not a share
    d = _t([[1.0], [1.0], [0.0]], grad=True)
    G.segment_max(d, oar.to_tensor([0, 0, 0])).sum().backward()
    np.testing.assert_array_equal(d.grad.numpy(), [[1.0], [1.0], [0.0]])
    d2 = _t([[1.0], [1.0], [0.0]], grad=True)
    G.send_u_recv(d2, oar.to_tensor([0, 1, 2]), oar.to_tensor([0, 0, 0]), "min").sum().backward()
    np.testing.assert_array_equal(d2.grad.numpy(), [[0.0], [0.0], [1.0]])
    # empty segments are 0, integer data stays integer
    out = G.segment_min(oar.to_tensor([[4, 5], [6, 1]]), oar.to_tensor([0, 2]))
    assert out.dtype == oar.int64
    np.testing.assert_array_equal(out.numpy(), [[4, 5], [0, 0], [6, 1]])


def test_errors():
    x = _t(RNG.standard_normal((3, 2)))
    with pytest.raises(ValueError, match="sorted"):
        G.segment_sum(x, oar.to_tensor([1, 0, 1]))
    with pytest.raises(IndexError, match="non-negative"):
        G.segment_mean(x, oar.to_tensor([-1, 0, 0]))
    with pytest.raises(ValueError, match="segment_ids"):
        G.segment_sum(x, oar.to_tensor([0, 0]))
    with pytest.raises(TypeError, match="int32 or int64"):
        G.segment_sum(x, _t([0, 0, 1]))
    with pytest.raises(IndexError, match="src_index"):
        G.send_u_recv(x, oar.to_tensor([0, 3]), oar.to_tensor([0, 1]))
    with pytest.raises(IndexError, match="dst_index"):
        G.send_u_recv(x, oar.to_tensor([0, 1]), oar.to_tensor([0, 5]), out_size=2)
    with pytest.raises(ValueError, match="reduce_op"):
        G.send_u_recv(x, oar.to_tensor([0]), oar.to_tensor([0]), "prod")
    with pytest.raises(ValueError, match="message_op"):
        G.send_uv(x, x, oar.to_tensor([0]), oar.to_tensor([0]), "pow")
    with pytest.raises(ValueError, match="same length"):
        G.send_uv(x, x, oar.to_tensor([0, 1]), oar.to_tensor([0]))
    with pytest.raises(ValueError, match="one row of y per edge"):
        G.send_ue_recv(x, x, oar.to_tensor([0, 1]), oar.to_tensor([0, 1]))
    with pytest.raises(ValueError, match="broadcast"):
        G.send_uv(x, _t(np.ones((3, 3))), oar.to_tensor([0]), oar.to_tensor([0]))


def test_reindex_graph_and_heter():
    x = oar.to_tensor([0, 1, 2])
    a, ca = oar.to_tensor([8, 9, 0, 4, 7, 6, 7]), oar.to_tensor([2, 3, 2], dtype="int32")
    src, dst, nodes = G.reindex_graph(x, a, ca)
    np.testing.assert_array_equal(src.numpy(), [3, 4, 0, 5, 6, 7, 6])
    np.testing.assert_array_equal(dst.numpy(), [0, 0, 1, 1, 1, 2, 2])
    np.testing.assert_array_equal(nodes.numpy(), [0, 1, 2, 8, 9, 4, 7, 6])
    b, cb = oar.to_tensor([0, 2, 3, 5, 1]), oar.to_tensor([1, 3, 1], dtype="int32")
    src, dst, nodes = G.reindex_heter_graph(x, [a, b], [ca, cb])
    np.testing.assert_array_equal(src.numpy(), [3, 4, 0, 5, 6, 7, 6, 0, 2, 8, 9, 1])
    np.testing.assert_array_equal(dst.numpy(), [0, 0, 1, 1, 1, 2, 2, 0, 1, 1, 1, 2])
    np.testing.assert_array_equal(nodes.numpy(), [0, 1, 2, 8, 9, 4, 7, 6, 3, 5])
    with pytest.raises(ValueError, match="add up"):
        G.reindex_graph(x, a, oar.to_tensor([1, 1, 1], dtype="int32"))
    with pytest.raises(ValueError, match="distinct"):
        G.reindex_graph(oar.to_tensor([1, 1]), a, oar.to_tensor([3, 4], dtype="int32"))


ROW = [3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7]
COLPTR = [0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13]


@pytest.mark.parametrize("weighted", [False, True])
def test_sample_neighbors(weighted):
    row, colptr = oar.to_tensor(ROW), oar.to_tensor(COLPTR)
    nodes = oar.to_tensor([0, 8, 1, 2, 7])
    eids = oar.arange(13)
    w = oar.to_tensor([0.1, 0.5, 0.2, 0.5, 0.9, 1.9, 2.0, 2.1, 0.01, 0.9, 0.0, 0.59, 0.67])
    args = (row, colptr, w, nodes) if weighted else (row, colptr, nodes)
    fn = G.weighted_sample_neighbors if weighted else G.sample_neighbors
    nb, cnt, e = fn(*args, sample_size=1, eids=eids, return_eids=True)
    assert cnt.dtype == oar.int32
    np.testing.assert_array_equal(cnt.numpy(), [1, 1, 1, 1, 0])
    for node, edge, n in zip([0, 8, 1, 2], e.numpy(), nb.numpy()):
        assert COLPTR[node] <= edge < COLPTR[node + 1] and ROW[edge] == n
    nb, cnt = fn(*args, sample_size=-1)
    np.testing.assert_array_equal(cnt.numpy(), [2, 2, 2, 1, 0])
    np.testing.assert_array_equal(nb.numpy(), [3, 7, 9, 7, 0, 9, 1])
    oar.seed(5)
    first = fn(*args, sample_size=1)[0].numpy()
    oar.seed(5)
    np.testing.assert_array_equal(fn(*args, sample_size=1)[0].numpy(), first)
    with pytest.raises(IndexError, match="input_nodes"):
        fn(*(args[:-1] + (oar.to_tensor([10]),)), sample_size=1)
    with pytest.raises(ValueError, match="eids"):
        fn(*args, sample_size=1, return_eids=True)


def test_weighted_sampling_follows_the_weights():
    # one node with three edges of weights 1, 3, 0: one draw picks edge 1 with p = 3/4
    row, colptr = oar.to_tensor([10, 11, 12]), oar.to_tensor([0, 3])
    w = oar.to_tensor([1.0, 3.0, 0.0])
    oar.seed(11)
    picks = [int(G.weighted_sample_neighbors(row, colptr, w, oar.to_tensor([0]),
                                             sample_size=1)[0].numpy()[0])
             for _ in range(300)]
    assert 12 not in picks
    assert abs(picks.count(11) / 300 - 0.75) < 0.08


def test_incubate_names_are_geometric_under_paddles_older_arguments():
    import oar.incubate as inc
    x = oar.to_tensor([[0.0, 2.0, 3.0], [1.0, 4.0, 5.0], [2.0, 6.0, 7.0]])
    src, dst = oar.to_tensor([0, 1, 2, 0]), oar.to_tensor([1, 2, 1, 0])
    for pool in ("sum", "mean", "max", "min"):
        np.testing.assert_array_equal(
            inc.graph_send_recv(x, src, dst, pool_type=pool).numpy(),
            oar.geometric.send_u_recv(x, src, dst, reduce_op=pool).numpy())
    assert inc.segment_sum is oar.geometric.segment_sum
    row = oar.to_tensor([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7])
    colptr = oar.to_tensor([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13])
    nodes = oar.to_tensor([0, 8, 1, 2])
    nb, cnt = inc.graph_sample_neighbors(row, colptr, nodes, sample_size=-1)
    want_nb, want_cnt = oar.geometric.sample_neighbors(row, colptr, nodes)
    np.testing.assert_array_equal(cnt.numpy(), want_cnt.numpy())
    np.testing.assert_array_equal(nb.numpy(), want_nb.numpy())
    r = inc.graph_reindex(nodes, nb, cnt)
    w = oar.geometric.reindex_graph(nodes, nb, cnt)
    for a, b in zip(r, w):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
