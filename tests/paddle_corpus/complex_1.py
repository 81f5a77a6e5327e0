# Complex tensors: creation, parts, conjugate, magnitude and phase.
import numpy as np
import paddle

z = paddle.to_tensor([1 + 2j, -3 + 0.5j, 2 - 1j])
print(z.dtype == paddle.complex64, list(z.shape))
print(paddle.real(z).numpy().tolist())
print(paddle.imag(z).numpy().tolist())
print(paddle.conj(z).numpy().tolist())
print((np.round(paddle.abs(z).numpy().astype('float64'), 4) + 0.0).tolist())
print((np.round(paddle.angle(z).numpy().astype('float64'), 4) + 0.0).tolist())
w = paddle.complex(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([0.5, -1.0]))
print((w * w).numpy().tolist())
print(paddle.as_real(w).numpy().tolist())
