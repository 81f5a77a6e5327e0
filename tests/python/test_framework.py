"""The framework functions at oar's top level composed in Python
(python/oar/framework/): size/finfo/iinfo, the default dtype, the RNG state,
DLPack and from_numpy/asarray (memory shared both ways), the oar.tensor namespace,
set_printoptions, batch, rand_like/randn_like, and Paddle's arguments to linspace, mean,
assign, numel and randint_like."""
import numpy as np
import pytest
import torch

import oar


def t(v, dtype="float64", grad=False):
    return oar.to_tensor(np.asarray(v, dtype=dtype), stop_gradient=not grad)


# ---- behaviour of existing functions with Paddle's arguments ----------------------------------
def test_linspace_mean_assign_numel_randint_like_arguments():
    d = oar.linspace(0, 10, 5, device="cpu", requires_grad=True)
    assert d.stop_gradient is False and d.tolist() == [0.0, 2.5, 5.0, 7.5, 10.0]
    out = oar.zeros([7])
    assert oar.linspace(0, 1, 3, out=out) is out and out.shape == [3]
    assert oar.mean(t([[1.0, 2.0]], "float32"), dtype="float64").dtype == oar.float64
    assert oar.mean(t([[1.0, 2.0], [3.0, 5.0]]), axis=0).tolist() == [2.0, 3.5]
    res = oar.zeros([3, 3])
    assert oar.assign(np.array([[1, 1], [3, 4]]), res) is res
    assert res.dtype == oar.int64 and res.tolist() == [[1, 1], [3, 4]]
    assert oar.numel(oar.zeros([4, 5])).numpy() == 20
    r = oar.randint_like(oar.zeros([50]), -5, 5, dtype="bool")
    assert r.dtype == oar.bool
    assert oar.randint_like(oar.zeros([2], dtype="bool"), -5, 5, dtype="int64").dtype == oar.int64


# ---- framework ---------------------------------------------------------------------------------
def test_size_finfo_iinfo():
    s = oar.Size([2, 3, 4])
    assert isinstance(s, list) and s == [2, 3, 4] and s.numel() == 24
    assert oar.Size([]).numel() == 1 and repr(s) == "oar.Size([2, 3, 4])"
    for d, nd in (("float32", np.float32), ("float64", np.float64), ("float16", np.float16)):
        f = oar.finfo(d)
        assert (f.max, f.eps, f.tiny, f.bits) == (float(np.finfo(nd).max), float(
            np.finfo(nd).eps), float(np.finfo(nd).tiny), np.finfo(nd).bits)
        assert f.dtype == d
    # 10**-precision as Paddle prints it, not float32's 1e-06 widened
    assert [oar.finfo(d).resolution for d in ("float16", "float32", "float64")] == [1e-3, 1e-6,
                                                                                   1e-15]
    bf = oar.finfo(oar.bfloat16)
    assert (bf.bits, bf.eps, bf.max) == (16, 2.0 ** -7, float(torch.finfo(torch.bfloat16).max))
    assert oar.finfo(oar.complex64).dtype == "float32"
    i = oar.iinfo("int16")
    assert (i.min, i.max, i.bits, i.dtype) == (-32768, 32767, 16, "int16")


def test_default_dtype_applies_to_creation_and_python_floats():
    assert oar.get_default_dtype() == "float32"
    oar.set_default_dtype("float64")
    try:
        assert oar.get_default_dtype() == "float64"
        assert oar.to_tensor([1.5]).dtype == oar.float64
        assert oar.to_tensor([1 + 2j]).dtype == oar.complex128
        assert oar.ones([2]).dtype == oar.float64 and oar.rand([2]).dtype == oar.float64
        assert oar.full([1], 1.5).dtype == oar.float64 and oar.arange(0.5, 2).dtype == \
            oar.float64
        assert oar.to_tensor([1]).dtype == oar.int64  # integers keep theirs
    finally:
        oar.set_default_dtype("float32")
    assert oar.to_tensor([1.5]).dtype == oar.float32


