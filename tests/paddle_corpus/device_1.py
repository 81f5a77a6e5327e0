# Pick the device the way a Paddle script starts, then compute there.
import paddle

paddle.set_device("cpu")
print(paddle.get_device())
print(paddle.device.get_device())
print(paddle.is_compiled_with_cuda(), paddle.device.is_compiled_with_cuda())
print(paddle.in_dynamic_mode())
x = paddle.ones([2, 3])
print(x.place.is_cpu_place())
print(paddle.CPUPlace())
