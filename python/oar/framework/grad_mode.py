"""Grad mode (thread-local in C++): no_grad, enable_grad, set_grad_enabled."""

import functools

from .. import _C

is_grad_enabled = _C.is_grad_enabled


class _GradModeContext:
    """A context manager that is also a decorator."""

    _mode = True

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self._mode)
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_GradModeContext):
    """Ops inside record no backward graph: `with oar.no_grad():` or `@oar.no_grad()`."""

    _mode = False


class enable_grad(_GradModeContext):
    """Turns gradient recording back on inside a no_grad region."""

    _mode = True


class set_grad_enabled(_GradModeContext):
    """set_grad_enabled(mode): turns recording on/off for a block (or from now on)."""

    def __init__(self, mode):
        self._mode = bool(mode)
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self._mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        mode = self._mode
        _C._set_grad_enabled(self._prev)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)

        return wrapper
