"""set_flags / get_flags: oar's own flags (oar._C) and Paddle's documented flags that
mean nothing to oar.

oar's flags (FLAGS_check_nan_inf, FLAGS_conv_winograd, FLAGS_fused_rnn,
FLAGS_jit_fold_conv, FLAGS_jit_fuse_elementwise, FLAGS_parallel_threshold,
FLAGS_record_forward_stack) change
what oar does. The flags in NO_EFFECT are Paddle's, for things oar does not have
or does another way (a GPU allocator, static-graph passes, stride kernels that are
always on); Paddle code sets them routinely, so they are accepted and their values kept
(get_flags returns them), but they change nothing. Setting one to a value other than
Paddle's default warns once per flag, saying why it has no effect. Any other name is a
ValueError (docs/compat.md lists the table).
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

from .. import _C

_EAGER_DELETE = "oar frees a tensor's memory when its last reference goes"
_GPU = "oar has no GPU"
_STATIC = "oar runs eagerly, with no static graph or program passes"
_ALLOCATOR = "oar's CPU memory comes from mimalloc, not Paddle's allocator"
_ONEDNN = "oar calls oneDNN for the kernels it wins by itself"

# name: (Paddle's default, why it has no effect on oar)
NO_EFFECT = {
    "FLAGS_eager_delete_tensor_gb": (0.0, _EAGER_DELETE),
    "FLAGS_fast_eager_deletion_mode": (True, _EAGER_DELETE),
    "FLAGS_memory_fraction_of_eager_deletion": (1.0, _EAGER_DELETE),
    "FLAGS_use_stride_kernel": (True, "oar's tensors are always strided: views share memory"),
    "FLAGS_check_nan_inf_level": (
        0,
        "oar's NaN/Inf check (FLAGS_check_nan_inf) raises at the "
        "first op whose output has a NaN or Inf",
    ),
    "FLAGS_use_mkldnn": (False, _ONEDNN),
    "FLAGS_use_onednn": (False, _ONEDNN),
    "FLAGS_allocator_strategy": ("auto_growth", _ALLOCATOR),
    "FLAGS_use_system_allocator": (False, _ALLOCATOR),
    "FLAGS_free_idle_chunk": (False, _ALLOCATOR),
    "FLAGS_init_allocated_mem": (False, _ALLOCATOR),
    "FLAGS_initial_cpu_memory_in_mb": (500, _ALLOCATOR),
    "FLAGS_fraction_of_gpu_memory_to_use": (0.92, _GPU),
    "FLAGS_gpu_memory_limit_mb": (0, _GPU),
    "FLAGS_use_pinned_memory": (True, _GPU),
    "FLAGS_cudnn_deterministic": (False, _GPU),
    "FLAGS_embedding_deterministic": (0, _GPU),
    "FLAGS_cudnn_exhaustive_search": (False, _GPU),
    "FLAGS_conv_workspace_size_limit": (512, _GPU),
    "FLAGS_cudnn_batchnorm_spatial_persistent": (False, _GPU),
    "FLAGS_use_legacy_linear": (False, "oar's linear is one kernel on the CPU either way"),
    "FLAGS_enable_pir_api": (True, _STATIC),
    "FLAGS_print_ir": (False, _STATIC),
    "FLAGS_enable_api_kernel_fallback": (True, "oar has one (CPU) kernel per op and dtype"),
    "FLAGS_benchmark": (False, "oar's ops already run synchronously"),
    "FLAGS_call_stack_level": (
        1,
        "oar's errors always carry Python's traceback; see "
        "FLAGS_record_forward_stack for the forward call site",
    ),
    "FLAGS_sort_sum_gradient": (False, "oar sums gradients in a fixed order already"),
    "FLAGS_max_inplace_grad_add": (0, "oar accumulates gradients in place already"),
    "FLAGS_use_autotune": (False, "oar picks its kernels without autotuning"),
    "FLAGS_einsum_opt": (False, "oar's einsum always contracts in its chosen order"),
    "FLAGS_low_precision_op_list": (0, "oar.amp has no per-op statistics list"),
    "FLAGS_dygraph_debug": (0, "oar has no dygraph debug log"),
}

_values: dict = {}
_warned: set = set()


def _name(k, api):
    if not isinstance(k, str):
        raise TypeError(f"{api}(): flag names must be str, but got {type(k).__name__}")
    return k if k.startswith("FLAGS_") else "FLAGS_" + k


# The flags oar's core reads (src/oar/core/flags.cc, FlagNames()).
_OWN = (
    "FLAGS_check_nan_inf",
    "FLAGS_conv_winograd",
    "FLAGS_fused_rnn",
    "FLAGS_jit_fold_conv",
    "FLAGS_jit_fuse_elementwise",
    "FLAGS_parallel_threshold",
    "FLAGS_record_forward_stack",
)


def _unknown(api, name):
    return ValueError(
        f"{api}(): unknown flag '{name}'; oar's flags: {', '.join(_OWN)}; also "
        f"accepted without effect (Paddle's): {', '.join(sorted(NO_EFFECT))}"
    )


def set_flags(flags: dict[str, Any]) -> None:
    """Sets flags from a dict {name: value} (the FLAGS_ prefix may be left out): oar's own
    flags take effect; Paddle's flags that mean nothing to oar (oar.framework.flags.NO_EFFECT) are
    kept for get_flags and warn once when set away from Paddle's default."""
    if not isinstance(flags, dict):
        raise TypeError(
            f"set_flags(): expects a dict {{name: value}}, but got {type(flags).__name__}"
        )
    own, other = {}, {}
    for k, v in flags.items():
        name = _name(k, "set_flags")
        if name in _OWN:
            own[name] = v
        elif name in NO_EFFECT:
            default = NO_EFFECT[name][0]
            want = type(default)
            ok = (
                isinstance(v, str)
                if want is str
                else isinstance(v, (bool, int, float)) and not isinstance(v, str)
            )
            if not ok:
                raise TypeError(
                    f"set_flags(): flag '{name}' takes a {want.__name__}, but got "
                    f"{type(v).__name__}"
                )
            other[name] = v
        else:
            raise _unknown("set_flags", name)
    if own:
        _C.set_flags(own)
    for name, v in other.items():
        _values[name] = v
        if v != NO_EFFECT[name][0] and name not in _warned:
            _warned.add(name)
            warnings.warn(
                f"set_flags(): {name}={v!r} has no effect in oar: {NO_EFFECT[name][1]}",
                stacklevel=2,
            )


def get_flags(flags: str | Sequence[str]) -> dict[str, Any]:
    """The values of the named flags (a name or a list of names) as {name: value}."""
    names = [flags] if isinstance(flags, str) else flags
    if not isinstance(names, (list, tuple)):
        raise TypeError(
            f"get_flags(): expects a flag name or a list of names, but got {type(flags).__name__}"
        )
    out = {}
    for k in names:
        name = _name(k, "get_flags")
        if name in _OWN:
            out.update(_C.get_flags(name))
        elif name in NO_EFFECT:
            out[name] = _values.get(name, NO_EFFECT[name][0])
        else:
            raise _unknown("get_flags", name)
    return out
