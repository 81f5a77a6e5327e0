"""bfloat16 kernels (docs/amp_kernels.md) against PyTorch on the same bfloat16 values.

GEMM and convolution run in bfloat16 with float32 accumulation and round each
output once, as PyTorch's CPU kernels do; the two libraries sum in different
orders, so the tolerance is one bfloat16 ulp plus K float32 ulps of the sum of
|products| (K the contracted length), and most elements agree exactly.
Convolutions are checked against the float64 result of the same bfloat16 values
rounded once, not against PyTorch (see test_conv2d_forward_and_grads).
Reductions accumulate in float32; elementwise ops compute in float32 and round.
"""
import numpy as np
import pytest
import torch

import oar
import oar.nn.functional as F

RNG = np.random.default_rng(0)


def pair(shape, grad=False):
    """The same bfloat16 values as an oar and a torch tensor."""
    t = torch.from_numpy(RNG.uniform(-1, 1, shape).astype("float32")).bfloat16()
    o = oar.to_tensor(t.float().numpy()).astype("bfloat16")
    o.stop_gradient = not grad
    return o, t.requires_grad_(grad)


def values(o):
    return o.astype("float32").numpy()


def check(got, want, k, exact_share=0.9):
    """got (oar, bfloat16) against want (torch, bfloat16) with the K-derived tolerance."""
    assert str(got.dtype).endswith("bfloat16"), got.dtype
    g, w = values(got), want.detach().float().numpy()
    assert g.shape == w.shape
    tol = np.abs(w) * 2.0**-7 + k * 2.0**-23 * k
    assert np.all(np.abs(g - w) <= tol), np.max(np.abs(g - w) - tol)
    if g.size:
        assert np.mean(g == w) >= exact_share


# Most products above oar's oneDNN threshold (2^17 multiply-adds), a few below
# (converted to float32 and rounded once).
MATMUL_CASES = [
    ((128, 64), (64, 32), False, False),
    ((128, 64), (32, 64), False, True),
    ((64, 128), (64, 32), True, False),
    ((64, 128), (32, 64), True, True),
    ((7,), (7, 3), False, False),
    ((4, 7), (7,), False, False),
    ((1024,), (1024, 256), False, False),
    ((5, 64, 48), (48, 32), False, False),
    ((2, 1, 32, 40), (3, 40, 48), False, False),
    ((3, 64, 40), (3, 48, 40), False, True),
    ((128, 1000), (1000, 96), False, False),
    ((0, 5), (5, 3), False, False),
]


@pytest.mark.parametrize("xs,ys,tx,ty", MATMUL_CASES)
def test_matmul_forward_and_grad(xs, ys, tx, ty):
    (xo, xt), (yo, yt) = pair(xs, grad=True), pair(ys, grad=True)
    out = oar.matmul(xo, yo, transpose_x=tx, transpose_y=ty)
    a = xt.mT if tx else xt
    b = yt.mT if ty else yt
    ref = torch.matmul(a, b)
    k = xs[-2] if tx else xs[-1]
    check(out, ref, k)
    if out.size == 0:
        return
    go, gt = pair(list(ref.shape))
    dx, dy = oar.grad([out], [xo, yo], [go])
    rdx, rdy = torch.autograd.grad([ref], [xt, yt], [gt])
    if len(xs) >= 2 and len(ys) >= 2 and xs[:-2] != ys[:-2]:
        # A broadcast batch: oar's gradient is the batch's bfloat16 GEMMs, each
        # rounded, summed in float32 over the broadcast dims and rounded (torch
        # may fold the batch into one GEMM). The reference does the same.
        rdx, rdy = broadcast_grads(xt, yt, tx, ty, gt)
    n = ref.shape[-1] if len(ref.shape) else 1
    check(dx, rdx, n)
    m = int(np.prod(ref.shape[-2:-1])) if len(ref.shape) > 1 else 1
    check(dy, rdy, m)


def broadcast_grads(xt, yt, tx, ty, gt):
    batch = list(gt.shape[:-2])
    full = []
    for t in (xt, yt):
        e = t.detach().expand(batch + list(t.shape[-2:])).clone().requires_grad_()
        full.append(e)
    a = full[0].mT if tx else full[0]
    b = full[1].mT if ty else full[1]
    grads = torch.autograd.grad([torch.matmul(a, b)], full, [gt])
    out = []
    for t, g in zip((xt, yt), grads):
        g = g.float()
        lead = g.dim() - t.dim()
        g = g.sum(list(range(lead))) if lead else g
        dims = [i for i in range(t.dim() - 2) if t.shape[i] == 1 and g.shape[i] != 1]
        g = g.sum(dims, keepdim=True) if dims else g
        out.append(g.bfloat16())
    return out


