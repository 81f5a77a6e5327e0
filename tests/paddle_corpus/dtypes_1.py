# 8- and 16-bit integers: creation, wrapping arithmetic, casting and numpy interop.
import numpy as np
import paddle

a = paddle.to_tensor([250, 3, 7], dtype="uint8")
b = paddle.to_tensor([10, 5, 1], dtype="uint8")
print((a + b).numpy().tolist(), (a + b).dtype == paddle.uint8)
c = paddle.to_tensor([-128, 0, 127], dtype="int8")
print((c - 1).numpy().tolist())
d = paddle.to_tensor(np.array([1000, -2000], dtype=np.int16))
print(d.dtype == paddle.int16, (d * 40).numpy().tolist())
print(paddle.cast(paddle.to_tensor([1.7, -2.2, 300.0]), "int16").numpy().tolist())
print((a.astype("int32") * 2).numpy().tolist())
