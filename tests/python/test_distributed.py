"""oar.distributed on Gloo: collectives against closed forms, DataParallel against
one process, no_sync, failures that name the lost rank, the launcher, and the
overlap of the first bucket's all-reduce with backward. Every test starts real
processes on the loopback (tests/python/dist_worker.py is their side)."""
import json
import math
import os
import socket
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import oar
import oar.distributed as dist

pytestmark = pytest.mark.skipif(not dist.is_available(), reason="oar built without Gloo")

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dist_worker.py")
TIMEOUT = 4.0  # OAR_DIST_TIMEOUT for the failure tests


def _env(extra=None):
    env = dict(os.environ)
    pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(oar.__file__)))
    env["PYTHONPATH"] = pkg_root + os.pathsep + env.get("PYTHONPATH", "")
    env["OMP_NUM_THREADS"] = "1"
    env.setdefault("OAR_DIST_TIMEOUT", "60")
    env.update(extra or {})
    return env


def launch(tmp_path, scenario, n, extra_env=None, check=True):
    cmd = [sys.executable, "-m", "oar.distributed.launch", "--nproc_per_node", str(n),
           WORKER, scenario, str(tmp_path)]
    p = subprocess.run(cmd, env=_env(extra_env), capture_output=True, text=True, timeout=180)
    if check:
        assert p.returncode == 0, p.stdout + p.stderr
    return p


