"""The public Python functions that are not ops of src/oar/ops/ (Paddle-style wrappers,
indexing, creation), each with a generator of arguments and an oracle.

An oracle gets the arguments with every oar tensor replaced by the torch tensor
holding the same (float64) values and returns what oar should return. Indexing is
checked against numpy: Paddle's indexing is numpy's, and torch has no negative
slice steps.
"""
import math

from gen import (DTYPES, SPECIALS, make_tensor, rand_axis, rand_shape,  # noqa: F401
                 related_shape)

TABLE = {}


class Entry:
    def __init__(self, target, gen, oracle):
        self.target, self.gen, self.oracle = target, gen, oracle


def entry(key, target=None):
    def deco(pair):
        gen, oracle = pair()
        TABLE[key] = Entry(target or f"oar.{key}", gen, oracle)
    return deco


def _torch():
    import torch
    return torch


def _tdt(name, default):
    import torch
    return default if name is None else getattr(torch, name)


def _dtype_arg(r):
    return None if r.random() < 0.4 else r.choice(DTYPES)


@entry("split")
def _split():
    def gen(r):
        x = make_tensor(r, rand_shape(r))
        axis = rand_axis(r, len(x.shape))
        n = x.shape[axis] if x.shape and -len(x.shape) <= axis < len(x.shape) else 3
        if r.random() < 0.5:
            nos = r.choice([1, 2, 3, n if 0 < n < 50 else 4, 0, -1])
        else:
            nos = [r.randint(0, n) for _ in range(r.randint(1, 3))]
            nos.append(n - sum(nos) if r.random() < 0.7 else -1)
        return [x, nos], ({"axis": axis} if r.random() < 0.7 else {})

    def oracle(x, nos, axis=0):
        n = x.shape[axis]
        if isinstance(nos, int):
            if nos <= 0 or n % nos:
                raise ValueError("cannot split")
            sizes = [n // nos] * nos
        else:
            sizes = list(nos)
            if sizes.count(-1) == 1:
                sizes[sizes.index(-1)] = n - sum(s for s in sizes if s != -1)
            if sum(sizes) != n or min(sizes) < 0:
                raise ValueError("sections do not add up")
        return list(_torch().split(x, sizes, axis))
    return gen, oracle


@entry("stack")
def _stack():
    def gen(r):
        s = rand_shape(r, 3)
        dt = r.choice(DTYPES)
        xs = [make_tensor(r, s if r.random() < 0.9 else related_shape(r, s), dt)
              for _ in range(r.choice([1, 2, 3, 0]))]
        return [xs], {"axis": rand_axis(r, len(s) + 1)} if r.random() < 0.7 else {}

    def oracle(xs, axis=0):
        return _torch().stack(xs, axis)
    return gen, oracle


@entry("gather")
def _gather():
    def gen(r):
        x = make_tensor(r, rand_shape(r))
        axis = rand_axis(r, len(x.shape)) if r.random() < 0.6 else None
        d = x.shape[axis or 0] if x.shape and -len(x.shape) <= (axis or 0) < len(x.shape) else 2
        d = min(d, 1000)  # x is empty if a dim is huge: keep the index int32-sized
        idx = make_tensor(r, [r.randint(0, 4)], r.choice(["int64", "int32"]),
                          lambda rr: rr.randint(0, d - 1) if d and rr.random() < 0.95
                          else rr.randint(-2, d + 2))
        return [x, idx], ({"axis": axis} if axis is not None else {})

    def oracle(x, index, axis=None):
        torch = _torch()
        axis = axis or 0
        n = x.shape[axis]
        if index.numel() and (index.min() < -n or index.max() >= n):
            raise IndexError("index out of range")  # negatives count from the end (Paddle 3)
        return torch.index_select(x, axis, index.long() % max(n, 1))
    return gen, oracle


@entry("flatten")
def _flatten():
    def gen(r):
        x = make_tensor(r, rand_shape(r))
        rank = len(x.shape)
        return [x], {"start_axis": rand_axis(r, rank), "stop_axis": rand_axis(r, rank)}

    def oracle(x, start_axis=0, stop_axis=-1):
        return _torch().flatten(x, start_axis, stop_axis)
    return gen, oracle


@entry("t")
def _t():
    return (lambda r: ([make_tensor(r, rand_shape(r, 3))], {}),
            lambda x: x.t())


@entry("nonzero")
def _nonzero():
    def gen(r):
        x = make_tensor(r, rand_shape(r), None, lambda rr: rr.choice([0, 0, 1, -2]))
        return [x], {"as_tuple": r.random() < 0.5}
    return gen, lambda x, as_tuple=False: _torch().nonzero(x, as_tuple=as_tuple)


def _rand_index(r, shape):
    items, d = [], 0
    for _ in range(r.randint(1, len(shape) + 1)):
        n = shape[d] if d < len(shape) else 3
        u = r.random()
        if u < 0.25:
            items.append(r.randint(-n, n - 1) if n and r.random() < 0.9 else r.randint(-n - 2, n + 1))
            d += 1
        elif u < 0.65:
            def p():
                return None if r.random() < 0.3 else r.randint(-n - 2, n + 2)
            items.append(slice(p(), p(), r.choice([None, 1, 2, 3, -1, -2])))
            d += 1
        elif u < 0.75:
            items.append(None)
        elif u < 0.82:
            items.append(Ellipsis)
        elif u < 0.93:
            items.append([r.randint(-n, n - 1) if n else 0 for _ in range(r.randint(0, 3))])
            d += 1
        else:
            items.append([r.random() < 0.5 for _ in range(min(n, 9))])  # a boolean mask
            d += 1
    return tuple(items) if len(items) > 1 or r.random() < 0.3 else items[0]


def _np_index(idx):
    import numpy as np
    if isinstance(idx, tuple):
        return tuple(_np_index(i) for i in idx)
    if isinstance(idx, list):
        return np.array(idx, dtype=bool if idx and isinstance(idx[0], bool) else np.int64)
    return idx


@entry("getitem", "getitem")
def _getitem():
    def gen(r):
        x = make_tensor(r, rand_shape(r))
        return [x, _rand_index(r, x.shape)], {}

    def oracle(x, idx):
        return x.detach().numpy()[_np_index(idx)]
    return gen, oracle


@entry("setitem", "setitem")
def _setitem():
    def gen(r):
        import numpy as np
        x = make_tensor(r, rand_shape(r))
        idx = _rand_index(r, x.shape)
        try:
            target = np.empty(x.shape, np.int8)[_np_index(idx)].shape
        except (IndexError, ValueError, MemoryError):
            target = (2,)
        if r.random() < 0.5:
            v = r.choice([1.5, -2, True, 0, math.nan, -0.0])
        else:
            s = list(target)
            if s and r.random() < 0.3:
                s = [1 if r.random() < 0.5 else k for k in s[r.randint(0, len(s)):]]
            v = make_tensor(r, s, x.dtype if r.random() < 0.7 else None)
        return [x, idx, v], {}

    def oracle(x, idx, v):
        import numpy as np
        a = x.detach().numpy().copy()
        a[_np_index(idx)] = v.detach().numpy() if hasattr(v, "detach") else v
        return a
    return gen, oracle


def _creation_shape(r):
    return rand_shape(r) if r.random() < 0.9 else r.choice([3, [2, -1], (2, 3), [1.5]])


for _name in ("zeros", "ones"):
    def _make(fill):
        def gen(r):
            return [_creation_shape(r)], ({"dtype": _dtype_arg(r)} if r.random() < 0.7 else {})

        def oracle(shape, dtype=None):
            shape = [shape] if isinstance(shape, int) else list(shape)
            return _torch().full(shape, fill, dtype=_tdt(dtype, _torch().float32))
        return gen, oracle
    entry(_name)(lambda f=(1.0 if _name == "ones" else 0.0): _make(f))


for _name in ("zeros_like", "ones_like"):
    def _make_like(fill):
        def gen(r):
            return [make_tensor(r, rand_shape(r))], ({"dtype": _dtype_arg(r)} if r.random() < 0.7
                                                     else {})

        def oracle(x, dtype=None):
            return _torch().full_like(x, fill, dtype=_tdt(dtype, x.dtype))
        return gen, oracle
    entry(_name)(lambda f=(1.0 if _name == "ones_like" else 0.0): _make_like(f))


@entry("linspace")
def _linspace():
    def gen(r):
        def v():
            return r.choice([0, 1, -2.5, 3.0, round(r.uniform(-5, 5), 2)]) if r.random() < 0.95 \
                else r.choice(SPECIALS)
        return [v(), v(), r.choice([0, 1, 2, 5, 7, -1])], \
            ({"dtype": _dtype_arg(r)} if r.random() < 0.6 else {})

    def oracle(start, stop, num, dtype=None):
        return _torch().linspace(start, stop, num, dtype=_tdt(dtype, _torch().float32))
    return gen, oracle


@entry("eye")
def _eye():
    def gen(r):
        m = r.choice([None, 0, 1, 3, 4])
        return [r.choice([0, 1, 2, 3, 5])], dict(([("num_columns", m)] if m is not None else []) +
                                                ([("dtype", _dtype_arg(r))] if r.random() < .5 else []))

    def oracle(num_rows, num_columns=None, dtype=None):
        return _torch().eye(num_rows, num_rows if num_columns is None else num_columns,
                            dtype=_tdt(dtype, _torch().float32))
    return gen, oracle


@entry("to_tensor")
def _to_tensor():
    def gen(r):
        kind = r.choice(["float", "int", "bool", "mixed"])

        def leaf():
            k = r.choice(["float", "int", "bool"]) if kind == "mixed" else kind
            if k == "float":
                return r.choice(SPECIALS) if r.random() < 0.1 else round(r.uniform(-3, 3), 2)
            return r.random() < 0.5 if k == "bool" else r.randint(-5, 5)
        shape = rand_shape(r, 3)
        if any(d > 100 for d in shape):
            shape = [0]

        def build(s):
            return leaf() if not s else [build(s[1:]) for _ in range(s[0])]
        return [build(shape)], ({"dtype": _dtype_arg(r)} if r.random() < 0.5 else {})

    def oracle(data, dtype=None):
        return _torch().tensor(data, dtype=_tdt(dtype, None))
    return gen, oracle
