"""Paddle's paddle.distributed.spawn (start the ranks of a function from Python) and
its gloo_init_parallel_env / gloo_barrier / gloo_release (a CPU group of explicit ranks
for barriers)."""
import multiprocessing
import multiprocessing.connection
import os
import socket
import traceback

from . import collective

__all__ = ["spawn", "MultiprocessContext", "gloo_init_parallel_env", "gloo_barrier",
           "gloo_release"]


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rank_env(rank, nprocs, master):
    """The environment the launcher gives a rank (init_parallel_env reads it)."""
    return {"PADDLE_TRAINER_ID": str(rank), "PADDLE_TRAINERS_NUM": str(nprocs),
            "PADDLE_MASTER": master, "PADDLE_CURRENT_ENDPOINT": master if rank == 0 else "",
            "PADDLE_TRAINER_ENDPOINTS": master, "RANK": str(rank), "WORLD_SIZE": str(nprocs)}


def _run_rank(func, args, rank, nprocs, master, errors):
    os.environ.update(_rank_env(rank, nprocs, master))
    try:
        func(*args)
    except BaseException:  # noqa: BLE001 - reported to the parent with its rank
        errors.put((rank, traceback.format_exc()))
        raise SystemExit(1)


class MultiprocessContext:
    """The processes spawn() started: ``processes`` in rank order; join() waits."""

    def __init__(self, processes, errors):
        self.processes = processes
        self._errors = errors

    def join(self, timeout=None):
        """Waits up to ``timeout`` seconds (forever if None) for the ranks to end. True
        when all ended cleanly; raises naming the first rank that failed (the others are
        stopped); False if some still run at the timeout."""
        sentinels = {p.sentinel: p for p in self.processes if p.exitcode is None}
        if sentinels:
            multiprocessing.connection.wait(list(sentinels), timeout)
        failed = [(r, p) for r, p in enumerate(self.processes)
                  if p.exitcode is not None and p.exitcode != 0]
        if failed:
            for p in self.processes:
                if p.exitcode is None:
                    p.terminate()
            for p in self.processes:
                p.join()
            rank, proc = failed[0]
            trace = ""
            while not self._errors.empty():
                r, t = self._errors.get()
                if r == rank or not trace:
                    trace = t
            raise RuntimeError(f"spawn(): rank {rank} exited with code {proc.exitcode}"
                               + (f"; its error:\n{trace}" if trace else ""))
        if all(p.exitcode == 0 for p in self.processes):
            for p in self.processes:
                p.join()
            return True
        return False


def spawn(func, args=(), nprocs=-1, join=True, daemon=False, **options):
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
        raise TypeError(f"spawn(): unexpected options {sorted(options)}; oar's spawn takes "
                        f"start_method and ips")
    if ips not in ("127.0.0.1", "localhost"):
        raise ValueError(f"spawn(): starts processes on this host only (ips='127.0.0.1'), got "
                         f"{ips!r}; for several hosts use python -m oar.distributed.launch")
    if not isinstance(nprocs, int) or isinstance(nprocs, bool) or nprocs == 0 or nprocs < -1:
        raise ValueError(f"spawn(): nprocs must be a positive int or -1, got {nprocs!r}")
    if nprocs == -1:
        nprocs = len(os.sched_getaffinity(0))
    ctx = multiprocessing.get_context(start_method)
    master = f"127.0.0.1:{_free_port()}"
    errors = ctx.SimpleQueue()
    procs = []
    for rank in range(nprocs):
        p = ctx.Process(target=_run_rank, args=(func, tuple(args), rank, nprocs, master, errors),
                        daemon=daemon)
        p.start()
        procs.append(p)
    context = MultiprocessContext(procs, errors)
    if join:
        while not context.join():
            pass
    return context


class _Gloo:
    group = None


def gloo_init_parallel_env(rank_id, rank_num, server_endpoint):
    """Joins a CPU group of ``rank_num`` ranks as ``rank_id``, meeting at
    ``server_endpoint`` ('ip:port'; rank 0 serves it), for gloo_barrier(). Independent
    of init_parallel_env()'s group."""
    if not isinstance(rank_num, int) or rank_num < 2:
        raise ValueError(f"gloo_init_parallel_env(): rank_num must be an int >= 2, got "
                         f"{rank_num!r}")
    if not isinstance(rank_id, int) or not 0 <= rank_id < rank_num:
        raise ValueError(f"gloo_init_parallel_env(): rank_id must be in [0, {rank_num}), got "
                         f"{rank_id!r}")
    if not isinstance(server_endpoint, str) or ":" not in server_endpoint:
        raise ValueError(f"gloo_init_parallel_env(): server_endpoint must be 'ip:port', got "
                         f"{server_endpoint!r}")
    env = {"PADDLE_TRAINER_ID": str(rank_id), "PADDLE_TRAINERS_NUM": str(rank_num),
           "PADDLE_MASTER": server_endpoint}
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


def gloo_barrier():
    """Blocks until every rank of gloo_init_parallel_env()'s group reached it."""
    if _Gloo.group is None:
        raise RuntimeError("gloo_barrier(): call gloo_init_parallel_env() first")
    collective.barrier(_Gloo.group)


def gloo_release():
    """Leaves gloo_init_parallel_env()'s group (its connections close)."""
    _Gloo.group = None
