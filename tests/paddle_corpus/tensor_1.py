# Shape manipulation and indexing.
import paddle

x = paddle.arange(12, dtype="float32").reshape([3, 4])
print(paddle.concat([x, x], axis=0).shape == [6, 4] or list(paddle.concat([x, x], axis=0).shape))
a, b = paddle.split(x, 2, axis=1)
print(a.numpy().tolist(), b.numpy().tolist())
print(paddle.gather(x, paddle.to_tensor([2, 0])).numpy().tolist())
print(x[1:, ::2].numpy().tolist())
print(x[x > 6].numpy().tolist())
y = x.clone()
y[0, :] = -1
print(y.numpy().tolist())
print(paddle.transpose(x, [1, 0]).numpy().tolist())
print(paddle.stack([x[0], x[1]]).numpy().tolist())
print(paddle.flip(x, axis=[0])[0].numpy().tolist())
print(paddle.tile(paddle.to_tensor([1, 2]), [2]).numpy().tolist())
