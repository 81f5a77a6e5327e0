"""Dtype promotion, for every op: Paddle's rule (docs/dtypes.md, "Promotion"), which
refuses to mix integers with floats and promotes a complex operand with a real one."""
import re

from .common import Difference


def _paddle_promotion(call, detail, last):
    """Paddle's promotion rule (docs/dtypes.md, "Promotion"; checked against Paddle
    3.3.1): tensor operands of different dtypes are promoted only when both are floating
    or one is complex; bool or an integer with any other dtype (int32 + float32, uint8 +
    int8) is a TypeError asking for an explicit cast, where torch promotes. Only when
    oar's error is that rule's (PromoteOperands: "... dtypes are promoted (Paddle's
    rule)")."""
    return "dtypes are promoted (Paddle's rule)" in detail


def _mixed_complex_and_real_operands(call, detail, last):
    """A product or solve of a complex and a real operand: oar promotes to the complex
    dtype (Paddle's rule for mixed operands); torch's matmul refuses mixed dtypes except
    through its shortcut for an empty or zero-depth product, which returns the real
    operand's dtype, and the solve's oracle expression casts the complex operand to the
    real dtype (torch warns that the imaginary part is discarded). Only when the operands
    mix complex and real dtypes and torch's result has the real or integer dtype."""
    kinds = {t.dtype.startswith("complex") for t in call.tensors()}
    want = re.fullmatch(r"value: dtype complex(64|128), want ((float|int)\d+|bool)", detail)
    return kinds == {True, False} and want is not None


COMPLEX_AND_REAL_OPERANDS = Difference(
    "complex and real operands: Paddle's promotion to complex",
    ["matmul", "triangular_solve", "solve"], ["value mismatch"], _mixed_complex_and_real_operands,
    _mixed_complex_and_real_operands.__doc__)
NO_INT_FLOAT_MIX = Difference(
    "Paddle's promotion rule (no int/float mix)", None, ["oar raises"], _paddle_promotion,
    _paddle_promotion.__doc__)
