"""ResNet-18 inference, oar vs PyTorch, in one process, 2 threads each (not a test).
--threads sets PyTorch's threads; oar's are OMP_NUM_THREADS (give both the same).

    OMP_NUM_THREADS=2 python benchmarks/inference.py [--repeat R] [--batch 1 16]
                                                     [--threads 2] [--profile]

oar.vision.models.resnet18 in eval() under no_grad against the model suite's hand-written
PyTorch ResNet-18 (model_zoo/torch_models.py; torchvision is not needed) holding the same
weights and running statistics; the outputs are compared before timing. Each row is
the best of R calls at a 224x224 float32 input, in ms, oar and PyTorch alternating
call by call (the best, not the mean: on a shared machine it is the one least
disturbed by other processes); the ratio is oar / PyTorch (below 1: oar is faster).
--profile prints oar.profiler's op table of one oar forward per batch size.
"""

import argparse
import os
import sys

import _machine

os.environ.pop("OPENBLAS_CORETYPE", None)
os.environ.pop("OPENBLAS_L2_SIZE", None)

import numpy as np  # noqa: E402
import oar  # noqa: E402
import oar.profiler as profiler  # noqa: E402
import torch  # noqa: E402
from conv import best_ms  # noqa: E402  (interleaved best-of timing)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "model_zoo"))
from torch_models import ResNet18  # noqa: E402


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
    tmodel = ResNet18()
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
