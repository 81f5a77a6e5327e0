# Solving and factorising a small system.
import numpy as np
import paddle

A = paddle.to_tensor([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]], dtype="float64")
b = paddle.to_tensor([[1.0], [2.0], [3.0]], dtype="float64")
print((np.round(paddle.linalg.solve(A, b).numpy().astype('float64'), 6) + 0.0).tolist())
print(round(paddle.linalg.det(A).item(), 6))
print((np.round(paddle.linalg.inv(A).numpy().astype('float64'), 6) + 0.0).tolist())
L = paddle.linalg.cholesky(A)
print(np.allclose((L @ L.T).numpy(), A.numpy()))
sign, logdet = paddle.linalg.slogdet(A)
print(sign.item(), round(logdet.item(), 6))
print(round(paddle.linalg.norm(A).item(), 6), round(paddle.linalg.cond(A).item(), 6))
print(paddle.linalg.matrix_rank(A).item())
print((np.round(paddle.linalg.matrix_power(A, 3).numpy().astype('float64'), 6) + 0.0).tolist())
