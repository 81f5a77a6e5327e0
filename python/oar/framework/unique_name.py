"""oar.utils.unique_name: Paddle's name generator (the names of layers and parameters
come from it: `linear_0`, `linear_0.w_0`, ...).

generate(key) gives key_0, key_1, ... per key, prefixed with the generator's prefix;
guard() runs a with-block with a fresh generator (so names restart), switch() swaps the
generator and returns the old one.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator

__all__ = ["generate", "guard", "switch", "UniqueNameGenerator"]


class UniqueNameGenerator:
    """Counts the names made per key: key_0, key_1, ..., each prefixed with `prefix`."""

    def __init__(self, prefix=None):
        if prefix is not None and not isinstance(prefix, str):
            raise TypeError(
                f"UniqueNameGenerator(): argument 'prefix' must be str or None, "
                f"but got {type(prefix).__name__}"
            )
        self.prefix = prefix or ""
        self.ids = {}  # key -> the number of names made for it
        self._lock = threading.Lock()

    def __call__(self, key):
        if not isinstance(key, str):
            raise TypeError(f"generate(): argument 'key' must be str, but got {type(key).__name__}")
        with self._lock:
            n = self.ids.get(key, 0)
            self.ids[key] = n + 1
        return f"{self.prefix}{key}_{n}"

    def __repr__(self):
        return f"UniqueNameGenerator(prefix={self.prefix!r})"


_state = {"generator": UniqueNameGenerator()}


def generate(key: str) -> str:
    """A new name key_<n> from the current generator (n counts the names of this key)."""
    return _state["generator"](key)


def switch(
    new_generator: UniqueNameGenerator | None = None, new_para_name_checker: Any = None
) -> tuple[UniqueNameGenerator, None]:
    """Makes new_generator (a fresh one if None) current; returns (old generator, old
    parameter-name checker). oar keeps no parameter-name checker: the second element
    is always None and new_para_name_checker is accepted and ignored."""
    if new_generator is None:
        new_generator = UniqueNameGenerator()
    if not isinstance(new_generator, UniqueNameGenerator):
        raise TypeError(
            f"switch(): argument 'new_generator' must be a UniqueNameGenerator or "
            f"None, but got {type(new_generator).__name__}"
        )
    old = _state["generator"]
    _state["generator"] = new_generator
    return old, None


@contextlib.contextmanager
def guard(new_generator: UniqueNameGenerator | str | bytes | None = None) -> Iterator[None]:
    """Runs the with-block with a fresh generator: a new UniqueNameGenerator (None), one
    with the given prefix (str or bytes), or the given generator; the old one comes back
    afterwards."""
    if isinstance(new_generator, bytes):
        new_generator = new_generator.decode()
    if new_generator is None or isinstance(new_generator, str):
        new_generator = UniqueNameGenerator(new_generator)
    old, _ = switch(new_generator)
    try:
        yield
    finally:
        switch(old)
