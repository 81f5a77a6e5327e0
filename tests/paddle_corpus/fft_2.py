# The gradient of a loss through an FFT (Parseval: d/dx sum |fft(x)|^2 = 2 n x).
import numpy as np
import paddle

x = paddle.to_tensor([0.5, -1.0, 2.0, 1.5], stop_gradient=False)
loss = (paddle.abs(paddle.fft.fft(x)) ** 2).sum()
loss.backward()
print(round(loss.item(), 4), (np.round(x.grad.numpy().astype("float64"), 4) + 0.0).tolist())
y = paddle.to_tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], stop_gradient=False)
paddle.fft.rfft(y).real().sum().backward()
print((np.round(y.grad.numpy().astype("float64"), 4) + 0.0).tolist())