def results(tmp_path, scenario, n):
    return [json.load(open(tmp_path / f"{scenario}.{r}.json")) for r in range(n)]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn(tmp_path, scenario, n, env_of_rank):
    """Starts the ranks without the launcher (which would stop the survivors)."""
    return [subprocess.Popen([sys.executable, WORKER, scenario, str(tmp_path)],
                             env=_env(env_of_rank(r)), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for r in range(n)]


@pytest.mark.parametrize("n", [2, 3])
def test_every_collective_matches_its_closed_form_for_every_dtype(tmp_path, n):
    launch(tmp_path, "collectives", n)
    for res in results(tmp_path, "collectives", n):
        rank = res["rank"]
        assert res["n"] == n
        for dt in ["float32", "float64", "int32", "int64", "float16", "bfloat16"]:
            r = res[dt]
            vals = [2 * (k + 1) for k in range(n)]
            want_avg = sum(vals) / n
            assert r["sum"] == [sum(vals)] * 3, dt
            assert r["max"] == [max(vals)] * 3, dt
            assert r["min"] == [min(vals)] * 3, dt
            assert r["prod"] == [math.prod(vals)] * 3, dt
            assert r["avg"] == [want_avg] * 3, dt  # (n + 1): exact in every dtype
            assert r["async_sum"] == [sum(k + 5 for k in range(n))] * 3, dt
            assert r["broadcast"] == [n - 1] * 3, dt
            assert r["all_gather"] == [[3 * k] * 2 for k in range(n)], dt
            assert r["reduce_scatter"] == [sum(k * 10 + rank for k in range(n))] * 2, dt
            assert r["ring_recv"] == [(rank - 1) % n + 100] * 3, dt
        g = res["group"]
        if rank < 2:
            assert g["rank"] == rank and g["nranks"] == 2 and g["sum"] == [3.0] * 3
        else:  # not a member: the call does nothing
            assert g["rank"] == -1 and g["sum"] == [rank + 1.0] * 3


@pytest.mark.parametrize("n", [2, 3])
def test_reduce_gather_scatter_alltoall_and_object_collectives(tmp_path, n):
    launch(tmp_path, "more_collectives", n)
    for res in results(tmp_path, "more_collectives", n):
        rank = res["rank"]
        assert res["backend"] == "GLOO"
        for dt in ["float32", "float64", "int32", "int64", "float16", "bfloat16", "uint8", "int8",
                   "bool", "complex64"]:
            r = res[dt]
            if dt not in ("uint8", "int8", "bool", "complex64"):
                vals = [2 * (k + 1) for k in range(n)]
                root = rank == n - 1  # the others keep their own tensor
                assert r["reduce_sum"] == [sum(vals) if root else vals[rank]] * 3, dt
                assert r["reduce_max"] == [max(vals) if root else vals[rank]] * 3, dt
                assert r["reduce_avg"] == [sum(vals) / n if root else vals[rank]] * 3, dt
            if rank == 0:
                if dt == "bool":
                    assert r["gather"] == [[1.0] * 2 for _ in range(n)]
                elif dt == "complex64":
                    assert r["gather"] == [[k + 1.0] * 2 for k in range(n)]
                    assert r["gather_imag"] == [[float(k)] * 2 for k in range(n)]
                else:
                    assert r["gather"] == [[k + 1.0] * 2 for k in range(n)], dt
            else:
                assert r["gather"] is None
            want = float((rank + 1) % 2) if dt == "bool" else 10.0 + rank
            assert r["scatter"] == [want] * 2, dt
            sent = [float(k % 2 == 0) if dt == "bool" else k * 10.0 + rank for k in range(n)]
            assert r["alltoall"] == [[sent[k]] * 2 for k in range(n)], dt
            assert r["alltoall_uneven"] == [[sent[k]] * (rank + 1) for k in range(n)], dt
            if "alltoall_single" in r:
                # rank k's rows [sum_{j<rank}(j+1), +rank+1) come to this rank, in k order
                start = sum(j + 1 for j in range(rank))
                want = []
                for k in range(n):
                    want += [20.0 * k + 2 * row + c for row in range(start, start + rank + 1)
                             for c in range(2)]
                assert r["alltoall_single"] == want, dt
        assert res["all_gather_object"] == [{"rank": k, "payload": "x" * (k * 50)}
                                            for k in range(n)]
        assert res["broadcast_object_list"] == [{"a": 1}, [1, 2, 3]]
        assert res["scatter_object_list"] == [["r", rank, "y" * rank]]
        if rank == 1:
            assert res["recv_object_list"] == [{"to": 1}, "hello", 3.5]
        assert "reduce(): tensor of dtype uint8" in res["reduce_uint8"]
        assert "must agree between every pair of ranks" in res["alltoall_mismatch"], res
        sized, calls, dtypes = res["disagree"]
        assert sized.startswith("all_reduce(): the ranks of the group disagree: rank 0 called "
                                "all_reduce with 3 elements of float32"), sized
        assert "rank 1 called all_reduce with 4 elements" in sized
        assert "rank 0 called broadcast" in calls and "rank 1 called all_reduce" in calls, calls
        assert "of int64" in dtypes and "of float32" in dtypes, dtypes
        assert res["after_disagree"] == [float(n)] * 3
        if rank == 1:
            longer, retyped = res["p2p_mismatch"]
            assert ("recv(): rank 0 sent 5 elements of float32 (20 bytes), but the tensor here "
                    "holds 3 elements of float32") in longer, longer
            assert "sent 2 elements of float64 (16 bytes)" in retyped, retyped
        if rank in (0, 1):
            assert res["p2p_after"] == [float(2 - rank)] * 2


def test_spawn_runs_the_ranks_and_names_a_failing_one(tmp_path):
    code = (f"import sys; sys.path.insert(0, {os.path.dirname(WORKER)!r}); "
            f"import oar.distributed as dist, dist_worker; "
            f"dist.spawn(dist_worker.spawned, args=({str(tmp_path)!r},), nprocs=2)")
    p = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True,
                       timeout=180)
    assert p.returncode == 0, p.stdout + p.stderr
    for r in range(2):
        res = json.load(open(tmp_path / f"spawned.{r}.json"))
        assert res == {"rank": r, "n": 2, "sum": [3.0]}
    code = code.replace("dist_worker.spawned,", "dist_worker.spawned_fails,")
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True,
                       timeout=180)
    assert p.returncode != 0
    assert "spawn(): rank 1 exited with code 1" in p.stderr, p.stderr
    assert "rank one gives up" in p.stderr
    assert time.monotonic() - t0 < 25  # rank 0 (sleeping 30 s) was stopped, not waited for


