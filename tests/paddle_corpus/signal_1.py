# Short-time Fourier transform and its inverse.
import numpy as np
import paddle

t = paddle.to_tensor(np.sin(np.linspace(0, 8 * np.pi, 64)).astype("float32"))
window = paddle.to_tensor(np.hanning(17)[:16].astype("float32"))
S = paddle.signal.stft(t, n_fft=16, hop_length=4, window=window)
print(list(S.shape), S.dtype == paddle.complex64)
print((np.round(paddle.abs(S).numpy().astype("float64"), 3) + 0.0)[:3, 2].tolist())
back = paddle.signal.istft(S, n_fft=16, hop_length=4, window=window, length=64)
print(list(back.shape), bool(np.allclose(back.numpy(), t.numpy(), atol=1e-4)))
