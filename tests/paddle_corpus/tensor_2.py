# Reductions, sorting and searching.
import paddle

x = paddle.to_tensor([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]])
print(x.sum().item(), x.sum(axis=0).numpy().tolist(), x.mean(axis=1).numpy().tolist())
print(x.max().item(), x.argmax(axis=1).numpy().tolist(), x.min(axis=0).numpy().tolist())
values, indices = paddle.topk(x, k=2, axis=1)
print(values.numpy().tolist(), indices.numpy().tolist())
print(paddle.sort(x, axis=1).numpy().tolist(), paddle.argsort(x, axis=1, descending=True).numpy().tolist())
print(paddle.cumsum(x, axis=1).numpy().tolist())
print(paddle.where(x > 1, x, paddle.zeros_like(x)).numpy().tolist())
print(paddle.unique(paddle.to_tensor([3, 1, 3, 2, 1])).numpy().tolist())
print(paddle.any(x < 0).item(), paddle.all(x > -2).item())
print(round(x.std().item(), 5), round(x.var(axis=0, unbiased=False).numpy().tolist()[1], 5))