def test_spawn_without_join_polls_with_a_timeout():
    sys.path.insert(0, os.path.dirname(WORKER))
    import dist_worker
    # fork: the ranks start at once; rank 1 ends first, rank 0 a little later
    ctx = dist.spawn(dist_worker.sleeps_then_fails, args=([1.5, 0.2],), nprocs=2, join=False,
                     start_method="fork")
    assert ctx.join(timeout=0.05) is False  # both still run
    t0 = time.monotonic()
    while not ctx.join(timeout=0.5):
        assert time.monotonic() - t0 < 60
    assert [p.exitcode for p in ctx.processes] == [0, 0]
    # a rank that reports an error ends the wait at once: the sleeping rank is stopped
    ctx = dist.spawn(dist_worker.sleeps_then_fails, args=([60, -0.2],), nprocs=2, join=False,
                     start_method="fork")
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=r"rank 1 exited with code 1; its error:(.|\n)*"
                                           r"failed after sleeping"):
        while not ctx.join(timeout=5):
            pass
    assert time.monotonic() - t0 < 30
    assert ctx.processes[0].exitcode == -signal.SIGTERM


def test_collective_argument_errors():
    with pytest.raises(TypeError, match="spawn\\(\\): unexpected options \\['gpus'\\]"):
        dist.spawn(print, nprocs=2, gpus="0,1")
    with pytest.raises(ValueError, match="spawn\\(\\): nprocs"):
        dist.spawn(print, nprocs=0)
    with pytest.raises(ValueError, match="gloo_init_parallel_env\\(\\): rank_num"):
        dist.gloo_init_parallel_env(0, 1, "127.0.0.1:1")
    with pytest.raises(RuntimeError, match="gloo_barrier\\(\\): call gloo_init_parallel_env"):
        dist.gloo_barrier()
    with pytest.raises(ValueError, match="send_object_list\\(\\): object_list"):
        dist.send_object_list([], dst=1)
    with pytest.raises(TypeError, match="reduce\\(\\): dst must be an int"):
        dist.reduce(oar.ones([2]), dst="0")
    assert dist.ParallelMode.DATA_PARALLEL == 0 and dist.ParallelMode.SEGMENT_PARALLEL == 4


def test_data_parallel_on_half_batches_equals_one_process_on_full_batches(tmp_path):
    launch(tmp_path, "data_parallel", 2)
    r0, r1 = results(tmp_path, "data_parallel", 2)
    assert len(r0["buckets"]) > 2  # several buckets were in flight
    for a, b, ref in zip(r0["params"], r1["params"], r0["ref"]):
        np.testing.assert_array_equal(a, b)  # replicas stay identical
        np.testing.assert_allclose(a, ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n", [2, 3])
def test_sync_batch_norm_on_shares_of_the_batch_equals_batch_norm_on_the_whole(tmp_path, n):
    launch(tmp_path, "sync_batch_norm", n)
    for r in results(tmp_path, "sync_batch_norm", n):
        assert len(r["state"]) == len(r["ref"]) == 8  # conv, BN (incl. running), linear
        for got, want in zip(r["state"], r["ref"]):
            np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)
        np.testing.assert_allclose(r["eval"], r["ref_eval"], rtol=2e-5, atol=2e-6)
        assert r["error"] == ("SyncBatchNorm: argument 'x' has 3 channels on axis 1, "
                              "expected num_features = 4")


def test_no_sync_accumulates_locally_and_the_next_backward_reduces_the_sum(tmp_path):
    launch(tmp_path, "no_sync", 2)
    r = results(tmp_path, "no_sync", 2)
    for res in r:  # inside no_sync: this rank's own gradient
        for a, b in zip(res["after_no_sync"], res["local_first"]):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    assert not np.allclose(r[0]["local_first"][0], r[1]["local_first"][0])
    for k in range(len(r[0]["synced"])):
        want = (np.array(r[0]["local_total"][k]) + np.array(r[1]["local_total"][k])) / 2
        for res in r:
            np.testing.assert_allclose(res["synced"][k], want, rtol=1e-5, atol=1e-6)


