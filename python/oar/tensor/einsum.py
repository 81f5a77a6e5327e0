"""einsum (Paddle's paddle/tensor/einsum.py): contracted pairwise through matmul."""

from __future__ import annotations

from typing import Any

from .. import _C
from ..framework import check as C
from .manipulation import _prod
from .math import _sum

Tensor = _C.Tensor

__all__ = ["einsum"]


# --- einsum --------------------------------------------------------------------------------


def _parse_term(term, ndim, where):
    """A term's labels: letters, with '...' expanded to ints -1, -2, .. (right-aligned)."""
    if term.count("...") > 1 or "." in term.replace("...", ""):
        raise ValueError(f"einsum(): {where} '{term}' may hold at most one '...'")
    head, dots, tail = term.partition("...")
    for ch in head + tail:
        if not ch.isalpha() or not ch.isascii():
            raise ValueError(
                f"einsum(): {where} '{term}' has the invalid label '{ch}' (labels "
                f"are ASCII letters)"
            )
    n_letters = len(head) + len(tail)
    if ndim is None:
        return list(head), bool(dots), list(tail)
    if (not dots and n_letters != ndim) or (dots and n_letters > ndim):
        raise ValueError(
            f"einsum(): {where} '{term}' has {n_letters} labels but the operand has "
            f"{ndim} dimensions"
        )
    e = ndim - n_letters
    return list(head) + [-(e - i) for i in range(e)] + list(tail)


def einsum(equation: Any, *operands: Any) -> Tensor:
    """Einstein summation: the labels of each operand, ',' between operands, '->' before the
    output's labels (implicit: the labels seen once, sorted), '...' for broadcast dims; a
    repeated label within an operand takes its diagonal. Lowered to diagonal, sum,
    transpose, reshape and matmul, so it is as fast and as differentiable as those."""
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' must be str, but got {C._kind(equation)}")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    ops = [C.tensor("einsum", f"operands[{i}]", v) for i, v in enumerate(operands)]
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ops):
        raise ValueError(
            f"einsum(): the equation '{equation}' has {len(terms)} operand terms but "
            f"{len(ops)} operands were given"
        )
    labels = [_parse_term(tm, v.ndim, f"term {i}") for i, (tm, v) in enumerate(zip(terms, ops))]
    ell = max(
        [-min([lb for lb in ls if isinstance(lb, int)], default=0) for ls in labels], default=0
    )
    sizes: dict = {}
    for i, (ls, v) in enumerate(zip(labels, ops)):
        for lb, s in zip(ls, v.shape):
            prev = sizes.get(lb, 1)
            if prev != s and prev != 1 and s != 1:
                what = f"'{lb}'" if isinstance(lb, str) else "'...'"
                raise ValueError(
                    f"einsum(): label {what} has size {s} in operand {i} but {prev} elsewhere"
                )
            sizes[lb] = s if prev == 1 else prev  # a size-1 label broadcasts
    if arrow:
        head, dots, tail = _parse_term(rhs, None, "the output")
        for lb in head + tail:
            if lb not in sizes:
                raise ValueError(f"einsum(): output label '{lb}' does not appear in any operand")
        out_letters = head + tail
        if len(set(out_letters)) != len(out_letters):
            raise ValueError(f"einsum(): the output '{rhs}' repeats a label")
        out = head + ([-(ell - i) for i in range(ell)] if dots else []) + tail
    else:
        counts: dict = {}
        for ls in labels:
            for lb in ls:
                if isinstance(lb, str):
                    counts[lb] = counts.get(lb, 0) + 1
        out = [-(ell - i) for i in range(ell)] + sorted(lb for lb, c in counts.items() if c == 1)

    # 1. Repeated labels within an operand: their diagonal.
    items = []
    for v, ls in zip(ops, labels):
        ls = list(ls)
        while True:
            dup = next((lb for lb in ls if ls.count(lb) > 1), None)
            if dup is None:
                break
            i = ls.index(dup)
            j = ls.index(dup, i + 1)
            v = _C.diagonal(v, 0, i, j)
            ls = [lb for k, lb in enumerate(ls) if k not in (i, j)] + [dup]
        items.append((v, ls))

    def needed(k):
        """Labels that the output or the operands after position k use."""
        keep = set(out)
        for _, ls in items[k + 1 :]:
            keep.update(ls)
        return keep

    def reduce_unused(v, ls, keep):
        drop = [i for i, lb in enumerate(ls) if lb not in keep]
        return _sum(v, drop), [lb for lb in ls if lb in keep]

    # 2. Contract left to right, each pair as one (batched) matmul.
    acc, acc_ls = reduce_unused(*items[0], needed(0))
    for k in range(1, len(items)):
        keep = needed(k)
        v, ls = reduce_unused(*items[k], keep | set(acc_ls))
        acc, acc_ls = reduce_unused(acc, acc_ls, keep | set(ls))
        acc, acc_ls = _contract(acc, acc_ls, v, ls, keep)
    acc, acc_ls = reduce_unused(acc, acc_ls, set(out))
    # 3. The output order; labels of size 1 that broadcast stay size 1 unless expanded.
    perm = [acc_ls.index(lb) for lb in out]
    res = _C.transpose(acc, perm) if perm != list(range(len(perm))) else acc
    target = [sizes[lb] for lb in out]
    if list(res.shape) != target:
        res = _C.expand(res, target)
    return res