def test_rng_state_replays_the_draws():
    state = oar.get_rng_state()
    a = oar.randn([4]).tolist()
    oar.set_rng_state(state)
    assert oar.randn([4]).tolist() == a
    assert state[0].current_seed() == oar.get_rng_state()[0].current_seed()
    assert oar.get_cuda_rng_state() == []
    oar.set_cuda_rng_state([])


def test_dlpack_shares_memory_both_ways():
    x = t([[0.2, 0.3], [0.1, 0.5]], "float32")
    cap = oar.to_dlpack(x)
    assert "dltensor" in repr(cap)
    y = oar.from_dlpack(cap)
    assert "used_dltensor" in repr(cap)
    y[0, 0] = 10.0
    assert x.tolist()[0][0] == 10.0
    a = np.array([[0.2, 0.3], [0.1, 0.5]])
    z = oar.from_dlpack(a)
    z[0, 0] = 7.0
    assert a[0, 0] == 7.0
    tz = torch.from_dlpack(x)  # oar's __dlpack__ / __dlpack_device__
    tz[1, 1] = -1.0
    assert x.tolist()[1][1] == -1.0
    assert oar.from_dlpack(torch.arange(3)).tolist() == [0, 1, 2]
    assert x.__dlpack_device__() == (1, 0)
    copied = oar.from_dlpack(a, copy=True)
    copied[0, 0] = 0.0
    assert a[0, 0] == 7.0
    bf = oar.to_tensor([1.5, -2.0], dtype="bfloat16")
    tb = torch.from_dlpack(bf)
    assert tb.dtype == torch.bfloat16 and tb.tolist() == [1.5, -2.0]
    assert oar.from_dlpack(tb).dtype == oar.bfloat16
    rev = np.arange(4.0)[::-2]  # a negative stride
    back = oar.from_dlpack(rev)
    assert back.tolist() == [3.0, 1.0]
    back[0] = 100.0
    assert rev[0] == 100.0
    frozen = np.ones(2)
    frozen.flags.writeable = False
    with pytest.raises(TypeError, match="from_dlpack.*cannot export"):
        oar.from_dlpack(frozen)
    cap = oar.to_dlpack(x)
    oar.from_dlpack(cap)
    with pytest.raises(TypeError, match="unconsumed DLPack capsule"):
        oar.from_dlpack(cap)


def test_from_numpy_asarray_and_the_tensor_namespace():
    a = np.array([1, 2, 3])
    f = oar.from_numpy(a)
    a[0] = 100
    assert f.tolist() == [1, 2, 3]  # a copy, as Paddle
    x = oar.asarray(1, requires_grad=True)
    assert x.stop_gradient is False and x.dtype == oar.int64
    y = oar.asarray([[1 + 1j, 2]], dtype="complex64")
    assert y.dtype == oar.complex64
    assert oar.asarray(x) is not x and oar.asarray(x).stop_gradient
    assert isinstance(oar.tensor(1), oar.Tensor)
    assert oar.tensor([0.1], requires_grad=True).stop_gradient is False
    assert oar.tensor.triu is oar.triu and oar.tensor.math.frexp is oar.frexp
    assert oar.tensor.search.argwhere(oar.to_tensor([[1.0, 0.0], [0.0, 2.0]])).tolist() == \
        [[0, 0], [1, 1]]
    import oar.tensor.creation as creation
    assert creation.create_tensor("float32").shape == [0]


def test_set_printoptions_summarises_and_rounds():
    try:
        oar.set_printoptions(4, 100, 2)
        s = repr(oar.ones([10, 20]) / 3)
        assert "0.3333" in s and "0.33333" not in s and "..." in s
    finally:
        oar.set_printoptions(precision=8, threshold=1000, edgeitems=3)
    assert "0.33333334" in repr(oar.ones([2]) / 3)


def test_batch_drops_the_last_short_batch_on_request():
    r = oar.batch(lambda: iter(range(5)), 2, drop_last=True)
    assert list(r()) == [[0, 1], [2, 3]]


def test_rand_like_randn_like():
    x = oar.zeros([3, 2], dtype="float64")
    assert oar.rand_like(x).dtype == oar.float64
    assert oar.randn_like(x, dtype="float32", requires_grad=True).stop_gradient is False