def test_first_bucket_all_reduce_starts_before_backward_ends(tmp_path):
    launch(tmp_path, "overlap", 2)
    for res in results(tmp_path, "overlap", 2):
        assert len(res["buckets"]) >= 3
        steps = res["times"][1:]  # the first step warms up
        for t in steps:
            # issued during backward, while later gradients were still to come
            assert 0 < t["bucket_launch_ns"][0] < t["last_hook_ns"] < t["final_ns"]
            assert t["bucket_launch_ns"][0] <= t["bucket_start_ns"][0]
        # and the worker ran it while backward went on (scheduling on a loaded
        # 2-core machine may delay the worker in some steps, not in all)
        assert any(t["bucket_start_ns"][0] < t["last_hook_ns"] for t in steps), steps


@pytest.mark.parametrize("n,victim", [(3, 2), (2, 0)])
def test_a_killed_rank_is_named_by_the_others_within_the_timeout(tmp_path, n, victim):
    port = free_port()
    procs = spawn(tmp_path, "killed", n, lambda r: {
        "RANK": str(r), "WORLD_SIZE": str(n), "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": str(port), "VICTIM": str(victim), "OAR_DIST_TIMEOUT": str(TIMEOUT)})
    t0 = time.monotonic()
    for p in procs:
        p.wait(timeout=60)
    assert time.monotonic() - t0 < TIMEOUT + 20
    assert procs[victim].returncode == -9
    for r in range(n):
        if r == victim:
            continue
        res = json.load(open(tmp_path / f"killed.{r}.json"))
        assert res["error"] is not None
        assert "all_reduce failed on rank" in res["error"]
        assert f"lost rank {victim}" in res["error"], res["error"]
        assert res["seconds"] < TIMEOUT + 5


def test_a_stuck_rank_times_out_with_an_error_naming_the_collective(tmp_path):
    port = free_port()
    procs = spawn(tmp_path, "stuck", 2, lambda r: {
        "PADDLE_TRAINER_ID": str(r), "PADDLE_TRAINERS_NUM": "2",
        "PADDLE_MASTER": f"127.0.0.1:{port}", "OAR_DIST_TIMEOUT": "2"})
    for p in procs:
        p.wait(timeout=60)
    res = json.load(open(tmp_path / "stuck.0.json"))
    assert "all_reduce failed on rank 0" in res["error"]
    assert "timed out after 2 s" in res["error"] and "did not call all_reduce" in res["error"]
    assert 2 <= res["seconds"] < 10


def test_paddle_trainer_endpoints_alone_give_the_rendezvous(tmp_path):
    port = free_port()
    eps = f"127.0.0.1:{port},127.0.0.1:{port + 1}"
    procs = spawn(tmp_path, "env", 2, lambda r: {
        "PADDLE_TRAINER_ID": str(r), "PADDLE_TRAINER_ENDPOINTS": eps,
        "PADDLE_CURRENT_ENDPOINT": eps.split(",")[r]})
    for p in procs:
        assert p.wait(timeout=60) == 0, p.stderr.read()
    for r, res in enumerate(results(tmp_path, "env", 2)):
        assert res == {"rank": r, "n": 2, "sum": [1.0]}


def test_launcher_stops_everyone_and_names_the_failed_rank(tmp_path):
    t0 = time.monotonic()
    p = launch(tmp_path, "fail", 3, check=False)
    assert time.monotonic() - t0 < 30  # the others (sleeping 60 s) were stopped
    assert p.returncode == 3
    assert "rank 1" in p.stderr and "exited with code 3" in p.stderr


def test_errors_name_the_call_and_argument():
    with pytest.raises(ValueError, match="all_reduce\\(\\): op must be a ReduceOp"):
        dist.all_reduce(oar.ones([2]), op=7)
    with pytest.raises(TypeError, match="broadcast\\(\\): src must be an int"):
        dist.broadcast(oar.ones([2]), src="0")
    if not dist.is_initialized():
        with pytest.raises(RuntimeError, match="init_parallel_env"):
            dist.all_reduce(oar.ones([2]))


def test_one_process_data_parallel_is_the_layer():
    net = oar.nn.Linear(3, 2)
    model = oar.DataParallel(net)
    x = oar.ones([4, 3])
    np.testing.assert_array_equal(model(x).numpy(), net(x).numpy())
    assert list(model.state_dict()) == list(net.state_dict())
