"""Documented differences: where oar follows Paddle rather than PyTorch on purpose.

A failing comparison that matches an entry is counted as "documented: <name>",
not as a bug (and not silently dropped). Each entry says why oar is right. Keep
the predicates narrow: they must match the deliberate rule, never a bug that
happens to produce the same symptom -- so most re-check the value under oar's rule.

A predicate gets (call, detail, last): `last` holds the oar result `out`, torch's
`want`, the torch inputs `tviews` and their bases `tbases` (by id of the gen.T) of the
float64 run, and for a gradient mismatch the differing gradients `grad_oar`,
`grad_torch` with respect to the base of input `grad_of` (an id).

Layout: common.py holds the Difference class and the helpers the predicates share.
Every other module holds the rules of one op family, named for its section of
src/oar/ops/*.yaml (activation, creation, numeric, fft, geometric, lapack, logic,
norm for norm.yaml and batch_norm.yaml, reduce, scan, scatter, search, special,
statistics, unary), or, for rules that apply to every op (or across families), of
their subject: complex_numbers, dtype, integer, oracle, promotion. A rule is a
module-level Difference whose `why` (mostly its predicate's docstring) gives the
reason; a new one goes into its module and into DIFFERENCES below.
"""
from . import (activation, complex_numbers, conv, creation, dtype, numeric, fft, geometric,
               integer, lapack, logic, norm, oracle, promotion, reduce, scan, scatter, search,
               special, statistics, unary)
from .common import Difference

MODULES = [activation, complex_numbers, conv, creation, dtype, numeric, fft, geometric,
           integer, lapack, logic, norm, oracle, promotion, reduce, scan, scatter, search,
           special, statistics, unary]

