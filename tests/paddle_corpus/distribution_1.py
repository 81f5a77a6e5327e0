# Densities, moments and divergences of a few distributions.
import numpy as np
import paddle
from paddle.distribution import Normal, Uniform, Categorical, kl_divergence

n = Normal(paddle.to_tensor([0.0, 1.0]), paddle.to_tensor([1.0, 2.0]))
print((np.round(n.log_prob(paddle.to_tensor([0.5, 0.5])).numpy().astype('float64'), 5) + 0.0).tolist())
print((np.round(n.entropy().numpy().astype('float64'), 5) + 0.0).tolist())
print(n.mean.numpy().tolist(), n.variance.numpy().tolist())
m = Normal(paddle.to_tensor([1.0, 1.0]), paddle.to_tensor([1.0, 1.0]))
print((np.round(kl_divergence(n, m).numpy().astype('float64'), 5) + 0.0).tolist())
u = Uniform(paddle.to_tensor(0.0), paddle.to_tensor(4.0))
print(round(u.log_prob(paddle.to_tensor(1.0)).item(), 5), round(u.entropy().item(), 5))
c = Categorical(paddle.to_tensor([0.1, 0.2, 0.7]))
print((np.round(c.probs(paddle.to_tensor([0, 2])).numpy().astype('float64'), 5) + 0.0).tolist())
print(round(c.entropy().item(), 5))
