# A small classifier trained with Adam; state_dict round trip through save/load.
import os
import tempfile
import numpy as np
import paddle
import paddle.nn as nn

paddle.seed(0)
np.random.seed(0)
x = paddle.to_tensor(np.random.rand(64, 4).astype("float32"))
y = paddle.to_tensor((np.random.rand(64) > 0.5).astype("int64"))
net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=net.parameters())
first = None
for step in range(100):
    loss = nn.functional.cross_entropy(net(x), y)
    first = first if first is not None else loss.item()
    loss.backward()
    opt.step()
    opt.clear_grad()
print(loss.item() < first)
print(sorted(net.state_dict().keys()))
path = os.path.join(tempfile.mkdtemp(), "net.pdparams")
paddle.save(net.state_dict(), path)
state = paddle.load(path)
print(all(np.array_equal(state[k].numpy(), v.numpy()) for k, v in net.state_dict().items()))
