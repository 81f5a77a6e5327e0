# Discrete Fourier transforms and their inverses.
import numpy as np
import paddle

x = paddle.to_tensor([1.0, 2.0, 0.0, -1.0, 3.0, 0.5, -2.0, 1.0])
X = paddle.fft.fft(x)
print(X.dtype == paddle.complex64, list(X.shape))
print((np.round(paddle.abs(X).numpy().astype("float64"), 4) + 0.0).tolist())
print((np.round(paddle.fft.ifft(X).real().numpy().astype("float64"), 4) + 0.0).tolist())
R = paddle.fft.rfft(x, norm="ortho")
print(list(R.shape), (np.round(paddle.fft.irfft(R, n=8, norm="ortho").numpy().astype("float64"), 4) + 0.0).tolist())
print(paddle.fft.fftfreq(6, d=0.5).numpy().tolist())
print(paddle.fft.rfftfreq(6).numpy().tolist())
img = paddle.reshape(paddle.arange(16, dtype="float32"), [4, 4])
F2 = paddle.fft.fft2(img)
print((np.round(F2.real().numpy().astype("float64"), 3) + 0.0).tolist()[0])
print((np.round(paddle.fft.ifft2(F2).real().numpy().astype("float64"), 3) + 0.0).tolist()[1])
