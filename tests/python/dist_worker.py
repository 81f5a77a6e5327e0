"""The per-rank side of test_distributed.py: `dist_worker.py SCENARIO OUT_DIR`.

Each scenario runs in every rank's process and writes what it observed to
OUT_DIR/<scenario>.<rank>.json; the test compares that with closed forms.
"""
import json
import os
import signal
import sys
import time

import numpy as np

import oar
import oar.distributed as dist

DTYPES = ["float32", "float64", "int32", "int64", "float16", "bfloat16"]


def values(t):
    return oar.cast(t, "float64").numpy().reshape(-1).tolist()


def full(v, dtype, n=3):
    return oar.full([n], v, dtype=dtype)


def collectives():
    rank, n = dist.get_rank(), dist.get_world_size()
    out = {"rank": rank, "n": n}
    for dt in DTYPES:
        r = {}
        for name, op in (("sum", dist.ReduceOp.SUM), ("max", dist.ReduceOp.MAX),
                         ("min", dist.ReduceOp.MIN), ("prod", dist.ReduceOp.PROD),
                         ("avg", dist.ReduceOp.AVG)):
            x = full(2 * (rank + 1), dt)
            dist.all_reduce(x, op=op)
            r[name] = values(x)
        x = full(rank + 5, dt)
        task = dist.all_reduce(x, sync_op=False)
        task.wait()
        r["async_sum"] = values(x)
        x = full(rank, dt)
        dist.broadcast(x, src=n - 1)
        r["broadcast"] = values(x)
        gathered = []
        dist.all_gather(gathered, full(rank * 3, dt, 2))
        r["all_gather"] = [values(g) for g in gathered]
        out_t = full(0, dt, 2)
        dist.reduce_scatter(out_t, [full(rank * 10 + j, dt, 2) for j in range(n)])
        r["reduce_scatter"] = values(out_t)
        # A ring: send to the next rank, receive from the previous one.
        recv = full(-1, dt)
        task = dist.isend(full(rank + 100, dt), (rank + 1) % n)
        dist.recv(recv, src=(rank - 1) % n)
        task.wait()
        r["ring_recv"] = values(recv)
        out[dt] = r
    dist.barrier()
    g = dist.new_group([0, 1])
    x = full(rank + 1, "float32")
    dist.all_reduce(x, group=g)
    out["group"] = {"rank": g.rank, "nranks": g.nranks, "sum": values(x)}
    return out


