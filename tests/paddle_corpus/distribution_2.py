# Sampling shapes and the reparameterised gradient.
import paddle
from paddle.distribution import Normal, Bernoulli, Exponential

paddle.seed(1)
n = Normal(paddle.to_tensor([0.0, 1.0, 2.0]), paddle.to_tensor([1.0, 1.0, 1.0]))
print(list(n.sample([4]).shape), list(n.rsample([2, 5]).shape))
loc = paddle.to_tensor([0.5], stop_gradient=False)
scale = paddle.to_tensor([2.0], stop_gradient=False)
s = Normal(loc, scale).rsample([1000])
s.mean().backward()
print(round(loc.grad.item(), 4))
b = Bernoulli(paddle.to_tensor([0.3, 0.9]))
print(list(b.sample([7]).shape))
e = Exponential(paddle.to_tensor([2.0]))
print(round(e.mean.item(), 5), round(e.variance.item(), 5))
