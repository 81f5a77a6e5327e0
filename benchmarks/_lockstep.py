"""Two benchmark workers in lockstep (models_lockstep.py, lstm_parts.py --lockstep): both
processes alive at once, taking turns, so that a shared machine's slow phases fall on
both sides of a ratio.

A worker speaks a line protocol: once ready it prints a JSON object (what it runs: a
version, a parameter count); then for each line `N` on its stdin it runs one untimed
pass (the other process has just run and evicted its data from the caches) and N timed
ones and prints their times as one JSON line; for `end` it prints a final JSON object
and exits. Other lines it prints (a framework's messages) are skipped."""

import json
import subprocess
import sys
import tempfile


class Worker:
    """One worker process: `argv` run with this interpreter."""

    def __init__(self, name, argv):
        self.name = name
        self.stderr = tempfile.TemporaryFile(mode="w+")  # a pipe left unread could fill
        self.proc = subprocess.Popen(
            [sys.executable, *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
            cwd=tempfile.gettempdir(),
        )
        self.info = self._reply(dict)

    def _reply(self, kind):
        """The next line of stdout that is JSON of `kind`."""
        for line in self.proc.stdout:
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, kind):
                return value
        self.proc.wait()
        self.stderr.seek(0)
        err = self.stderr.read().strip().splitlines()
        raise RuntimeError(f"{self.name} worker: {err[-1] if err else 'no reply'}")

    def block(self, timed, kind):
        """One block: an untimed pass and `timed` timed ones; the worker's reply."""
        self.proc.stdin.write(f"{timed}\n")
        self.proc.stdin.flush()
        return self._reply(kind)

    def end(self):
        self.proc.stdin.write("end\n")
        self.proc.stdin.flush()
        result = self._reply(dict)
        self.proc.wait()
        return result

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def run_pairs(argvs, blocks, timed, kind):
    """Starts a worker per name of `argvs` ({name: argv}, two of them), runs `blocks`
    pairs of blocks, the two in the order given in even pairs and reversed in odd ones,
    and returns ([{name: reply} per pair], {name: the worker's first and final objects
    merged}). The workers are killed if anything fails."""
    workers = {}
    try:
        for name, argv in argvs.items():
            workers[name] = Worker(name, argv)
        names = list(workers)
        pairs = []
        for b in range(blocks):
            order = names if b % 2 == 0 else names[::-1]
            pairs.append({n: workers[n].block(timed, kind) for n in order})
        return pairs, {n: {**w.info, **w.end()} for n, w in workers.items()}
    finally:
        for w in workers.values():
            w.kill()
