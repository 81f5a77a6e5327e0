"""Paddle's paddle.distributed.spawn (start the ranks of a function from Python) and
its gloo_init_parallel_env / gloo_barrier / gloo_release (a CPU group of explicit ranks
for barriers)."""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import socket
import traceback
from typing import Any, Callable, Iterable

from . import collective

__all__ = ["spawn", "MultiprocessContext", "gloo_init_parallel_env", "gloo_barrier", "gloo_release"]


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rank_env(rank, nprocs, master):
    """The environment the launcher gives a rank (init_parallel_env reads it)."""
    return {
        "PADDLE_TRAINER_ID": str(rank),
        "PADDLE_TRAINERS_NUM": str(nprocs),
        "PADDLE_MASTER": master,
        "PADDLE_CURRENT_ENDPOINT": master if rank == 0 else "",
        "PADDLE_TRAINER_ENDPOINTS": master,
        "RANK": str(rank),
        "WORLD_SIZE": str(nprocs),
    }


def _run_rank(func, args, rank, nprocs, master, errors):
    os.environ.update(_rank_env(rank, nprocs, master))
    try:
        func(*args)
    except BaseException:  # noqa: BLE001 - reported to the parent with its rank
        errors.put((rank, traceback.format_exc()))
        raise SystemExit(1)


class MultiprocessContext:
    """The processes spawn() started: ``processes`` in rank order; join() waits."""

    _EXIT_GRACE = 30.0  # seconds a rank that reported its error gets to exit

    def __init__(self, processes, errors):
        self.processes = processes
        self._errors = errors
        self._reports = []  # (rank, traceback) in the order the ranks reported them

    def join(self, timeout=None):
        """Waits up to ``timeout`` seconds (forever if None) for the ranks to end. True
        when all ended cleanly; raises naming the first rank that failed (the others are
        stopped); False if some still run at the timeout."""
        running = {p.sentinel: p for p in self.processes if p.exitcode is None}
        if running:
            # A failing rank reports its error before it exits, so the error queue wakes
            # this wait as well. A closed sentinel means the process is exiting: reaping
            # it blocks until it has, where polling exitcode in a loop spun a core while
            # a loaded machine finished the exit (test_distributed saw 30 s).
            ready = multiprocessing.connection.wait(list(running) + [self._errors._reader], timeout)
            if self._errors._reader not in ready:
                for sentinel in ready:
                    running[sentinel].join()
        self._reports.extend(self._drain())
        failed = [r for r, p in enumerate(self.processes) if p.exitcode not in (None, 0)]
        if self._reports or failed:
            rank = self._reports[0][0] if self._reports else failed[0]
            self._stop(keep={r for r, _ in self._reports})
            self._reports.extend(self._drain())
            trace = next((t for r, t in self._reports if r == rank), "")
            raise RuntimeError(
                f"spawn(): rank {rank} exited with code "
                f"{self.processes[rank].exitcode}" + (f"; its error:\n{trace}" if trace else "")
            )
        if all(p.exitcode == 0 for p in self.processes):
            for p in self.processes:
                p.join()
            return True
        return False

    def _drain(self):
        out = []
        while not self._errors.empty():
            out.append(self._errors.get())
        return out

    def _stop(self, keep):
        """Ends every rank: those in ``keep`` (which reported an error and are exiting)
        are given time to finish, the others are terminated."""
        for r, p in enumerate(self.processes):
            if p.exitcode is None and r not in keep:
                p.terminate()
        for r, p in enumerate(self.processes):
            p.join(self._EXIT_GRACE if r in keep else None)
            if p.exitcode is None:
                p.terminate()
                p.join()


def spawn(
    func: Callable[..., Any],
    args: Iterable[Any] = (),
    nprocs: int = -1,
    join: bool = True,
    daemon: bool = False,
    **options: str,
) -> MultiprocessContext:
    """Runs ``func(*args)`` in ``nprocs`` new processes (one per CPU if -1), each a rank
    whose environment init_parallel_env() reads, as the launcher would give it. Returns
    the MultiprocessContext; with ``join`` it has waited for them, and a rank's error is
    raised here with its traceback. ``options``: ``start_method`` ('spawn', the default,
    'fork' or 'forkserver') and ``ips`` (only this host, '127.0.0.1')."""
    if not callable(func):
        raise TypeError(f"spawn(): func must be callable, got {type(func).__name__}")
    start_method = options.pop("start_method", "spawn")
    ips = options.pop("ips", "127.0.0.1")
    if options:
        raise TypeError(
            f"spawn(): unexpected options {sorted(options)}; oar's spawn takes start_method and ips"
        )
    if ips not in ("127.0.0.1", "localhost"):
        raise ValueError(
            f"spawn(): starts processes on this host only (ips='127.0.0.1'), got "
            f"{ips!r}; for several hosts use python -m oar.distributed.launch"
        )
    if not isinstance(nprocs, int) or isinstance(nprocs, bool) or nprocs == 0 or nprocs < -1:
        raise ValueError(f"spawn(): nprocs must be a positive int or -1, got {nprocs!r}")
    if nprocs == -1:
        nprocs = len(os.sched_getaffinity(0))
    ctx = multiprocessing.get_context(start_method)
    master = f"127.0.0.1:{_free_port()}"
    errors = ctx.SimpleQueue()
    procs = []
    for rank in range(nprocs):
        p = ctx.Process(
            target=_run_rank, args=(func, tuple(args), rank, nprocs, master, errors), daemon=daemon
        )
        p.start()
        procs.append(p)
    context = MultiprocessContext(procs, errors)
    if join:
        while not context.join():
            pass
    return context


class _Gloo:
    group = None


def gloo_init_parallel_env(rank_id: int, rank_num: int, server_endpoint: str) -> None:
    """Joins a CPU group of ``rank_num`` ranks as ``rank_id``, meeting at
    ``server_endpoint`` ('ip:port'; rank 0 serves it), for gloo_barrier(). Independent
    of init_parallel_env()'s group."""
    if not isinstance(rank_num, int) or rank_num < 2:
        raise ValueError(
            f"gloo_init_parallel_env(): rank_num must be an int >= 2, got {rank_num!r}"
        )
    if not isinstance(rank_id, int) or not 0 <= rank_id < rank_num:
        raise ValueError(
            f"gloo_init_parallel_env(): rank_id must be in [0, {rank_num}), got {rank_id!r}"
        )
    if not isinstance(server_endpoint, str) or ":" not in server_endpoint:
        raise ValueError(
            f"gloo_init_parallel_env(): server_endpoint must be 'ip:port', got {server_endpoint!r}"
        )
    env = {
        "PADDLE_TRAINER_ID": str(rank_id),
        "PADDLE_TRAINERS_NUM": str(rank_num),
        "PADDLE_MASTER": server_endpoint,
    }
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        _Gloo.group = collective._group_from_handle(collective._C._dist_init())
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def gloo_barrier() -> None:
    """Blocks until every rank of gloo_init_parallel_env()'s group reached it."""
    if _Gloo.group is None:
        raise RuntimeError("gloo_barrier(): call gloo_init_parallel_env() first")
    collective.barrier(_Gloo.group)


def gloo_release() -> None:
    """Leaves gloo_init_parallel_env()'s group (its connections close)."""
    _Gloo.group = None
