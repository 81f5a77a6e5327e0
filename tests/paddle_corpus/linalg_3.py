# Gradients through linear algebra.
import numpy as np
import paddle

A = paddle.to_tensor([[3.0, 1.0], [1.0, 2.0]], dtype="float64", stop_gradient=False)
paddle.linalg.det(A).backward()
print((np.round(A.grad.numpy().astype('float64'), 6) + 0.0).tolist())
B = paddle.to_tensor([[3.0, 1.0], [1.0, 2.0]], dtype="float64", stop_gradient=False)
paddle.linalg.inv(B).sum().backward()
print((np.round(B.grad.numpy().astype('float64'), 6) + 0.0).tolist())
C = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], dtype="float64", stop_gradient=False)
paddle.linalg.svd(C)[1].sum().backward()
print((np.round(C.grad.numpy().astype('float64'), 6) + 0.0).tolist())
