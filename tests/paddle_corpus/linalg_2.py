# Decompositions: QR, SVD, symmetric eigenvalues, least squares, pseudo-inverse.
import numpy as np
import paddle

A = paddle.to_tensor([[2.0, -1.0], [-1.0, 2.0], [1.0, 1.0]], dtype="float64")
q, r = paddle.linalg.qr(A)
print(list(q.shape), list(r.shape), np.allclose((q @ r).numpy(), A.numpy()))
u, s, vh = paddle.linalg.svd(A, full_matrices=False)
print((np.round(s.numpy().astype('float64'), 6) + 0.0).tolist())
S = paddle.to_tensor([[2.0, 1.0], [1.0, 2.0]], dtype="float64")
w, v = paddle.linalg.eigh(S)
print((np.round(w.numpy().astype('float64'), 6) + 0.0).tolist())
print((np.round(paddle.linalg.eigvalsh(S).numpy().astype('float64'), 6) + 0.0).tolist())
b = paddle.to_tensor([[1.0], [0.0], [2.0]], dtype="float64")
sol = paddle.linalg.lstsq(A, b)[0]
print((np.round(sol.numpy().astype('float64'), 6) + 0.0).tolist())
print((np.round(paddle.linalg.pinv(A).numpy().astype('float64'), 6) + 0.0).tolist())
