"""What the loss modules share: the check of the reduction argument."""

_REDUCTIONS = ("mean", "sum", "none")


def _reduction(api, reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(
            f"{api}(): argument 'reduction' must be one of 'mean', 'sum', 'none', "
            f"but got {reduction!r}"
        )
    return reduction