def more_collectives():
    """reduce, gather, scatter, alltoall(_single) in every dtype they take, the object
    collectives, and get_backend."""
    rank, n = dist.get_rank(), dist.get_world_size()
    out = {"rank": rank, "n": n, "backend": dist.get_backend()}
    for dt in DTYPES + ["uint8", "int8", "bool", "complex64"]:
        r = {}
        if dt in DTYPES:  # reductions
            for name, op in (("sum", dist.ReduceOp.SUM), ("max", dist.ReduceOp.MAX),
                             ("avg", dist.ReduceOp.AVG)):
                x = full(2 * (rank + 1), dt)
                dist.reduce(x, dst=n - 1, op=op)
                r["reduce_" + name] = values(x)
        x = full(rank + 1, dt, 2) if dt != "complex64" else \
            oar.to_tensor(np.full([2], rank + 1 + 1j * rank, dtype=np.complex64))
        got = [] if rank == 0 else None
        dist.gather(x, got, dst=0)
        r["gather"] = [values(oar.real(g) if dt == "complex64" else g) for g in got] \
            if rank == 0 else None
        if dt == "complex64":
            r["gather_imag"] = [values(oar.imag(g)) for g in got] if rank == 0 else None
        piece = full(0, dt, 2)
        src_list = [full((k + 1) % 2 if dt == "bool" else 10 + k, dt, 2) for k in range(n)] \
            if rank == n - 1 else None
        dist.scatter(piece, src_list, src=n - 1)
        r["scatter"] = values(piece)
        # alltoall: rank sends [rank * 10 + k] * 2 to rank k (bool: rank % 2 == 0); an
        # empty output list is filled with tensors shaped like the inputs
        ins = [full((rank % 2 == 0) if dt == "bool" else rank * 10 + k, dt, 2)
               for k in range(n)]
        outs = []
        dist.alltoall(outs, ins)
        r["alltoall"] = [values(o) for o in outs]
        # uneven: rank sends k + 1 elements to rank k, so receives rank + 1 from each
        ins = [full((rank % 2 == 0) if dt == "bool" else rank * 10 + k, dt, k + 1)
               for k in range(n)]
        outs = [full(0, dt, rank + 1) for _ in range(n)]
        task = dist.alltoall(outs, ins, sync_op=False)
        task.wait()
        r["alltoall_uneven"] = [values(o) for o in outs]
        if dt not in ("bool", "complex64"):
            # alltoall_single with uneven splits: rank sends k + 1 rows to rank k
            rows = sum(k + 1 for k in range(n))
            src_t = oar.cast(oar.arange(rows * 2).reshape([rows, 2]) + 20 * rank, dt)
            dst_t = oar.cast(oar.zeros([n * (rank + 1), 2]), dt)
            dist.alltoall_single(dst_t, src_t, [k + 1 for k in range(n)], [rank + 1] * n,
                                 sync_op=False)
            dist.wait(dst_t)  # every operation issued before has run
            r["alltoall_single"] = values(dst_t)
        out[dt] = r
    objs = []
    dist.all_gather_object(objs, {"rank": rank, "payload": "x" * (rank * 50)})
    out["all_gather_object"] = objs
    lst = [None, None] if rank != 0 else [{"a": 1}, [1, 2, 3]]
    dist.broadcast_object_list(lst, src=0)
    out["broadcast_object_list"] = lst
    mine = []
    dist.scatter_object_list(mine, [("r", k, "y" * k) for k in range(n)] if rank == 0 else None,
                             src=0)
    out["scatter_object_list"] = [list(mine[0])]
    if rank == 0:
        dist.send_object_list([{"to": 1}, "hello", 3.5], dst=1)
    elif rank == 1:
        got = [None, None, None]
        dist.recv_object_list(got, src=0)
        out["recv_object_list"] = got
    # sizes that do not agree pairwise: every rank raises, none hangs or aborts
    try:
        dist.alltoall_single(oar.zeros([n]), oar.zeros([n]), [1] * n, [2] + [1] * (n - 2) + [0])
        out["alltoall_mismatch"] = "no error"
    except ValueError as e:
        out["alltoall_mismatch"] = str(e)
    # tensors of different sizes, or different calls, on the ranks: every rank raises
    # (Gloo would abort the process), and the group still works afterwards
    errs = []
    for call in (lambda: dist.all_reduce(oar.ones([3 + rank])),
                 lambda: dist.broadcast(oar.ones([2]), src=0) if rank == 0
                 else dist.all_reduce(oar.ones([2])),
                 lambda: dist.all_gather([], oar.ones([2], dtype="float32" if rank else "int64"))):
        try:
            call()
            errs.append("no error")
        except ValueError as e:
            errs.append(str(e))
    out["disagree"] = errs
    x = full(1, "float32")
    dist.all_reduce(x)
    out["after_disagree"] = values(x)
    # a send longer than its recv's tensor (Gloo aborted the receiver), and one of another
    # dtype with the same bytes (read silently as the wrong type): the receiver raises,
    # the sender's send completes, and the pair works afterwards
    if rank in (0, 1):
        peer = 1 - rank
        if rank == 0:
            dist.send(oar.ones([5]), dst=1)
            dist.send(oar.ones([2], dtype="float64"), dst=1)
        else:
            errs = []
            for t in (oar.zeros([3]), oar.zeros([4])):
                try:
                    dist.recv(t, src=0)
                    errs.append("no error")
                except ValueError as e:
                    errs.append(str(e))
            out["p2p_mismatch"] = errs
        got = oar.zeros([2])
        task = dist.irecv(got, src=peer)
        dist.send(oar.full([2], float(rank + 1)), dst=peer)
        task.wait()
        out["p2p_after"] = values(got)
    try:
        dist.reduce(full(1, "uint8"), dst=0)
        out["reduce_uint8"] = "no error"
    except TypeError as e:
        out["reduce_uint8"] = str(e)
    dist.barrier()
    return out