def test_matmul_views():
    base, bt = pair((96, 80))
    w, wt = pair((80, 48))
    for view, tview in [
        (base.T, bt.T),  # transposed
        (base[:, 3:67], bt[:, 3:67]),  # row stride above the row length
        (base[:, ::2], bt[:, ::2]),  # no unit stride
        (oar.flip(base, [0]), torch.flip(bt, [0])),  # negative stride
    ]:
        k = view.shape[-1]
        other, ot = (w[:k], wt[:k]) if k <= 80 else pair((k, 48))
        check(oar.matmul(view, other), torch.matmul(tview, ot), k)


# Products with M >= 1024 and K * N >= 2^18 take oar's packed route where dispatch
# reaches AVX-512 (Note [Packing bfloat16 weights for oneDNN]): B is packed into
# oneDNN's blocked pair layout by oar's packer. Its K and N here are not multiples
# of the 32 x 64 blocks, B comes row-major, transposed and sliced, and x transposed.
# Below AVX-512 the same products take the plain route. On every ISA the route must
# keep the values (within bfloat16 rounding of the float32 sum) and the layout of
# the plain one; which bits the sums round to is oneDNN's choice, which may depend
# on M and the ISA (with AVX2 it does), so rows computed in a shorter product are
# held to the same tolerance, not to equal bits.
PACKED_CASES = [
    ((1024, 512), (512, 512), False, False),
    ((1030, 777), (333, 777), False, True),
    ((777, 1030), (777, 333), True, False),
    ((1100, 2700), (100, 2700), False, True),
    ((1024, 1), (1, 300000), False, False),
]


def packs():
    """Whether the packed route is in dispatch's reach (oar.device.cpu_isa)."""
    return oar.device.cpu_isa().dispatched.startswith("avx512")


def plain_layout(t, shape):
    assert list(t.shape) == list(shape)
    assert t.is_contiguous()


@pytest.mark.parametrize("xs,ys,tx,ty", PACKED_CASES)
def test_packed_route(xs, ys, tx, ty):
    (xo, xt), (yo, yt) = pair(xs), pair(ys)
    out = oar.matmul(xo, yo, transpose_x=tx, transpose_y=ty)
    ref = torch.matmul(xt.mT if tx else xt, yt.mT if ty else yt)
    k = xs[0] if tx else xs[1]
    check(out, ref, k)
    plain_layout(out, ref.shape)
    # Fewer than 1024 rows take the plain route: the same values within rounding.
    head = oar.matmul(xo[:, :500] if tx else xo[:500], yo, transpose_x=tx, transpose_y=ty)
    check(head, ref[:500], k)
    plain_layout(head, ref[:500].shape)


def test_packed_route_views_and_grad():
    (big, bigt), (x, xt) = pair((600, 1000)), pair((1100, 600), grad=True)
    check(oar.matmul(x, big[:, 100:700]), torch.matmul(xt, bigt[:, 100:700]), 600)
    (w, wt), (b, bt) = pair((600, 700), grad=True), pair((700,), grad=True)
    out = F.linear(x, w, b)
    ref = torch.nn.functional.linear(xt, wt.T, bt)
    check(out, ref, 601)
    check(F.linear(x[:500], w, b), ref[:500], 601)
    go, gt = pair((1100, 700))
    grads = oar.grad([out], [x, w, b], [go])
    want = torch.autograd.grad([ref], [xt, wt, bt], [gt])
    for got, w_grad, k in zip(grads, want, (700, 1100, 1100)):
        check(got, w_grad, k, exact_share=0.5)
        plain_layout(got, w_grad.shape)


def test_packed_route_folds_a_batch():
    # [8, 160, 600] @ [600, 700] is one product of 1280 rows where the packed route
    # is in reach: then it is the same oneDNN call as the product of the reshaped
    # rows, bit for bit. On every ISA both keep the values. A permuted batch keeps
    # its shape.
    (x, xt), (w, wt), (b, bt) = pair((8, 160, 600)), pair((600, 700)), pair((700,))
    out = oar.matmul(x, w)
    ref = torch.matmul(xt, wt)
    check(out, ref, 600)
    flat = oar.matmul(x.reshape([1280, 600]), w).reshape([8, 160, 700])
    check(flat, ref, 600)
    if packs():
        assert np.array_equal(values(out), values(flat))
    lin = F.linear(x, w, b)
    lin_ref = torch.nn.functional.linear(xt, wt.T, bt)
    check(lin, lin_ref, 601)
    flat = F.linear(x.reshape([1280, 600]), w, b).reshape([8, 160, 700])
    check(flat, lin_ref, 601)
    if packs():
        assert np.array_equal(values(lin), values(flat))
    check(oar.matmul(x.transpose([1, 0, 2]), w), torch.matmul(xt.transpose(0, 1), wt), 600)
    # Views whose batch does not step as their rows do keep the batched call.
    base, bt = pair((4, 3, 300, 600))
    for view, tview in [(base[:, 1:2], bt[:, 1:2]), (base[:, :, 50:250], bt[:, :, 50:250]),
                        (base[::2], bt[::2]), (base[:, :, :1], bt[:, :, :1])]:
        check(oar.matmul(view, w), torch.matmul(tview, wt), 600)
    # A size-1 dim may carry any stride: here the batch dim's own.
    big, bigt = pair((4, 2, 300, 600))
    view = oar.as_strided(big, [4, 1, 300, 600], [360000, 360000, 600, 1])
    tview = bigt.as_strided([4, 1, 300, 600], [360000, 360000, 600, 1])
    check(oar.matmul(view, w), torch.matmul(tview, wt), 600)