def _contract(a, la, b, lb, keep):
    """The product of a (labels la) and b (labels lb) summed over the shared labels not in
    keep: [batch, a-only, shared] @ [batch, shared, b-only] as one matmul."""
    batch = [x for x in la if x in lb and x in keep]
    summed = [x for x in la if x in lb and x not in keep]
    a_only = [x for x in la if x not in lb]
    b_only = [x for x in lb if x not in la]
    # A summed label of size 1 on one side only: sum the other side's (keepdim) first.
    for x in summed:
        sa, sb = a.shape[la.index(x)], b.shape[lb.index(x)]
        if sa != sb:
            if sa == 1:
                b = _C.sum(b, [lb.index(x)], None, True)
            else:
                a = _C.sum(a, [la.index(x)], None, True)
    floating = a.dtype.is_floating_point and b.dtype.is_floating_point
    if not floating or not summed or not (a_only or b_only):
        # Broadcast multiply (and sum): integer operands (matmul is for floating types),
        # nothing to sum (a matmul with k = 1 per batch element would be a loop of scalar
        # products), or nothing but batch dims besides the sum (a matvec of 1 x 1 results).
        allx = batch + a_only + b_only + summed
        av = _align(a, la, allx)
        bv = _align(b, lb, allx)
        prod = _C.multiply(av, bv)
        n = len(batch) + len(a_only) + len(b_only)
        return _sum(prod, list(range(n, len(allx)))), batch + a_only + b_only
    a = _C.transpose(a, [la.index(x) for x in batch + a_only + summed])
    b = _C.transpose(b, [lb.index(x) for x in batch + summed + b_only])
    nb = len(batch)
    bshape_a, bshape_b = list(a.shape[:nb]), list(b.shape[:nb])
    a_sizes = list(a.shape[nb : nb + len(a_only)])
    b_sizes = list(b.shape[nb + len(summed) :])
    k = _prod(a.shape[nb + len(a_only) :])
    am = C.reshape_exact(a, bshape_a + [_prod(a_sizes), k])
    bm = C.reshape_exact(b, bshape_b + [k, _prod(b_sizes)])
    prod = _C.matmul(am, bm)
    return (
        C.reshape_exact(prod, list(prod.shape[:nb]) + a_sizes + b_sizes),
        batch + a_only + b_only,
    )


def _align(v, ls, order):
    """v transposed to `order`'s labels it has, with size-1 dims for the others."""
    have = [x for x in order if x in ls]
    v = _C.transpose(v, [ls.index(x) for x in have])
    return C.reshape_exact(v, [v.shape[have.index(x)] if x in ls else 1 for x in order])
