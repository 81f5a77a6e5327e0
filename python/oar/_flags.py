"""oar.set_flags / oar.get_flags: oar's own flags, and Paddle's flags that mean nothing here.

oar's flags (FLAGS_check_nan_inf, FLAGS_parallel_threshold, FLAGS_record_forward_stack)
live in the C++ core. Paddle programs also set flags that tune machinery oar does not
have (the static executor's garbage collection, GPU memory pools, oneDNN, PIR): those
listed below are accepted, type-checked and recorded, so get_flags returns what was set
(or Paddle's default), and they change nothing. Any other name is an error.
"""
import threading

from . import _C

# Paddle's name -> its default in Paddle 3.3.1 (the value's type is the flag's type).
PADDLE_ONLY_FLAGS = {
    "FLAGS_eager_delete_tensor_gb": 0.0,
    "FLAGS_fast_eager_deletion_mode": True,
    "FLAGS_memory_fraction_of_eager_deletion": 1.0,
    "FLAGS_allocator_strategy": "auto_growth",
    "FLAGS_fraction_of_cpu_memory_to_use": 1.0,
    "FLAGS_initial_cpu_memory_in_mb": 500,
    "FLAGS_fraction_of_gpu_memory_to_use": 0.92,
    "FLAGS_initial_gpu_memory_in_mb": 0,
    "FLAGS_reallocate_gpu_memory_in_mb": 0,
    "FLAGS_gpu_memory_limit_mb": 0,
    "FLAGS_use_cuda_managed_memory": False,
    "FLAGS_use_stream_safe_cuda_allocator": True,
    "FLAGS_use_pinned_memory": True,
    "FLAGS_use_mkldnn": False,
    "FLAGS_benchmark": False,
    "FLAGS_call_stack_level": 1,
    "FLAGS_check_nan_inf_level": 0,
    "FLAGS_enable_pir_api": True,
    "FLAGS_print_ir": False,
    "FLAGS_max_inplace_grad_add": 0,
    "FLAGS_sort_sum_gradient": False,
    "FLAGS_inner_op_parallelism": 0,
    "FLAGS_set_to_1d": False,
    "FLAGS_enable_api_kernel_fallback": True,
}

_lock = threading.Lock()
_recorded: dict[str, object] = {}  # guarded by _lock: the Paddle-only flags set so far


def _name(name, api):
    if not isinstance(name, str):
        raise TypeError(f"{api}(): flag names must be str, got {type(name).__name__}")
    return name if name.startswith("FLAGS_") else "FLAGS_" + name


def _checked(name, value):
    want = type(PADDLE_ONLY_FLAGS[name])
    ok = (isinstance(value, bool) if want is bool else
          isinstance(value, str) if want is str else
          isinstance(value, int) and not isinstance(value, bool) if want is int else
          isinstance(value, (int, float)) and not isinstance(value, bool))
    if not ok:
        raise TypeError(f"set_flags(): flag '{name}' takes a {want.__name__}, got "
                        f"{type(value).__name__}")
    return float(value) if want is float else value


def _unknown(e):
    return type(e)(f"{e}; also accepted, without effect on oar, Paddle's "
                   f"{', '.join(sorted(PADDLE_ONLY_FLAGS))}")


def set_flags(flags):
    """Sets flags from a dict {name: value} (the FLAGS_ prefix may be left out).

    oar's own flags take effect; the Paddle flags in oar._flags.PADDLE_ONLY_FLAGS are
    recorded only (get_flags returns them), since what they tune does not exist in oar.

    Args:
        flags (dict): The flags and their values.

    Returns:
        None.

    Examples:
        >>> import oar
        >>> oar.set_flags({"FLAGS_check_nan_inf": True, "FLAGS_eager_delete_tensor_gb": 1.0})
        >>> oar.get_flags(["FLAGS_check_nan_inf", "FLAGS_eager_delete_tensor_gb"])
        {'FLAGS_check_nan_inf': True, 'FLAGS_eager_delete_tensor_gb': 1.0}
        >>> oar.set_flags({"FLAGS_check_nan_inf": False})
    """
    if not isinstance(flags, dict):
        raise TypeError(f"set_flags(): expects a dict {{name: value}}, got "
                        f"{type(flags).__name__}")
    own, recorded = {}, {}
    for k, v in flags.items():
        name = _name(k, "set_flags")
        if name in PADDLE_ONLY_FLAGS:
            recorded[name] = _checked(name, v)
        else:
            own[k] = v
    try:
        _C.set_flags(own)
    except ValueError as e:
        raise _unknown(e) from None
    with _lock:
        _recorded.update(recorded)


def get_flags(flags):
    """The values of the named flags (a name or a list of names), as {name: value}.

    Args:
        flags (str|list|tuple): The flag name(s).

    Returns:
        dict: Each flag's value, keyed by its name with the FLAGS_ prefix.
    """
    names = [flags] if isinstance(flags, str) else flags
    if not isinstance(names, (list, tuple)):
        raise TypeError(f"get_flags(): expects a flag name or a list of names, got "
                        f"{type(flags).__name__}")
    out = {}
    for n in names:
        name = _name(n, "get_flags")
        if name in PADDLE_ONLY_FLAGS:
            with _lock:
                out[name] = _recorded.get(name, PADDLE_ONLY_FLAGS[name])
        else:
            try:
                out.update(_C.get_flags([n]))
            except ValueError as e:
                raise _unknown(e) from None
    return out