def test_bmm_linear_einsum():
    (a, at), (b, bt) = pair((6, 40, 48)), pair((6, 48, 32))
    check(oar.bmm(a, b), torch.bmm(at, bt), 48)
    (x, xt), (w, wt), (bias, biast) = pair((4, 16, 64)), pair((64, 48)), pair((48,))
    # Paddle's weight layout [in, out]; torch's is [out, in].
    check(F.linear(x, w, bias), torch.nn.functional.linear(xt, wt.T, biast), 65)
    if hasattr(oar, "einsum"):
        check(oar.einsum("bij,bjk->bik", a, b), torch.einsum("bij,bjk->bik", at, bt), 48)


def test_linear_grad():
    (x, xt), (w, wt), (b, bt) = pair((64, 80), True), pair((80, 48), True), pair((48,), True)
    y = F.linear(x, w, b)
    yt = torch.nn.functional.linear(xt, wt.T, bt)
    check(y, yt, 81)
    g, gt = pair((64, 48))
    dx, dw, db = oar.grad([y], [x, w, b], [g])
    rdx, rdw, rdb = torch.autograd.grad([yt], [xt, wt, bt], [gt])
    check(dx, rdx, 48)
    check(dw, rdw, 64)
    check(db, rdb, 64)


@pytest.mark.parametrize(
    "n,cin,cout,hw,k,stride,pad,groups",
    [
        (8, 1, 32, 28, 3, 1, 1, 1),  # the Fashion-MNIST CNN's first layer
        (4, 32, 64, 14, 3, 1, 1, 1),  # and its second
        (2, 8, 16, 9, 3, 2, 1, 1),
        (2, 8, 16, 5, 1, 1, 0, 1),
        (2, 8, 8, 6, 3, 1, 1, 2),
    ],
)
def test_conv2d_forward_and_grads(n, cin, cout, hw, k, stride, pad, groups):
    (x, xt), (w, wt) = pair((n, cin, hw, hw), True), pair((cout, cin // groups, k, k), True)
    # The oracle is the float64 convolution of the same bfloat16 values, rounded
    # once: PyTorch's own bfloat16 convolution gradients are thousands of ulps off
    # on CPUs without AVX512-BF16 (measured on an AVX2 EPYC).
    x64, w64 = (t.detach().double().requires_grad_(True) for t in (xt, wt))
    conv = lambda a, b: torch.nn.functional.conv2d(a, b, stride=stride, padding=pad, groups=groups)
    y = F.conv2d(x, w, stride=stride, padding=pad, groups=groups)
    y64 = conv(x64, w64)
    check(y, y64.bfloat16(), cin // groups * k * k)
    g, gt = pair(list(y64.shape))
    dx, dw = oar.grad([y], [x, w], [g])
    rdx, rdw = torch.autograd.grad([y64], [x64, w64], [gt.double()])
    check(dx, rdx.bfloat16(), cout // groups * k * k)
    check(dw, rdw.bfloat16(), n * y64.shape[2] * y64.shape[3], exact_share=0.6)


def test_reductions_accumulate_in_float32():
    # 100,000 ones: a bfloat16 accumulator would stop at 256.
    ones = oar.ones([100000], dtype="bfloat16")
    assert float(values(oar.sum(ones))) == 99840.0  # 100000 rounded to bfloat16
    assert float(values(oar.mean(ones))) == 1.0
    x, xt = pair((300, 700))
    for axis in (None, 0, 1):
        got = oar.sum(x) if axis is None else oar.sum(x, axis=axis)
        want = xt.float().sum() if axis is None else xt.float().sum(axis)
        check(got, want.bfloat16(), 700)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_elementwise_compute_in_float32(dtype):
    # Each output is the float32 result on the converted inputs, rounded once.
    x32 = RNG.uniform(-3, 3, (257, 129)).astype("float32")
    x = oar.to_tensor(x32).astype(dtype)
    xf = x.astype("float32")
    for f in (oar.exp, oar.tanh, F.relu, F.sigmoid, F.gelu, lambda t: F.softmax(t, axis=-1)):
        got = f(x)
        assert str(got.dtype).endswith(dtype)
        np.testing.assert_array_equal(values(got), values(f(xf).astype(dtype)))
