# First and second derivatives with paddle.grad.
import paddle

x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
y = (x ** 3).sum()
(g,) = paddle.grad([y], [x], create_graph=True)
print(g.numpy().tolist())
(gg,) = paddle.grad([g.sum()], [x])
print(gg.numpy().tolist())
z = paddle.to_tensor([2.0], stop_gradient=False)
w = z * z
w.backward()
print(z.grad.numpy().tolist())
