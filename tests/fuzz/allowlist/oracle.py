"""The torch oracles of the *_grad ops (formulas in tests/op_cases/), for every such op."""
from .common import Difference


def _inf_minus_inf_in_oracle(call, detail, last):
    """The torch oracle of a *_grad op is a formula (tests/op_cases/) that torch's
    autograd differentiates once more: its intermediate steps meet inf - inf or 0 * inf
    and give NaN where oar's fused backward kernel gives the limit (±inf), the value the
    derivative tends to there. Only for *_grad ops, when every differing element is NaN
    in torch and ±inf in oar."""
    return detail.endswith("[all: oar inf where torch nan]") and call.key.endswith("_grad")


INF_MINUS_INF_IN_A_GRAD_FORMULA = Difference(
    "inf - inf in a torch formula", None, ["grad mismatch"], _inf_minus_inf_in_oracle,
    _inf_minus_inf_in_oracle.__doc__)
