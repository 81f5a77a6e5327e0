"""One measurement of benchmarks/models.py, in a process of its own:

    python worker.py FRAMEWORK ROW STEPS WARMUP [PREFIX]

FRAMEWORK is oar, torch or paddle (the row's training step or inference call),
onnxruntime (inference of PREFIX.onnx), or export (oar writes the row's model as
PREFIX.onnx and oar.jit.save's PREFIX.oarmodel/.safetensors, and its input as
PREFIX.inputs.safetensors, for the onnxruntime and C++ runs). Prints one JSON line:
the median time of a step in seconds over STEPS steps after WARMUP untimed ones, and
the peak resident set size of this process in MiB.

    python worker.py FRAMEWORK ROW lockstep WARMUP

(oar, torch or paddle; benchmarks/models_lockstep.py) runs WARMUP steps, prints a JSON
line (the version and parameter count) and then waits for commands on stdin, one a
line: a number N runs one untimed step and N timed ones and prints their times (a JSON
list, seconds); `end` prints the final JSON line (the loss of one more training step,
the peak RSS) and exits."""

import json
import resource
import statistics
import sys
import time

import workloads


def timed(step, steps, warmup):
    for _ in range(warmup):
        step()
    times = []
    for _ in range(steps):
        t = time.perf_counter()
        step()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def lockstep(step, warmup, result, train):
    """Steps on command (the module docstring): another framework's process, driven by
    the same controller, runs between two blocks of this one."""
    for _ in range(warmup):
        step()
    print(json.dumps(result), flush=True)
    for line in sys.stdin:
        if line.strip() == "end":
            break
        step()  # untimed: the other process has just run and evicted this one's data
        times = []
        for _ in range(int(line)):
            t = time.perf_counter()
            step()
            times.append(time.perf_counter() - t)
        print(json.dumps(times), flush=True)
    if train:
        result["loss"] = step()
    result["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result), flush=True)


def onnxruntime_step(prefix, x):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(prefix + ".onnx", so, providers=["CPUExecutionProvider"])
    feed = {sess.get_inputs()[0].name: x}
    return (lambda: sess.run(None, feed)), ort.__version__


def main():
    fw, row, steps, warmup = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    w = workloads.ROWS[row]
    x, y = workloads.data(w.model, w.batch)
    result = {}
    if fw == "onnxruntime":
        step, result["version"] = onnxruntime_step(sys.argv[5], x)
    else:
        if fw == "torch":
            import torch_models as zoo
        else:
            import paddle_api as zoo
        zoo.use("oar" if fw == "export" else fw)
        result["version"] = zoo.version()
        net = zoo.build(w.model)
        result["params"] = zoo.count_params(net)
        if fw == "export":
            zoo.export(net, x, sys.argv[5])
            print(json.dumps(result))
            return
        step = zoo.train_step(net, w.opt, x, y) if w.mode == "train" else zoo.infer_step(net, x)
        if steps == "lockstep":
            lockstep(step, warmup, result, w.mode == "train")
            return
    result["median"] = timed(step, int(steps), warmup)
    if w.mode == "train":
        result["loss"] = step()
    result["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result))


if __name__ == "__main__":
    main()
