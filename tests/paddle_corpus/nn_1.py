# A few SGD steps of a linear model on fixed data.
import numpy as np
import paddle

paddle.seed(0)
x = paddle.to_tensor(np.linspace(-1, 1, 8).reshape(8, 1).astype("float32"))
y = 3 * x + 1
lin = paddle.nn.Linear(1, 1, weight_attr=paddle.nn.initializer.Constant(0.5),
                       bias_attr=paddle.nn.initializer.Constant(0.0))
opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=lin.parameters())
for _ in range(50):
    loss = paddle.nn.functional.mse_loss(lin(x), y)
    loss.backward()
    opt.step()
    opt.clear_grad()
print(round(lin.weight.item(), 3), round(lin.bias.item(), 3), loss.item() < 1e-4)
