"""oar.nn.functional: pooling (as Paddle's paddle.nn.functional.pooling).

The rank-generic C++ ops of src/oar/ops/pooling.yaml on channels-first tensors: avg_pool
(its backward avg_pool_grad), and max pooling as max_pool_index (the argmax of each
window, the mask) followed by pool_gather, whose backward scatters the gradient through
the mask. The mask is a flat index into each (n, c) plane of x, int32 as in Paddle.
"""
from ... import _C
from ... import _check
from ..._dtype import convert_dtype
from . import _window as W

__all__ = ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
           "adaptive_avg_pool2d", "adaptive_max_pool2d"]


def _pool_args(api, nd, x, kernel_size, stride, padding, ceil_mode, last):
    kernel = W.int_list(api, "kernel_size", kernel_size, nd)
    strides = kernel if stride is None else W.int_list(api, "stride", stride, nd)
    algo, pads = W.padding(api, padding, nd, last)
    if algo == "SAME":
        pads = W.same_padding(W.spatial(x, nd, last), kernel, strides)
    elif algo == "VALID" and ceil_mode:
        raise ValueError(f"{api}(): argument 'ceil_mode' must be False with padding 'VALID'")
    return kernel, strides, pads


def _max_pool(api, nd, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format):
    last = W.channel_last(api, data_format, nd)
    W.check_input(api, x, nd, data_format)
    kernel, strides, pads = _pool_args(api, nd, x, kernel_size, stride, padding, ceil_mode, last)
    if last:
        x = W.to_channels_first(x, nd)
    index = W.call(api, "max_pool_index", _C.max_pool_index, x, kernel, strides, pads,
                   bool(ceil_mode), False)
    return _finish_max(x, index, nd, return_mask, last)


def _finish_max(x, index, nd, return_mask, last):
    out = _C.pool_gather(x, index)
    if last:
        out = W.to_channels_last(out, nd)
        index = W.to_channels_last(index, nd)
    if return_mask:
        return out, _C.cast(index, convert_dtype("int32"))
    return out


def _avg_pool(api, nd, x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
              data_format):
    last = W.channel_last(api, data_format, nd)
    W.check_input(api, x, nd, data_format)
    kernel, strides, pads = _pool_args(api, nd, x, kernel_size, stride, padding, ceil_mode, last)
    divisor = 0
    if divisor_override is not None:
        divisor = _check.integer(api, "divisor_override", divisor_override)
        if divisor <= 0:
            raise ValueError(f"{api}(): argument 'divisor_override' must be positive, but got "
                             f"{divisor}")
    if last:
        x = W.to_channels_first(x, nd)
    out = W.call(api, "avg_pool", _C.avg_pool, x, kernel, strides, pads, bool(ceil_mode),
                 bool(exclusive), divisor, False)
    return W.to_channels_last(out, nd) if last else out


def _output_size(api, x, output_size, nd, last):
    """Paddle's output_size: an int, or a list whose None entries keep the input's size."""
    sizes = W.spatial(x, nd, last)
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != nd:
            raise ValueError(f"{api}(): argument 'output_size' must be an int or {nd} values, "
                             f"but got {output_size!r}")
        output_size = [n if o is None else o for o, n in zip(output_size, sizes)]
    return W.int_list(api, "output_size", output_size, nd)


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               name=None):
    """1-D max pooling of x [N, C, L]; with return_mask also the argmax positions."""
    return _max_pool("max_pool1d", 1, x, kernel_size, stride, padding, return_mask, ceil_mode,
                     "NCL")


def max_pool2d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format="NCHW", name=None):
    """2-D max pooling of x [N, C, H, W]; with return_mask also the argmax positions (flat in H * W)."""
    return _max_pool("max_pool2d", 2, x, kernel_size, stride, padding, return_mask, ceil_mode,
                     data_format)


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
               name=None):
    """1-D average pooling of x [N, C, L]; exclusive leaves the padding out of the count."""
    return _avg_pool("avg_pool1d", 1, x, kernel_size, stride, padding, ceil_mode, exclusive,
                     None, "NCL")


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCHW", name=None):
    """2-D average pooling of x [N, C, H, W]; exclusive leaves the padding out of the count."""
    return _avg_pool("avg_pool2d", 2, x, kernel_size, stride, padding, ceil_mode, exclusive,
                     divisor_override, data_format)


def adaptive_avg_pool1d(x, output_size, name=None):
    """Average pooling of x [N, C, L] into output_size windows."""
    api = "adaptive_avg_pool1d"
    W.check_input(api, x, 1, "NCL")
    sizes = _output_size(api, x, output_size, 1, False)
    return W.call(api, "avg_pool", _C.avg_pool, x, sizes, [1], [0, 0], False, True, 0, True)


def adaptive_avg_pool2d(x, output_size, data_format="NCHW", name=None):
    """Average pooling of x [N, C, H, W] into output_size windows."""
    api = "adaptive_avg_pool2d"
    last = W.channel_last(api, data_format, 2)
    W.check_input(api, x, 2, data_format)
    sizes = _output_size(api, x, output_size, 2, last)
    if last:
        x = W.to_channels_first(x, 2)
    out = W.call(api, "avg_pool", _C.avg_pool, x, sizes, [1, 1], [0, 0, 0, 0], False, True, 0,
                 True)
    return W.to_channels_last(out, 2) if last else out


def adaptive_max_pool2d(x, output_size, return_mask=False, name=None):
    """Max pooling of x [N, C, H, W] into output_size windows; with return_mask also the argmax."""
    api = "adaptive_max_pool2d"
    W.check_input(api, x, 2, "NCHW")
    sizes = _output_size(api, x, output_size, 2, False)
    index = W.call(api, "max_pool_index", _C.max_pool_index, x, sizes, [1, 1], [0, 0, 0, 0],
                   False, True)
    return _finish_max(x, index, 2, return_mask, False)
