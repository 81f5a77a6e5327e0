"""ResNet-18 inference, oar vs PyTorch, in one process, 2 threads each (not a test).
--threads sets PyTorch's threads; oar's are OMP_NUM_THREADS (give both the same).

    OMP_NUM_THREADS=2 python benchmarks/inference.py [--repeat R] [--batch 1 16]
                                                     [--threads 2] [--profile]

oar.vision.models.resnet18 in eval() under no_grad against a hand-written PyTorch
ResNet-18 of the same architecture (torchvision is not needed) holding the same
weights and running statistics; the outputs are compared before timing. Each row is
the best of R calls at a 224x224 float32 input, in ms, oar and PyTorch alternating
call by call (the best, not the mean: on a shared machine it is the one least
disturbed by other processes); the ratio is oar / PyTorch (below 1: oar is faster).
--profile prints oar.profiler's op table of one oar forward per batch size.
"""

import argparse
import os

import _machine

os.environ.pop("OPENBLAS_CORETYPE", None)
os.environ.pop("OPENBLAS_L2_SIZE", None)

import numpy as np  # noqa: E402
import oar  # noqa: E402
import oar.profiler as profiler  # noqa: E402
import torch  # noqa: E402
import torch.nn as tnn  # noqa: E402
from conv import best_ms  # noqa: E402  (interleaved best-of timing)


class TorchBasicBlock(tnn.Module):
    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = tnn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = tnn.BatchNorm2d(planes)
        self.relu = tnn.ReLU(inplace=True)
        self.conv2 = tnn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = tnn.BatchNorm2d(planes)
        self.downsample = downsample

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        return self.relu(out + identity)


class TorchResNet18(tnn.Module):
    """torchvision's resnet18, with Paddle's (= torchvision's) parameter names."""

    def __init__(self, num_classes=1000):
        super().__init__()
        self.inplanes = 64
        self.conv1 = tnn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = tnn.BatchNorm2d(64)
        self.relu = tnn.ReLU(inplace=True)
        self.maxpool = tnn.MaxPool2d(3, 2, 1)
        self.layer1 = self._make_layer(64, 2)
        self.layer2 = self._make_layer(128, 2, 2)
        self.layer3 = self._make_layer(256, 2, 2)
        self.layer4 = self._make_layer(512, 2, 2)
        self.avgpool = tnn.AdaptiveAvgPool2d((1, 1))
        self.fc = tnn.Linear(512, num_classes)

    def _make_layer(self, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes:
            downsample = tnn.Sequential(
                tnn.Conv2d(self.inplanes, planes, 1, stride, bias=False), tnn.BatchNorm2d(planes)
            )
        layers = [TorchBasicBlock(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes
        layers += [TorchBasicBlock(planes, planes) for _ in range(1, blocks)]
        return tnn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def copy_weights(model, tmodel, rng):
    """Random running statistics into oar's model, then every tensor into PyTorch's
    (Paddle's Linear weight is [in, out], PyTorch's [out, in])."""
    state = model.state_dict()
    tstate = tmodel.state_dict()
    for name, t in state.items():
        a = t.numpy()
        if name.endswith("_mean"):
            a = rng.normal(0, 0.1, a.shape).astype(a.dtype)
            t.set_value(a)
        elif name.endswith("_variance"):
            a = rng.uniform(0.5, 1.5, a.shape).astype(a.dtype)
            t.set_value(a)
        tname = name.replace("_mean", "running_mean").replace("_variance", "running_var")
        if name == "fc.weight":
            a = a.T
        tstate[tname].copy_(torch.from_numpy(np.ascontiguousarray(a)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repeat", type=int, default=30)
    p.add_argument("--batch", type=int, nargs="+", default=[1, 16])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--profile", action="store_true")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    oar.seed(0)
    model = oar.vision.models.resnet18()
    model.eval()
    tmodel = TorchResNet18()
    copy_weights(model, tmodel, rng)
    tmodel.eval()
    print(_machine.describe())
    print(
        f"ResNet-18 eval, oar vs PyTorch {torch.__version__}, float32 224x224, "
        f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '<unset>')}, torch threads "
        f"{torch.get_num_threads()}, best of {args.repeat} (ms)"
    )
    print(f"{'batch':>5s} {'oar':>8s} {'torch':>8s} {'ratio':>6s}")
    for n in args.batch:
        xa = rng.uniform(-1, 1, [n, 3, 224, 224]).astype("float32")
        xo, xt = oar.to_tensor(xa), torch.from_numpy(xa)

        def oar_fwd():
            with oar.no_grad():
                return model(xo)

        def torch_fwd():
            with torch.no_grad():
                return tmodel(xt)

        diff = np.abs(oar_fwd().numpy() - torch_fwd().numpy()).max()
        assert diff < 1e-3 * max(1.0, np.abs(torch_fwd().numpy()).max()), diff
        o, t = best_ms([oar_fwd, torch_fwd], args.repeat)
        print(f"{n:5d} {o:8.3f} {t:8.3f} {o / t:6.2f}", flush=True)
        if args.profile:
            prof = profiler.Profiler(on_trace_ready=lambda p: None)
            with prof:
                for _ in range(5):
                    oar_fwd()
                    prof.step()
            prof.summary(sorted_by=profiler.SortedKeys.CPUTotal, op_detail=False, time_unit="ms")


if __name__ == "__main__":
    main()
