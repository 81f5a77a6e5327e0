"""Review mends of the Python layer: the sparse-conv rule book counts its (input, offset)
pairs against memory before walking the kernel, and takes its output positions from the
one per-dimension computation (_reached); unique_consecutive's int32 refusals are chosen by
a keyword flag, not by comparing a fragment of the message; fftfreq and rfftfreq share one argument check;
multigammaln's refusal says what it measured; tensor_split's errors name the function
called (hsplit, vsplit, dsplit). Valid inputs are compared with PyTorch or a brute-force
enumeration."""
import itertools

import numpy as np
import pytest
import torch

import oar
from oar.tensor import manipulation as _manip_extra
from oar.framework import memory as _memory
from oar.sparse.nn.functional import _conv as sparse_conv

F = oar.sparse.nn.functional


class _NoOffsets:
    """Stands in for itertools in _conv: fails instead of walking the kernel offsets."""

    @staticmethod
    def product(*args):
        raise AssertionError("the kernel offsets were walked before the count was checked")


def _walk_pairs(coords, out_spatial, kernel, stride, pad, dilation):
    """The brute-force (input row, output coordinates) pairs of a strided kernel walk."""
    pairs = []
    for i, c in enumerate(coords):
        for off in itertools.product(*[range(k) for k in kernel]):
            num = [c[1 + d] + pad[d] - off[d] * dilation[d] for d in range(len(kernel))]
            if all(v % s == 0 and 0 <= v // s < n
                   for v, s, n in zip(num, stride, out_spatial)):
                pairs.append((i, (int(c[0]),) + tuple(v // s for v, s in zip(num, stride))))
    return pairs


def _central_points(rng, count, lo, hi):
    pts = set()
    while len(pts) < count:
        pts.add((0,) + tuple(int(v) for v in rng.integers(lo, hi, 3)))
    return np.array(sorted(pts)).T


@pytest.mark.parametrize("api", ["conv3d", "subm_conv3d"])
def test_sparse_conv_counts_pairs_against_memory_first(monkeypatch, api):
    # the with-pairs walk used to build every (input, offset) candidate without asking:
    # 2000 inputs away from the border reach all 729 offsets of a 9^3 kernel
    idx = _central_points(np.random.default_rng(0), 2000, 4, 36)
    x = oar.sparse.sparse_coo_tensor(idx.tolist(), oar.ones([2000, 1]), [1, 40, 40, 40, 1])
    w = oar.ones([9, 9, 9, 1, 1])
    kw = {"padding": 4} if api == "conv3d" else {}
    monkeypatch.setattr(_memory, "memory_available", lambda: 70 << 20)
    monkeypatch.setattr(sparse_conv, "itertools", _NoOffsets)
    n_bytes = 2000 * 729 * 8 * (3 + 4) + 729 * sparse_conv._OFFSET_BYTES
    with pytest.raises(MemoryError, match=rf"{api}\(\): the 1458000 \(input entry, kernel "
                                          rf"offset\) pairs of the 2000 input entries and the "
                                          rf"729 offsets of the kernel \[9, 9, 9\] need about "
                                          rf"{n_bytes} bytes"):
        getattr(F, api)(x, w, **kw)


def test_sparse_max_pool3d_refuses_a_window_past_memory(monkeypatch):
    # used to list all 10**12 offsets of the window (a hang, then the OOM killer)
    monkeypatch.setattr(sparse_conv, "itertools", _NoOffsets)
    x = oar.sparse.sparse_coo_tensor([[0, 0], [0, 5], [0, 7], [1, 9999]], [[1.0], [2.0]],
                                     [1, 10 ** 4, 10 ** 4, 10 ** 4, 1])
    with pytest.raises(MemoryError, match=r"max_pool3d\(\): the 2 \(input entry, kernel "
                                          r"offset\) pairs of the 2 input entries and the "
                                          r"1000000000000 offsets of the kernel "
                                          r"\[10000, 10000, 10000\]"):
        F.max_pool3d(x, [10 ** 4] * 3)


@pytest.mark.parametrize("subm", [False, True])
def test_sparse_pair_count_is_the_walks(subm):
    # the count refused above must be exactly what the walk keeps, or valid input would be
    # refused (too high) or memory overrun (too low)
    rng = np.random.default_rng(7)
    for _ in range(40):
        spatial = [int(v) for v in rng.integers(1, 7, 3)]
        coords = np.unique(np.stack([rng.integers(0, 2, 10)] + [rng.integers(0, s, 10)
                                                                for s in spatial]).T, axis=0)
        kernel = [int(v) for v in rng.integers(0, 4, 3)]
        dilation = [int(v) for v in rng.integers(1, 3, 3)]
        if subm:
            stride, out_spatial = [1, 1, 1], spatial
            pad = [(k // 2) * dl for k, dl in zip(kernel, dilation)]
        else:
            stride = [int(v) for v in rng.integers(1, 4, 3)]
            pad = [int(v) for v in rng.integers(0, 3, 3)]
            out_spatial = [(n + 2 * p - dl * (k - 1) - 1) // s + 1
                           for n, p, dl, k, s in zip(spatial, pad, dilation, kernel, stride)]
            if min(out_spatial) <= 0:
                continue
        want = _walk_pairs(coords, out_spatial, kernel, stride, pad, dilation)
        got = sparse_conv._pair_count("t", coords, out_spatial, kernel, stride, pad, dilation)
        assert got == len(want)


def test_sparse_conv_output_positions_come_from_reached(monkeypatch):
    # the channelful path used to find its output positions a second way (the unique of
    # its walk's candidates); both paths now ask _reached
    calls = []
    reached = sparse_conv._reached

    def spy(*args):
        calls.append(args[0])
        return reached(*args)

    monkeypatch.setattr(sparse_conv, "_reached", spy)
    rng = np.random.default_rng(3)
    coords = np.unique(np.stack([rng.integers(0, 2, 12)] + [rng.integers(0, 6, 12)
                                                            for _ in range(3)]).T, axis=0)
    vals = rng.standard_normal([len(coords), 2])
    x = oar.sparse.sparse_coo_tensor(coords.T.tolist(), vals.tolist(), [2, 6, 6, 6, 2])
    w = rng.standard_normal([3, 2, 3, 2, 3])
    for kw in ({}, {"stride": 2, "padding": 1}, {"stride": [3, 1, 2], "dilation": [1, 2, 1],
                                                   "padding": 2}):
        calls.clear()
        y = F.conv3d(x, oar.to_tensor(w), **kw)
        assert calls == ["conv3d"]
        stride = kw.get("stride", 1)
        stride = stride if isinstance(stride, list) else [stride] * 3
        dilation = kw.get("dilation", [1, 1, 1])
        pad = [kw.get("padding", 0)] * 3
        want = sorted(set(o for _, o in _walk_pairs(coords, y.shape[1:4], [3, 2, 3], stride,
                                                    pad, dilation)))
        assert sorted(map(tuple, y.indices().numpy().T.tolist())) == want
        # the values against torch's dense convolution at those positions
        dense = np.zeros([2, 6, 6, 6, 2])
        dense[tuple(coords.T)] = vals
        t = torch.nn.functional.conv3d(torch.tensor(dense).permute(0, 4, 1, 2, 3),
                                       torch.tensor(w).permute(4, 3, 0, 1, 2),
                                       stride=stride, padding=pad, dilation=dilation)
        t = t.permute(0, 2, 3, 4, 1).numpy()
        got = y.values().numpy()
        np.testing.assert_allclose(got, t[tuple(np.array(want).T)], rtol=1e-5, atol=1e-5)
    calls.clear()
    F.subm_conv3d(x, oar.to_tensor(w))  # keeps x's positions: nothing to reach
    assert calls == []


def test_unique_consecutive_int32_refusals_by_kind():
    # the kind of refusal used to be chosen by comparing a message fragment ("run of"); it is
    # a keyword flag now, with the same messages (the exact ones, through the public path)
    big = np.array([0, 2 ** 31], dtype=np.int64)
    with pytest.raises(TypeError):
        _manip_extra._unique_ints(big, oar.int32, "run of")
    with pytest.raises(ValueError, match=r"^unique_consecutive\(\): the run number 2147483648 "
                                         r"cannot be held in argument 'dtype' int32$"):
        _manip_extra._unique_ints(big, oar.int32, counts=False)
    with pytest.raises(ValueError, match=r"^unique_consecutive\(\): the run of 2147483648 "
                                         r"slices cannot be counted in argument 'dtype' int32$"):
        _manip_extra._unique_ints(big, oar.int32, counts=True)
    with pytest.raises(ValueError, match=r"^unique_consecutive\(\): the run of 2147483648 "
                                         r"slices cannot be counted in argument 'dtype' int32$"):
        oar.unique_consecutive(oar.zeros([2 ** 31, 0]), return_counts=True, axis=0,
                               dtype="int32")
    out, cnt = oar.unique_consecutive(oar.zeros([2 ** 31 - 1, 0]), return_counts=True, axis=0,
                                      dtype="int32")
    assert list(out.shape) == [1, 0]
    assert cnt.dtype == oar.int32 and cnt.tolist() == [2 ** 31 - 1]


@pytest.mark.parametrize("api", ["fftfreq", "rfftfreq"])
def test_fftfreq_and_rfftfreq_checks_name_their_function(api):
    fn = getattr(oar.fft, api)
    with pytest.raises(ValueError, match=rf"^{api}\(\): argument 'n' must be positive "
                                         rf"\(nonzero\), but got 0$"):
        fn(0)
    with pytest.raises(ValueError, match=rf"^{api}\(\): argument 'n' must be positive"):
        fn(-3)
    with pytest.raises(ValueError, match=rf"^{api}\(\): argument 'd' must be nonzero$"):
        fn(4, 0.0)
    with pytest.raises(TypeError, match=rf"^{api}\(\): argument 'n'"):
        fn(2.5)
    with pytest.raises(TypeError, match=rf"^{api}\(\): argument 'd'"):
        fn(4, "a")
    with pytest.raises(TypeError, match=rf"^{api}\(\): argument 'dtype' must be float32 or "
                                        rf"float64"):
        fn(4, dtype="int32")
    for n, d, dtype in ((1, 1.0, None), (5, 0.5, "float64"), (8, -2.0, "float32")):
        got = fn(n, d, dtype=dtype)
        want = getattr(torch.fft, api)(n, d, dtype=getattr(torch, dtype or "float32"))
        assert got.dtype == getattr(oar, dtype or "float32")
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_multigammaln_refusal_says_what_it_measured():
    # it used to say the terms "need" the bytes, though they are summed in small blocks
    with pytest.raises(MemoryError, match=r"^multigammaln\(\): argument 'p' \(1000000000000\) "
                                          r"asks for 3000000000000 lgamma terms \(p for each of "
                                          r"the 3 elements of 'x'\), too many to compute: held at "
                                          r"once, their 3000000000000 float64 values would need "
                                          r"about 24000000000000 bytes, more than the \d+ bytes"):
        oar.multigammaln(oar.full([3], 1e12, dtype="float64"), 10 ** 12)
    with pytest.raises(MemoryError, match=r"each of the 1 element of 'x'\), .* their "
                                          r"1000000000000 float32 values would need about "
                                          r"4000000000000 bytes"):
        oar.multigammaln(oar.full([1], 1e12, dtype="float32"), 10 ** 12)
    x = np.array([2.5, 4.0, 7.25])
    np.testing.assert_allclose(oar.multigammaln(oar.to_tensor(x), 3).numpy(),
                               torch.mvlgamma(torch.tensor(x), 3).numpy(), rtol=1e-12)


@pytest.mark.parametrize("api, shape", [("tensor_split", [6]), ("hsplit", [2, 6]),
                                        ("vsplit", [6, 2]), ("dsplit", [2, 2, 6])])
def test_split_errors_name_the_function_called(api, shape):
    fn = getattr(oar, api)
    x = oar.zeros(shape)
    for k in (0, -2):
        with pytest.raises(ValueError, match=rf"^{api}\(\): the number of sections must be "
                                             rf"positive, but got {k}$"):
            fn(x, k)
    with pytest.raises(TypeError, match=rf"^{api}\(\): argument 'num_or_indices' must be an "
                                        rf"int or a list of ints, but got str"):
        fn(x, "a")
    with pytest.raises(TypeError, match=rf"^{api}\(\): argument 'num_or_indices'"):
        fn(x, [1.5])
    for arg in (3, [1, 4], [-2]):
        got = fn(x, arg)
        want = getattr(torch, api)(torch.zeros(shape), arg)
        assert [list(t.shape) for t in got] == [list(t.shape) for t in want]


def test_tensor_split_own_checks_still_name_tensor_split():
    with pytest.raises(ValueError, match=r"^tensor_split\(\): argument 'x' must have at least "
                                         r"1 dimension$"):
        oar.tensor_split(oar.to_tensor(1.0), 2)
    with pytest.raises(IndexError, match=r"^tensor_split\(\): argument 'axis' \(5\)"):
        oar.tensor_split(oar.zeros([2, 3]), 2, axis=5)
