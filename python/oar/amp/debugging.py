"""oar.amp.debugging: numerical debugging for (mixed-precision) training, with Paddle's
names (docs/amp.md, "Debugging").

- The tensor checker: enable_tensor_checker(TensorCheckerConfig(...)) turns on
  FLAGS_check_nan_inf with the config's DebugMode as FLAGS_check_nan_inf_level, so
  every forward op and grad node checks its output: CHECK_NAN_INF_AND_ABORT raises at
  the first NaN/Inf, CHECK_NAN_INF logs it and goes on, CHECK_ALL_FOR_OVERFLOW also
  logs float32 values beyond the float16 range, CHECK_ALL logs every tensor (to
  output_dir/worker_<pid>.log when given, else stderr).
- check_numerics(tensor, op_type, var_name): one tensor's NaN/Inf/zero counts and
  max/min/mean; check_layer_numerics: a decorator checking a layer's forward and
  backward.
- Operator statistics: collect_operator_stats() (or enable_/disable_
  operator_stats_collection) counts the ops run, per op and dtype, and prints
  Paddle's table. It records through the profiler (oar.profiler's C++ core), whose
  op events carry the input dtypes: an op counts under the dtype of its first
  floating input (float16, bfloat16, float32), or "Other".
- compare_accuracy(dump_path, another_dump_path, output_filename): compares two
  CHECK_ALL dumps op by op (e.g. a float32 and a bfloat16 run) and writes a CSV
  report (Paddle writes an Excel workbook; oar writes CSV, readable by any
  spreadsheet, so it needs no xlsxwriter).
"""

from __future__ import annotations

import contextlib
import csv
import functools
import glob
import json
import os
import random
import re
from enum import Enum
from typing import Any, Callable, Iterator, TypeVar

import numpy as np

from ..framework.check import is_int
from .. import _C
from ..tensor.creation import to_tensor
from ..tensor.random import seed

__all__ = [
    "DebugMode",
    "TensorCheckerConfig",
    "check_numerics",
    "enable_operator_stats_collection",
    "disable_operator_stats_collection",
    "collect_operator_stats",
    "enable_tensor_checker",
    "disable_tensor_checker",
    "compare_accuracy",
    "check_layer_numerics",
]

Tensor = _C.Tensor

_F = TypeVar("_F", bound=Callable[..., Any])


class DebugMode(Enum):
    """What the tensor checker does (the values are FLAGS_check_nan_inf_level)."""

    CHECK_NAN_INF_AND_ABORT = 0
    CHECK_NAN_INF = 1
    CHECK_ALL_FOR_OVERFLOW = 2
    CHECK_ALL = 3


def _op_list(who, v):
    if v is None:
        return []
    if not isinstance(v, (list, tuple)) or not all(isinstance(s, str) for s in v):
        raise ValueError(
            f"TensorCheckerConfig: argument '{who}' must be a list or tuple of op names, got {v!r}"
        )
    return list(v)


