"""The launcher (Paddle's python -m paddle.distributed.launch, CPU collective mode).

    python -m oar.distributed.launch --nproc_per_node 2 train.py --lr 0.1
    # two hosts: on each, with its own --node_rank
    python -m oar.distributed.launch --nnodes 2 --node_rank 0 --master 10.0.0.1:6170 \\
        --nproc_per_node 1 train.py

It starts ``nproc_per_node`` processes of ``training_script`` with the environment
init_parallel_env() reads (Paddle's PADDLE_* names and the RANK/WORLD_SIZE/
MASTER_ADDR/MASTER_PORT ones), forwards SIGINT/SIGTERM to them, and when one exits
with an error stops the others and exits with its code, naming the rank.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time

__all__ = []

_PREFIX = "oar.distributed.launch"


def _parse(argv):
    p = argparse.ArgumentParser(
        prog="python -m oar.distributed.launch",
        description="Start data-parallel training processes.",
    )
    p.add_argument("--nproc_per_node", type=int, default=1, help="processes on this node")
    p.add_argument("--nnodes", type=int, default=1, help="number of nodes")
    p.add_argument(
        "--node_rank",
        "--rank",
        dest="node_rank",
        type=int,
        default=0,
        help="this node's index in [0, nnodes)",
    )
    p.add_argument(
        "--master",
        default=None,
        help="ADDR:PORT of node 0 (rank 0 hosts the rendezvous store there); "
        "default 127.0.0.1 and a free port on one node",
    )
    p.add_argument("--log_dir", default=None, help="write each rank's output to workerlog.N")
    p.add_argument("training_script")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    a = p.parse_args(argv)
    if a.nproc_per_node < 1 or a.nnodes < 1:
        p.error("--nproc_per_node and --nnodes must be at least 1")
    if not 0 <= a.node_rank < a.nnodes:
        p.error(f"--node_rank {a.node_rank} is not in [0, --nnodes {a.nnodes})")
    if a.nnodes > 1 and not a.master:
        p.error("--master ADDR:PORT is required with --nnodes > 1")
    return a


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _local_ip(master_host):
    # The address this host reaches the master through (no packet is sent).
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((master_host, 1))
            return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"


def _envs(a):
    if a.master:
        host, _, port = a.master.rpartition(":")
        if not host or not port.isdigit():
            raise SystemExit(f"{_PREFIX}: --master must be ADDR:PORT, got {a.master!r}")
        port = int(port)
    else:
        host, port = "127.0.0.1", _free_port()
    world = a.nnodes * a.nproc_per_node
    ip = _local_ip(host) if a.nnodes > 1 else "127.0.0.1"
    # Per-rank endpoints as Paddle's launcher lists them; with one node they are all
    # known here (other nodes' addresses are not, so multi-node jobs list this node's).
    base = port + 1
    local_eps = [f"{ip}:{base + i}" for i in range(a.nproc_per_node)]
    out = []
    for local in range(a.nproc_per_node):
        rank = a.node_rank * a.nproc_per_node + local
        env = dict(os.environ)
        env.update(
            {
                "PADDLE_TRAINER_ID": str(rank),
                "PADDLE_TRAINERS_NUM": str(world),
                "PADDLE_GLOBAL_RANK": str(rank),
                "PADDLE_GLOBAL_SIZE": str(world),
                "PADDLE_LOCAL_RANK": str(local),
                "PADDLE_RANK_IN_NODE": str(local),
                "PADDLE_LOCAL_SIZE": str(a.nproc_per_node),
                "PADDLE_NNODES": str(a.nnodes),
                "PADDLE_MASTER": f"{host}:{port}",
                "PADDLE_CURRENT_ENDPOINT": local_eps[local],
                "PADDLE_TRAINER_ENDPOINTS": ",".join(local_eps),
                "RANK": str(rank),
                "WORLD_SIZE": str(world),
                "LOCAL_RANK": str(local),
                "LOCAL_WORLD_SIZE": str(a.nproc_per_node),
                "MASTER_ADDR": host,
                "MASTER_PORT": str(port),
            }
        )
        out.append((rank, env))
    return out


def _describe(code):
    return f"signal {-code} ({signal.Signals(-code).name})" if code < 0 else f"code {code}"


def _stop(procs, grace=5.0):
    for _, p, _ in procs:
        if p.poll() is None:
            p.terminate()
    deadline = time.monotonic() + grace
    for _, p, _ in procs:
        if p.poll() is None:
            try:
                p.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def launch(argv: list[str] | None = None) -> int:
    a = _parse(sys.argv[1:] if argv is None else argv)
    procs = []
    if a.log_dir:
        os.makedirs(a.log_dir, exist_ok=True)
    for rank, env in _envs(a):
        out = open(os.path.join(a.log_dir, f"workerlog.{rank}"), "w") if a.log_dir else None
        cmd = [sys.executable, "-u", a.training_script, *a.training_script_args]
        procs.append((rank, subprocess.Popen(cmd, env=env, stdout=out, stderr=out), out))

    def forward(signum, _frame):
        for _, p, _ in procs:
            if p.poll() is None:
                p.send_signal(signum)

    old = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    code = 0
    try:
        while True:
            running = 0
            for rank, p, _ in procs:
                rc = p.poll()
                if rc is None:
                    running += 1
                elif rc != 0:
                    others = [r for r, q, _ in procs if q.poll() is None]
                    print(
                        f"{_PREFIX}: rank {rank} (pid {p.pid}) exited with {_describe(rc)}; "
                        f"stopping rank(s) {others}",
                        file=sys.stderr,
                        flush=True,
                    )
                    _stop(procs)
                    code = rc if rc > 0 else 128 - rc
                    return code
            if running == 0:
                return 0
            time.sleep(0.05)
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        for _, _, out in procs:
            if out:
                out.close()
        if code:
            sys.exit(code)
