"""paddle.batch: a reader of samples as a reader of lists of batch_size samples."""

from __future__ import annotations

from typing import Any, Callable, Iterator

from . import check as C


def batch(
    reader: Callable[[], Iterator[Any]], batch_size: int, drop_last: bool = False
) -> Callable[[], Iterator[list[Any]]]:
    """A reader that yields lists of batch_size items of `reader`'s (the last one shorter
    unless drop_last).

    Examples:
        >>> import oar
        >>> reader = oar.batch(lambda: iter(range(5)), 2)
        >>> print(list(reader()))
        [[0, 1], [2, 3], [4]]
    """
    batch_size = C.integer("batch", "batch_size", batch_size)
    if batch_size <= 0:
        raise ValueError(
            f"batch(): argument 'batch_size' must be a positive int, but got {batch_size}"
        )
    if not callable(reader):
        raise TypeError(
            f"batch(): argument 'reader' must be callable, but got {type(reader).__name__}"
        )

    def batch_reader():
        b = []
        for item in reader():
            b.append(item)
            if len(b) == batch_size:
                yield b
                b = []
        if b and not drop_last:
            yield b

    return batch_reader