class TensorCheckerConfig:
    """Settings of the tensor checker.

    Args:
        enable: whether enable_tensor_checker turns checking on.
        debug_mode: a DebugMode (default CHECK_NAN_INF_AND_ABORT).
        output_dir: where the reports go (a directory; default stderr).
        checked_op_list: check only these ops (oar op names, e.g. "log", or grad nodes
            such as "LogGradNode (the backward of log)").
        skipped_op_list: never check these ops.
        debug_step: [start, end): check only during these calls of
            enable_tensor_checker (counted over all configs, as in Paddle).
        stack_height_limit: accepted for Paddle's API; reports carry no Python stack.

    With enable=True the constructor seeds oar, numpy and random with 123 (Paddle's
    default seed here) and prints it, so a run can be repeated for comparison.
    """

    current_step_id = 0

    def __init__(
        self,
        enable,
        debug_mode=DebugMode.CHECK_NAN_INF_AND_ABORT,
        output_dir=None,
        checked_op_list=None,
        skipped_op_list=None,
        debug_step=None,
        stack_height_limit=1,
    ):
        if not isinstance(debug_mode, DebugMode):
            raise ValueError(
                f"TensorCheckerConfig: argument 'debug_mode' must be a DebugMode, "
                f"got {debug_mode!r}"
            )
        if output_dir is not None and not isinstance(output_dir, (str, os.PathLike)):
            raise TypeError(
                f"TensorCheckerConfig: argument 'output_dir' must be a path, got "
                f"{type(output_dir).__name__}"
            )
        if not is_int(stack_height_limit):
            raise ValueError("TensorCheckerConfig: argument 'stack_height_limit' must be an int")
        self.enable = bool(enable)
        self.debug_mode = debug_mode
        self.output_dir = None if output_dir is None else os.fspath(output_dir)
        self.checked_op_list = _op_list("checked_op_list", checked_op_list)
        self.skipped_op_list = _op_list("skipped_op_list", skipped_op_list)
        self.debug_step = debug_step
        self.stack_height_limit = stack_height_limit
        self.start_step = self.end_step = None
        if debug_step is not None:
            if (
                not isinstance(debug_step, (list, tuple))
                or len(debug_step) != 2
                or not debug_step[1] > debug_step[0]
            ):
                raise ValueError(
                    f"TensorCheckerConfig: argument 'debug_step' must be [start, "
                    f"end) with end > start, got {debug_step!r}"
                )
            self.start_step, self.end_step = max(int(debug_step[0]), 0), int(debug_step[1])
        self.seed = 123
        if self.enable:
            seed(self.seed)
            np.random.seed(self.seed)
            random.seed(self.seed)
            print("AMP Debugging TensorCheckerConfig: seed ", self.seed)

    def update_and_check_step_id(self):
        """Whether this call of enable_tensor_checker falls in debug_step (and count it)."""
        if not self.enable:
            return False
        if self.start_step is not None:
            step = TensorCheckerConfig.current_step_id
            if not self.start_step <= step < self.end_step:
                return False
            TensorCheckerConfig.current_step_id += 1
        return True

    def start_check_nan_inf(self):
        if self.enable:
            _C._nan_inf_set_path(self.output_dir or "")
            _C._nan_inf_set_op_lists(self.checked_op_list, self.skipped_op_list)
            _C.set_flags(
                {"FLAGS_check_nan_inf_level": self.debug_mode.value, "FLAGS_check_nan_inf": True}
            )

    def stop_check_nan_inf(self):
        _C.set_flags({"FLAGS_check_nan_inf": False})


def enable_tensor_checker(checker_config: TensorCheckerConfig) -> None:
    """Turn the tensor checker on with these settings (off outside debug_step)."""
    if not isinstance(checker_config, TensorCheckerConfig):
        raise TypeError(
            f"enable_tensor_checker: argument 'checker_config' must be a "
            f"TensorCheckerConfig, got {type(checker_config).__name__}"
        )
    if checker_config.update_and_check_step_id():
        checker_config.start_check_nan_inf()
    else:
        checker_config.stop_check_nan_inf()


def disable_tensor_checker() -> None:
    """Turn the tensor checker off (FLAGS_check_nan_inf = False; level back to 0)."""
    _C.set_flags({"FLAGS_check_nan_inf": False, "FLAGS_check_nan_inf_level": 0})
    _C._nan_inf_set_op_lists([], [])
    _C._nan_inf_set_path("")


