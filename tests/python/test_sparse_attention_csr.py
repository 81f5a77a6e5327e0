"""oar.sparse.nn.functional.attention (python/oar/sparse/nn/functional/_attention.py):
Paddle's CSR-layout attention against a torch reference written from its kernel's rules
(scores at the stored positions only, 0 in either mask masks out, empty rows give 0,
all-masked rows NaN), its gradients, and its typed errors."""
import numpy as np
import pytest
import torch

import oar

SF = oar.sparse.nn.functional


def _reference(q, k, v, layout, kp=None, am=None):
    q, k, v = (torch.tensor(a, requires_grad=True) for a in (q, k, v))
    keep = torch.tensor(layout != 0)
    stored = keep.clone()
    if kp is not None:
        keep = keep & torch.tensor(kp != 0)[:, None, None, :]
    if am is not None:
        keep = keep & torch.tensor(am != 0)[None, None]
    s = (q @ k.transpose(-1, -2)) / np.sqrt(q.shape[-1])
    s = s.masked_fill(~keep, float("-inf"))
    p = torch.softmax(s, -1)
    p = torch.where(stored.any(-1, keepdim=True), p, torch.zeros(()).double())
    return p @ v, (q, k, v)


def _inputs(seed=0, b=2, h=3, m=5, d=4):
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((b, h, m, d)) for _ in range(3))
    layout = (rng.random((b, h, m, m)) < 0.6).astype(np.float64)
    layout[0, 0, 2] = 0.0  # a row with no stored entry
    return q, k, v, layout


def _csr(layout):
    b, h, m, _ = layout.shape
    return oar.to_tensor(layout.reshape(b * h, m, m)).to_sparse_csr()


@pytest.mark.parametrize("masks", ["none", "kp", "attn", "both"])
def test_attention_matches_the_kernel_rules(masks):
    q, k, v, layout = _inputs()
    rng = np.random.default_rng(1)
    kp = (rng.random((2, 5)) < 0.8).astype(np.float64) if masks in ("kp", "both") else None
    am = (rng.random((5, 5)) < 0.8).astype(np.float64) if masks in ("attn", "both") else None
    tq, tk, tv = (oar.to_tensor(a, stop_gradient=False) for a in (q, k, v))
    out = SF.attention(tq, tk, tv, _csr(layout),
                       None if kp is None else oar.to_tensor(kp),
                       None if am is None else oar.to_tensor(am))
    want, leaves = _reference(q, k, v, layout, kp, am)
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-12,
                               equal_nan=True)
    assert np.all(out.numpy()[0, 0, 2] == 0.0)  # the row without a stored entry
    if masks == "none":  # gradients (no NaN rows here)
        w = np.random.default_rng(2).standard_normal(out.shape)
        grads = oar.grad([out], [tq, tk, tv], [oar.to_tensor(w)])
        torch.autograd.backward(want, torch.tensor(w))
        for g, leaf in zip(grads, leaves):
            np.testing.assert_allclose(g.numpy(), leaf.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_all_masked_row_is_nan_and_values_of_the_layout_do_not_matter():
    q, k, v, layout = _inputs(3, b=1, h=1, m=3)
    layout[:] = 1.0
    am = np.ones((3, 3))
    am[1] = 0.0  # row 1: every stored entry masked
    a = SF.attention(*(oar.to_tensor(t) for t in (q, k, v)), _csr(layout * 7.0),
                     attn_mask=oar.to_tensor(am)).numpy()
    assert np.isnan(a[0, 0, 1]).all() and np.isfinite(a[0, 0, [0, 2]]).all()
    b = SF.attention(*(oar.to_tensor(t) for t in (q, k, v)), _csr(layout),
                     attn_mask=oar.to_tensor(am)).numpy()
    np.testing.assert_array_equal(a[0, 0, [0, 2]], b[0, 0, [0, 2]])


@pytest.mark.parametrize("change, err, what", [
    ("q3d", ValueError, "argument 'query' must be 4-D"),
    ("qint", TypeError, "argument 'query' must be float32 or float64"),
    ("kshape", ValueError, "argument 'key' must have shape"),
    ("vdtype", TypeError, "argument 'value' must have query's dtype"),
    ("coo", TypeError, "argument 'sparse_mask' must be a sparse CSR tensor"),
    ("dense", TypeError, "argument 'sparse_mask' must be a sparse CSR tensor"),
    ("mshape", ValueError, "argument 'sparse_mask' must have the dense shape"),
    ("kp", ValueError, "argument 'key_padding_mask' must have shape"),
    ("am", ValueError, "argument 'attn_mask' must have shape"),
])
def test_attention_errors(change, err, what):
    q, k, v, layout = _inputs(b=1, h=2, m=3)
    args = [oar.to_tensor(t) for t in (q, k, v)] + [_csr(layout)]
    kw = {}
    if change == "q3d":
        args[0] = args[0][0]
    elif change == "qint":
        args[0] = args[0].astype("int32")
    elif change == "kshape":
        args[1] = args[1][:, :1]
    elif change == "vdtype":
        args[2] = args[2].astype("float32")
    elif change == "coo":
        args[3] = oar.to_tensor(layout.reshape(2, 3, 3)).to_sparse_coo(3)
    elif change == "dense":
        args[3] = oar.to_tensor(layout.reshape(2, 3, 3))
    elif change == "mshape":
        args[3] = oar.to_tensor(layout[0, :1]).to_sparse_csr()
    elif change == "kp":
        kw["key_padding_mask"] = oar.ones([1, 4])
    elif change == "am":
        kw["attn_mask"] = oar.ones([3])
    with pytest.raises(err, match=r"attention\(\): .*" + what.replace("(", r"\(")):
        SF.attention(*args, **kw)
