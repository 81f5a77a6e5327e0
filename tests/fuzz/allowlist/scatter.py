"""Scatter and index updates (src/oar/ops/scatter.yaml)."""
from .common import Difference, _differing_only_where_torch_is_non_finite


def _index_add_fused(call, detail, last):
    """index_add's x + alpha * value is one fused multiply-add per added row (GCC
    contracts it): with |alpha| ~ 1e308 the products that overflow in torch's separate
    multiply (inf, then inf - inf = NaN where rows add up) stay exact inside the fma.
    Only when every differing element is non-finite in torch."""
    if abs(float((call.decl or {}).get("alpha", 1.0))) < 1e300 or "grad" in detail:
        return False
    return _differing_only_where_torch_is_non_finite(last)


INDEX_ADD_FUSED = Difference(
    "index_add: x + alpha * value fused", ["index_add", "index_add_"], ["value mismatch"],
    _index_add_fused, _index_add_fused.__doc__)
