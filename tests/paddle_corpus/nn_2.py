# Functional layers on fixed inputs.
import numpy as np
import paddle
import paddle.nn.functional as F

x = paddle.arange(16, dtype="float32").reshape([1, 1, 4, 4])
w = paddle.ones([2, 1, 3, 3])
print(F.conv2d(x, w, padding=1)[0, 0].numpy().tolist())
print(F.max_pool2d(x, kernel_size=2)[0, 0].numpy().tolist())
print(F.avg_pool2d(x, kernel_size=2)[0, 0].numpy().tolist())
logits = paddle.to_tensor([[2.0, 1.0, 0.1], [0.5, 2.5, 0.0]])
print((np.round(F.softmax(logits).numpy().astype('float64'), 5) + 0.0).tolist())
label = paddle.to_tensor([0, 1])
print(round(F.cross_entropy(logits, label).item(), 5))
print(F.one_hot(label, num_classes=3).numpy().tolist())
print(F.relu(paddle.to_tensor([-1.0, 2.0])).numpy().tolist())
print((np.round(F.layer_norm(logits, 3).numpy().astype('float64'), 5) + 0.0).tolist())
