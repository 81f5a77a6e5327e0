# The gradient of a real loss through complex intermediates.
import numpy as np
import paddle

x = paddle.to_tensor([1.0, 2.0, -0.5], stop_gradient=False)
y = paddle.to_tensor([0.5, -1.0, 2.0], stop_gradient=False)
z = paddle.complex(x, y)
loss = (paddle.abs(z * z) + paddle.real(z * paddle.conj(z))).sum()
loss.backward()
print((np.round(x.grad.numpy().astype('float64'), 4) + 0.0).tolist())
print((np.round(y.grad.numpy().astype('float64'), 4) + 0.0).tolist())
