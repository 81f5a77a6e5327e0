# Type promotion between tensors of different dtypes.
import paddle

f32 = paddle.to_tensor([1.5, 2.5], dtype="float32")
f64 = paddle.to_tensor([1.0, 2.0], dtype="float64")
i64 = paddle.to_tensor([1, 2], dtype="int64")
print((f32 + f64).dtype == paddle.float64)
print((f32 * 2).dtype == paddle.float32)
print((i64 * 2).dtype == paddle.int64)
print((i64 / 2).numpy().tolist())
print(paddle.to_tensor([True, False]).astype("float32").numpy().tolist())