# The order in which match() tries the rules: the first that matches names the call.
# Rules overlap -- the ones for every op (complex infinities, a narrower dtype=, float_only
# ops, inf - inf in a *_grad oracle) with the families', and prod's and cumprod's across
# dtype, scan and statistics -- so which name a call is counted under depends on this
# order. It is the order of the single allowlist.py these modules were split from; a new
# rule goes at the end unless it must be tried before another that also matches its calls.
DIFFERENCES = [
    complex_numbers.INFINITE_PARTS,
    complex_numbers.POW_AT_A_ZERO_OR_INFINITE_BASE,
    creation.ARANGE_ROUNDED_ONCE,
    statistics.P_NORM_OF_A_DENORMAL_ORDER,
    complex_numbers.DERIVATIVE_ON_A_BRANCH_CUT,
    dtype.GRADIENT_THROUGH_A_NARROWER_DTYPE,
    scan.COMPLEX_SCAN_TO_A_REAL_DTYPE,
    promotion.COMPLEX_AND_REAL_OPERANDS,
    promotion.NO_INT_FLOAT_MIX,
    dtype.NO_INTEGER_KERNELS,
    oracle.INF_MINUS_INF_IN_A_GRAD_FORMULA,
    integer.KEEPS_INTEGER_DTYPE,
    reduce.NAN_GROUP_OF_MAX,
    activation.NAN_INPUT_OF_A_PIECEWISE_GRADIENT,
    activation.OVERFLOWING_SUM_OVER_A_BROADCAST,
    search.POSITIONS_OF_TIES,
    scan.CUMPROD_GRAD_OF_NON_FINITE,
    statistics.PROD_GRAD_OF_ZEROS_WITH_OVERFLOW,
    activation.SOFTSIGN_AT_INFINITY,
    activation.SOFTPLUS_WITHOUT_OVERFLOW,
    activation.SOFTPLUS_GRAD_WITHOUT_OVERFLOW,
    activation.SELU_GRAD_OF_ZERO_ALPHA,
    fft.FFT_OF_INFINITIES,
    numeric.LOGIT_GRAD_AT_NAN,
    activation.CELU_OF_A_SUBNORMAL_ALPHA,
    statistics.SPREAD_OF_ONE_ELEMENT,
    statistics.SPREAD_OF_EQUAL_VALUES,
    statistics.P_NORM_OF_ONE_ELEMENT,
    statistics.P_NORM_OF_A_HUGE_ORDER,
    dtype.GRADIENT_IN_A_LOWER_RESULT_DTYPE,
    reduce.SUM_TO_KEEPS_DTYPE,
    creation.ARANGE_CASTS_BOUNDS_FIRST,
    creation.ARANGE_EXACT_LENGTH,
    norm.BATCH_NORM_SECOND_ORDER_ROUNDOFF,
    creation.LOW_PRECISION_RANGE_ROUNDED_ONCE,
    creation.LINSPACE_CASTS_BOUNDS_FIRST,
    integer.SCALE_SATURATES,
    integer.ROUND_SATURATES,
    logic.ISCLOSE_TOLERANCE_ROUNDED_ONCE,
    logic.INTEGER_ISCLOSE_IN_FLOAT32,
    scatter.INDEX_ADD_FUSED,
    unary.SCALE_FUSED_MULTIPLY_ADD,
    reduce.LOW_PRECISION_SUM_ORDER,
    statistics.LOW_PRECISION_PROD_ROUNDED_ONCE,
    dtype.FLOAT_ONLY_RETURNS_FLOAT32,
    special.TORCH_SERIES_ACCURACY,
    special.POLYGAMMA_AT_POLES_AND_INFINITIES,
    special.POLYGAMMA_HUGE_ORDER,
    special.POLYGAMMA_LEFT_CANCELLATION,
    special.STANDARD_GAMMA_GRAD_EXACT,
    unary.POW_EXPONENT_IS_A_DOUBLE,
    search.UNSORTED_TOPK_ORDER,
    lapack.NON_FINITE_MATRIX,
    lapack.DET_OF_A_NUMERICALLY_SINGULAR_MATRIX,
    activation.HARDSIGMOID_KINK_ROUNDING,
    norm.NORM_GRAD_ROUNDOFF_OVER_STD,
    lapack.EIGH_SIGN_TIE,
    lapack.EIGH_PHASE_TIE_GRADIENT,
    lapack.INVERSE_OF_A_NUMERICALLY_SINGULAR_MATRIX,
    geometric.INTEGER_SEGMENT_MEAN_TRUNCATES,
    lapack.SVD_IS_AN_SVD,
    lapack.EIG_IS_AN_EIG,
    lapack.RANK_DEFICIENT_GRADIENT,
    lapack.CONDITIONED_ROUNDOFF,
    activation.HUGE_EXP_LINEAR_COEFFICIENT,
    norm.INFINITE_GRAD_OUT,
    norm.INFINITE_WEIGHT,
    norm.SCALE_GRAD_OF_AN_INFINITE_G,
    lapack.QR_IS_A_QR,
    lapack.DET_GRADIENT_AT_A_SINGULAR_MATRIX,
    search.MODE_WITH_NAN,
    search.UNIQUE_WITH_NAN,
    conv.CONV_WITHOUT_INPUT_CHANNELS,
    activation.SOFTPLUS_AT_INFINITY,
    numeric.BESSEL_AT_INFINITY,
    numeric.I1_GRAD_AT_NAN,
    numeric.COPYSIGN_GRAD_OF_NON_FINITE,
    numeric.LOGIT_GRAD_AT_NEGATIVE_ZERO,
    lapack.QR_OF_A_NON_FINITE_MATRIX,
    numeric.SEARCHSORTED_UNSORTED_SEQUENCE,
    numeric.LOGCUMSUMEXP_GRAD_AT_NON_FINITE,
]


def rules_of(module):
    """The Difference entries a module defines, in their order in DIFFERENCES."""
    mine = {id(v) for v in vars(module).values() if isinstance(v, Difference)}
    return [d for d in DIFFERENCES if id(d) in mine]


def _check():
    """Every rule of every module is tried exactly once, and carries a name and a reason."""
    defined = [v for m in MODULES for v in vars(m).values() if isinstance(v, Difference)]
    listed = {id(d) for d in DIFFERENCES}
    missing = [d.name for d in defined if id(d) not in listed]
    assert not missing, f"rules missing from allowlist.DIFFERENCES: {missing}"
    assert len(listed) == len(DIFFERENCES) == len(defined), "a rule listed twice"
    names = [d.name for d in DIFFERENCES]
    assert len(set(names)) == len(names), "two rules share a name"
    for d in DIFFERENCES:
        assert d.why and d.why.strip(), f"rule {d.name!r} has no reason"


_check()


def match(call, outcome, detail, last):
    for d in DIFFERENCES:
        if (d.keys is None or call.key in d.keys) and outcome in d.outcomes and \
                d.predicate(call, detail, last):
            return d.name
    return None