def spawned(out_dir):
    """The function spawn() runs in each rank (test_spawn_...)."""
    dist.init_parallel_env()
    x = oar.to_tensor([float(dist.get_rank() + 1)])
    dist.all_reduce(x)
    with open(os.path.join(out_dir, f"spawned.{dist.get_rank()}.json"), "w") as f:
        json.dump({"rank": dist.get_rank(), "n": dist.get_world_size(), "sum": values(x)}, f)


def sleeps_then_fails(seconds_by_rank):
    """Rank r sleeps seconds_by_rank[r]; a negative value: then raises."""
    s = seconds_by_rank[int(os.environ["PADDLE_TRAINER_ID"])]
    time.sleep(abs(s))
    if s < 0:
        raise ValueError("failed after sleeping")


def spawned_fails(out_dir):
    if int(os.environ["PADDLE_TRAINER_ID"]) == 1:
        raise ValueError("rank one gives up")
    time.sleep(30)


def mlp(seed):
    oar.seed(seed)
    return oar.nn.Sequential(oar.nn.Linear(8, 32), oar.nn.ReLU(), oar.nn.Linear(32, 32),
                             oar.nn.ReLU(), oar.nn.Linear(32, 4))


def batches(steps, batch):
    rng = np.random.RandomState(0)
    return [(rng.randn(batch, 8).astype("float32"), rng.randn(batch, 4).astype("float32"))
            for _ in range(steps)]


def params(model):
    return [p.numpy().tolist() for p in model.parameters()]