def check_numerics(
    tensor: Tensor,
    op_type: str,
    var_name: str,
    debug_mode: DebugMode = DebugMode.CHECK_NAN_INF_AND_ABORT,
) -> tuple[Tensor, Tensor]:
    """Statistics of one floating tensor: (stats, values) with stats an int64 Tensor
    [num_nan, num_inf, num_zero] and values a float32 Tensor [max, min, mean] (max and
    min over the values that are not NaN). With CHECK_NAN_INF_AND_ABORT a NaN or Inf
    raises RuntimeError naming op_type and var_name; with the other modes the report
    line is printed (every tensor with CHECK_ALL)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(
            f"check_numerics: argument 'tensor' must be a Tensor, got {type(tensor).__name__}"
        )
    if not isinstance(debug_mode, DebugMode):
        raise ValueError(
            f"check_numerics: argument 'debug_mode' must be a DebugMode, got {debug_mode!r}"
        )
    if not tensor.is_floating_point():
        raise TypeError(f"check_numerics: the tensor must be floating, got {tensor.dtype.name}")
    _, nan, inf, zero, hi, lo, mean = _C._nan_inf_stats(tensor)
    bad = nan > 0 or inf > 0
    if bad and debug_mode == DebugMode.CHECK_NAN_INF_AND_ABORT:
        raise RuntimeError(
            f"check_numerics: there are NaN or Inf (num_nan={nan}, "
            f"num_inf={inf}, num_zero={zero}) in [op={op_type}, "
            f"tensor={var_name}]"
        )
    if bad or debug_mode == DebugMode.CHECK_ALL:
        print(_C._nan_inf_format(str(op_type), str(var_name), tensor, bad))
    return (
        to_tensor(np.array([nan, inf, zero], dtype=np.int64)),
        to_tensor(np.array([hi, lo, mean], dtype=np.float32)),
    )


def check_layer_numerics(func: _F) -> _F:
    """Decorator for a Layer's forward: the ops of the forward pass and of its backward
    run under CHECK_NAN_INF_AND_ABORT (a NaN/Inf raises, naming the op). The first
    argument must be a Tensor; it is made to require grad, so the backward pass reaches
    the layer's input and the check ends there (or where the pass ends). When the
    check raises in the backward pass, checking stays on until
    disable_tensor_checker()."""

    @functools.wraps(func)
    def wrapper(self, *args, **kwargs):
        if not args:
            raise RuntimeError("check_layer_numerics: the layer got no positional input")
        start = args[0]
        if not isinstance(start, Tensor):
            raise RuntimeError(
                "check_layer_numerics: the first input of the layer must be a Tensor"
            )
        start.stop_gradient = False
        with _checking(True):
            start = start.clone()  # a node whose gradient ends the backward check
            out = func(self, start, *args[1:], **kwargs)
        _check_backward_between(start, out)
        return out

    return wrapper


@contextlib.contextmanager
def _checking(on):
    """FLAGS_check_nan_inf (aborting) on or off inside, restored afterwards."""
    before = _C.get_flags(["FLAGS_check_nan_inf", "FLAGS_check_nan_inf_level"])
    _C.set_flags({"FLAGS_check_nan_inf": bool(on), "FLAGS_check_nan_inf_level": 0})
    try:
        yield
    finally:
        _C.set_flags(before)


def _check_backward_between(start, out):
    """Check the backward pass from out to start: hooks turn the check on when the
    gradient reaches out and off when it reaches start."""
    outs = [
        t
        for t in (out if isinstance(out, (list, tuple)) else [out])
        if isinstance(t, Tensor) and not t.stop_gradient
    ]
    if not outs:
        return
    saved = {}

    def restore():
        if saved:
            _C.set_flags(saved)
            saved.clear()

    def begin(g):
        if not saved:
            saved.update(_C.get_flags(["FLAGS_check_nan_inf", "FLAGS_check_nan_inf_level"]))
            _C.set_flags({"FLAGS_check_nan_inf": True, "FLAGS_check_nan_inf_level": 0})
            # also when the pass never reaches the layer's input
            _C._register_backward_final_hook(restore)
        return g

    def end(g):
        restore()
        return g

    for t in outs:
        t.register_hook(begin)
    start.register_hook(end)


# ---- operator statistics -----------------------------------------------------------------
_collector = {"handle": None}

_DTYPE_COLUMN = {"float16": 0, "bfloat16": 1, "float32": 2}


def enable_operator_stats_collection() -> None:
    """Start counting the ops run on this thread (per op and dtype)."""
    if _collector["handle"] is not None:
        _C._profiler_stop(_collector["handle"])
    handle = _C._profiler_new(True, False, False, False)
    _C._profiler_start(handle)
    _collector["handle"] = handle


def _operator_stats(handle):
    events = json.loads(_C._profiler_trace(handle))
    events = events.get("traceEvents", events) if isinstance(events, dict) else events
    counts = {}
    for e in events:
        if e.get("cat") != "Operator":
            continue
        column = 3
        for dt in e.get("args", {}).get("input_dtypes", []):
            if isinstance(dt, str) and dt in ("float16", "bfloat16", "float32", "float64"):
                column = _DTYPE_COLUMN.get(dt, 3)
                break
        row = counts.setdefault(e["name"], [0, 0, 0, 0])
        row[column] += 1
    return counts


def _print_operator_stats(counts):
    print("<{:-^120}>".format(" op list "))
    print(
        "<{:-^40}".format(" Op Name "),
        "|",
        "{:-^17}".format(" FP16 Calls "),
        "|",
        "{:-^17}".format(" BF16 Calls "),
        "|",
        "{:-^17}".format(" FP32 Calls"),
        "|",
        "{:-^17}>".format(" Other Calls "),
    )
    for op in sorted(counts):
        c = counts[op]
        print(f"  {op:<40}|  {c[0]:<17}|  {c[1]:<17}|  {c[2]:<17}|  {c[3]:<17}")
    print("<{:-^120}>\n".format(f" op count: {len(counts)} "))


def disable_operator_stats_collection() -> None:
    """Stop counting and print the table of ops with their FP16, BF16, FP32 and other
    calls (nothing if collection was not on)."""
    handle = _collector["handle"]
    if handle is None:
        return
    _collector["handle"] = None
    _C._profiler_stop(handle)
    _print_operator_stats(_operator_stats(handle))


@contextlib.contextmanager
def collect_operator_stats() -> Iterator[None]:
    """with collect_operator_stats(): ... counts the ops run in the block and prints the
    table at its end."""
    enable_operator_stats_collection()
    try:
        yield
    finally:
        disable_operator_stats_collection()


# ---- comparing two dumps ---------------------------------------------------------------
_FIELD = re.compile(r"(\w+)=([^,\]\s]*)")


def _read_dump(path):
    """[(op, record)] in order from the worker_*.log files (CHECK_ALL reports) of path."""
    if not os.path.isdir(path):
        raise ValueError(f"compare_accuracy: {path!r} is not a directory of tensor-checker reports")
    out = []
    for name in sorted(glob.glob(os.path.join(path, "*.log"))):
        with open(name) as f:
            for line in f:
                if "[PRECISION]" not in line:
                    continue
                rec = dict(_FIELD.findall(line))
                if "op" in rec:
                    out.append(rec)
    return out


def _num(rec, key):
    try:
        return float(rec[key])
    except (KeyError, ValueError):
        return float("nan")


def compare_accuracy(
    dump_path: str | os.PathLike[str],
    another_dump_path: str | os.PathLike[str],
    output_filename: str | os.PathLike[str],
    loss_scale: float = 1,
    dump_all_tensors: bool = False,
) -> int:
    """Compare two runs dumped by the tensor checker with DebugMode.CHECK_ALL and
    output_dir (say a float32 run in dump_path and a low-precision run in
    another_dump_path), op by op in execution order (the k-th report of an op in one
    run against its k-th report in the other), and write a CSV table to
    output_filename: op, occurrence, dtype, numel, max, min, mean and NaN/Inf counts of
    each run, the ratios of the second run's max/min/mean to the first's (gradients,
    "Grad" ops, with the first run's values scaled by loss_scale), and whether the pair
    looks abnormal (NaN/Inf in either, or max/min off by more than 1% relative + 0.01).
    Returns the number of rows written. Paddle writes an .xlsx workbook; oar writes CSV
    whatever the file name says."""
    if dump_all_tensors:
        raise ValueError("compare_accuracy: dump_all_tensors=True is not supported (as in Paddle)")
    first, second = _read_dump(dump_path), _read_dump(another_dump_path)
    seen_a, seen_b = {}, {}
    index_b = {}
    for rec in second:
        k = seen_b[rec["op"]] = seen_b.get(rec["op"], -1) + 1
        index_b[(rec["op"], k)] = rec
    rows = []
    for rec in first:
        k = seen_a[rec["op"]] = seen_a.get(rec["op"], -1) + 1
        other = index_b.pop((rec["op"], k), None)
        rows.append((rec["op"], k, rec, other))
    rows += [(op, k, None, rec) for (op, k), rec in index_b.items()]
    nan = float("nan")
    header = [
        "op",
        "occurrence",
        "dtype_a",
        "dtype_b",
        "numel",
        "max_a",
        "min_a",
        "mean_a",
        "max_b",
        "min_b",
        "mean_b",
        "max_b/max_a",
        "min_b/min_a",
        "mean_b/mean_a",
        "nan_inf_a",
        "nan_inf_b",
        "abnormal",
    ]
    with open(output_filename, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for op, k, a, b in rows:
            scale = float(loss_scale) if "Grad" in op else 1.0
            va = [_num(a, x) * scale if a else nan for x in ("max", "min", "mean")]
            vb = [_num(b, x) if b else nan for x in ("max", "min", "mean")]
            ratios = [(vb[i] / va[i] if va[i] != 0 else 1.0) if a and b else nan for i in range(3)]
            bad = [int(_num(r, "num_nan") + _num(r, "num_inf")) if r else None for r in (a, b)]
            off = bool(a and b) and not all(
                np.isclose(vb[i], va[i], rtol=1e-2, atol=1e-2) for i in range(2)
            )
            w.writerow(
                [
                    op,
                    k,
                    a.get("dtype") if a else "--",
                    b.get("dtype") if b else "--",
                    (a or b).get("numel"),
                    *va,
                    *vb,
                    *ratios,
                    *("--" if c is None else c for c in bad),
                    bool(any(bad) or off),
                ]
            )
    return len(rows)
