"""Paddle's PyTorch-style dtype aliases (paddle.float is paddle.float32, ...), in a module
of their own: binding `float` in a module makes it the dtype for all of that module's
code, and for type checkers, in every annotation there."""

from .dtype import complex64, complex128, float16, float32, float64

float = float32  # noqa: A001
double = float64
half = float16
cfloat = complex64
cdouble = complex128

__all__ = ["float", "double", "half", "cfloat", "cdouble"]