def data_parallel():
    rank, n = dist.get_rank(), dist.get_world_size()
    # Different seeds per rank: DataParallel must copy rank 0's parameters.
    net = mlp(seed=rank + 1)
    model = dist.DataParallel(net, comm_buffer_size=0.0005, last_comm_buffer_size=0.0002)
    ref = mlp(seed=1)  # what rank 0 starts from, trained alone on full batches
    opt = oar.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    ref_opt = oar.optimizer.SGD(learning_rate=0.1, parameters=ref.parameters())
    half = 16 // n
    for x, y in batches(4, 16):
        xs, ys = x[rank * half:(rank + 1) * half], y[rank * half:(rank + 1) * half]
        loss = ((model(oar.to_tensor(xs)) - oar.to_tensor(ys)) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        ref_loss = ((ref(oar.to_tensor(x)) - oar.to_tensor(y)) ** 2).mean()
        ref_loss.backward()
        ref_opt.step()
        ref_opt.clear_grad()
    return {"params": params(net), "ref": params(ref), "buckets": model._bucket_params()}


def cnn(seed, norm):
    oar.seed(seed)
    return oar.nn.Sequential(oar.nn.Conv2D(2, 4, 3, padding=1), norm(4), oar.nn.ReLU(),
                             oar.nn.Flatten(), oar.nn.Linear(4 * 5 * 5, 3))


def sync_batch_norm():
    """SyncBatchNorm under DataParallel on equal shares of each batch, and one process
    with BatchNorm on the whole batches: the same parameters and running statistics."""
    rank, n = dist.get_rank(), dist.get_world_size()
    model = dist.DataParallel(oar.nn.SyncBatchNorm.convert_sync_batchnorm(
        cnn(1, oar.nn.BatchNorm2D)))
    ref = cnn(1, oar.nn.BatchNorm2D)
    opt = oar.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    ref_opt = oar.optimizer.SGD(learning_rate=0.1, parameters=ref.parameters())
    rng = np.random.RandomState(0)
    share = 12 // n
    for _ in range(3):
        x = (rng.randn(12, 2, 5, 5) * 3 + 1).astype("float32")
        y = rng.randn(12, 3).astype("float32")
        xs, ys = x[rank * share:(rank + 1) * share], y[rank * share:(rank + 1) * share]
        ((model(oar.to_tensor(xs)) - oar.to_tensor(ys)) ** 2).mean().backward()
        opt.step()
        opt.clear_grad()
        ((ref(oar.to_tensor(x)) - oar.to_tensor(y)) ** 2).mean().backward()
        ref_opt.step()
        ref_opt.clear_grad()
    state = lambda m: [v.numpy().tolist() for v in m.state_dict().values()]  # noqa: E731
    try:
        oar.nn.SyncBatchNorm(4)(oar.randn([2, 3, 5, 5]))
        error = None
    except ValueError as e:
        error = str(e)
    model.eval()
    ref.eval()
    x = rng.randn(4, 2, 5, 5).astype("float32")
    return {"state": state(model._layers), "ref": state(ref),
            "eval": model(oar.to_tensor(x)).numpy().tolist(),
            "ref_eval": ref(oar.to_tensor(x)).numpy().tolist(), "error": error}


def no_sync():
    rank = dist.get_rank()
    model = dist.DataParallel(mlp(seed=1), comm_buffer_size=0.002, last_comm_buffer_size=0.001)
    local = mlp(seed=1)  # the same start, no communication
    (x1, y1), (x2, y2) = batches(2, 8)
    x1, y1, x2, y2 = x1 + rank, y1 - rank, x2 * (rank + 1), y2
    with model.no_sync():
        ((model(oar.to_tensor(x1)) - oar.to_tensor(y1)) ** 2).mean().backward()
    after_no_sync = [p.grad.numpy().tolist() for p in model.parameters()]
    ((model(oar.to_tensor(x2)) - oar.to_tensor(y2)) ** 2).mean().backward()
    synced = [p.grad.numpy().tolist() for p in model.parameters()]
    ((local(oar.to_tensor(x1)) - oar.to_tensor(y1)) ** 2).mean().backward()
    local_first = [p.grad.numpy().tolist() for p in local.parameters()]
    ((local(oar.to_tensor(x2)) - oar.to_tensor(y2)) ** 2).mean().backward()
    local_total = [p.grad.numpy().tolist() for p in local.parameters()]
    return {"after_no_sync": after_no_sync, "synced": synced, "local_first": local_first,
            "local_total": local_total}


def overlap():
    oar.seed(3)
    layers = []
    for _ in range(6):
        layers += [oar.nn.Linear(512, 512), oar.nn.ReLU()]
    model = dist.DataParallel(oar.nn.Sequential(*layers), comm_buffer_size=1.1,
                              last_comm_buffer_size=1.1)
    x = oar.randn([128, 512])
    result = []
    for _ in range(5):
        model(x).sum().backward()
        result.append(model._last_backward_times())
    return {"times": result, "buckets": model._bucket_params()}


def killed():
    rank = dist.get_rank()
    victim = int(os.environ["VICTIM"])
    x = oar.ones([1000])
    dist.all_reduce(x)
    if rank == victim:
        os.kill(os.getpid(), signal.SIGKILL)
    t0 = time.monotonic()
    try:
        for _ in range(1000):
            dist.all_reduce(x)
            time.sleep(0.01)
        return {"error": None}
    except RuntimeError as e:
        return {"error": str(e), "seconds": time.monotonic() - t0}


def stuck():
    rank = dist.get_rank()
    t0 = time.monotonic()
    if rank == 1:
        time.sleep(float(os.environ["OAR_DIST_TIMEOUT"]) + 3)  # never calls all_reduce
        return {"error": None}
    try:
        dist.all_reduce(oar.ones([4]))
        return {"error": None}
    except RuntimeError as e:
        return {"error": str(e), "seconds": time.monotonic() - t0}


def fail():
    if dist.get_rank() == 1:
        sys.exit(3)
    time.sleep(60)
    return {}


def env():
    x = oar.to_tensor([float(dist.get_rank())])
    dist.all_reduce(x)
    return {"rank": dist.get_rank(), "n": dist.get_world_size(), "sum": values(x)}


def main():
    scenario, out_dir = sys.argv[1], sys.argv[2]
    dist.init_parallel_env()
    result = globals()[scenario]()
    path = os.path.join(out_dir, f"{scenario}.{dist.get_rank()}.json")
    with open(path + ".tmp", "w") as f:
        json.dump(result, f)
    os.replace(path + ".tmp", path)
    if scenario == "killed":
        linger_until_survivors_reported(out_dir, scenario)


def linger_until_survivors_reported(out_dir, scenario):
    # A survivor that exits at once closes its connections, and the store with
    # it on rank 0, so a slower survivor would correctly report *that* rank as
    # lost. The test checks that every survivor names the killed rank, so the
    # survivors stay alive until all of them have written what they saw.
    victim, n = int(os.environ["VICTIM"]), dist.get_world_size()
    want = [os.path.join(out_dir, f"{scenario}.{r}.json") for r in range(n) if r != victim]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not all(os.path.exists(p) for p in want):
        time.sleep(0.05)


if __name__ == "__main__":
    main()
