"""A typed use of oar that mypy --strict must accept with the installed stubs
(tests/python/test_public_api.py runs mypy on it, and runs it)."""
import numpy as np

import oar

x: oar.Tensor = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
y = oar.matmul(x, x, transpose_y=True)
z = (y * 2.0 + 1).sum(axis=[0, 1], keepdim=False)
z.backward()
g: oar.Tensor | None = x.grad
shape: list[int] = x.shape
a: np.ndarray = x.numpy()
w = oar.where(x > 2.0, x, oar.zeros_like(x))
parts: list[oar.Tensor] = oar.split(w, 2, axis=0)
idx: tuple[oar.Tensor, ...] = oar.nonzero(x, as_tuple=True)
c = oar.cast(oar.concat([x, x], axis=0), oar.float64).astype("float32")
d: oar.dtype = c.dtype
with oar.no_grad():
    s: float = x.softmax(axis=-1).mean().item()
(gx,) = oar.grad([oar.sum(x * x)], [x])
h = oar._C.tanh_grad(x, x)  # an internal op, reachable through oar._C
k = x[0, 1:] + oar.full([1], 3, dtype=oar.int64).cast("float32")
n: int = int(oar.numel(x))  # a 0-D int64 tensor, as in Paddle
r = oar.arange(0.0, 4.0) ** 2 - oar.pow(x, 2.0).reshape([-1]).max()
x.detach().add_(oar.ones_like(x)).clear_grad()
