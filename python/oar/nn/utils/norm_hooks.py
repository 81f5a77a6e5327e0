"""Weight normalisation and spectral normalisation of a layer's parameter, as forward
pre-hooks that recompute the parameter before each forward (Paddle's
paddle.nn.utils.weight_norm / spectral_norm, the design PyTorch's torch.nn.utils uses).

weight_norm replaces the parameter `name` by name_g (its norm over every dim but dim)
and name_v (its direction), and recomputes name = name_g * name_v / ||name_v||.
spectral_norm keeps the parameter as name_orig and recomputes name = name_orig / sigma,
sigma the largest singular value of name_orig viewed as a matrix [shape[dim], -1],
estimated by power iteration with the vectors name_u and name_v (buffers, updated in
training mode, fixed in eval mode). The recomputed name is a non-persistable buffer.
"""

from __future__ import annotations

from ... import _C
from ...framework.grad_mode import no_grad
from ..layer.layers import Layer
from ...tensor.random import randn
from ..layer.conv import Conv1DTranspose, Conv2DTranspose, Conv3DTranspose

__all__ = ["weight_norm", "remove_weight_norm", "spectral_norm"]

_EPS = 1e-12


def _check_layer(api, layer, name):
    if not isinstance(layer, Layer):
        raise TypeError(
            f"{api}(): argument 'layer' must be a Layer, but got {type(layer).__name__}"
        )
    if not isinstance(name, str) or layer._parameters.get(name) is None:
        raise ValueError(f"{api}(): the layer {type(layer).__name__} has no parameter {name!r}")


def _norm_except(w, dim):
    """||w|| over every dim but dim (all dims for dim -1), shaped [w.shape[dim]] (or [])."""
    if dim == -1:
        return _C.sqrt(_C.scale(_C.sum(w * w), 1.0, _EPS))
    axes = [d for d in range(w.ndim) if d != dim]
    return _C.sqrt(_C.sum(w * w, axes)) if axes else _C.abs(w)


def _along(t, dim, ndim):
    """t [n] reshaped to broadcast along dim of an ndim tensor."""
    shape = [1] * ndim
    shape[dim] = t.shape[0]
    return _C.reshape(t, shape)


class _WeightNorm:
    def __init__(self, name, dim):
        self.name, self.dim = name, dim

    def compute(self, layer):
        g = getattr(layer, self.name + "_g")
        v = getattr(layer, self.name + "_v")
        if self.dim == -1:
            return v * (g / _norm_except(v, -1))
        n = _C.maximum(_norm_except(v, self.dim), _C.full([], _EPS, v.dtype))
        return v * _along(g / n, self.dim, v.ndim)

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.compute(layer))


def weight_norm(layer: Layer, name: str = "weight", dim: int | None = 0) -> Layer:
    """Reparameterises layer.<name> as <name>_g * <name>_v / ||<name>_v|| (the norm over
    every dim but dim; dim None normalises the whole tensor). Returns the layer."""
    api = "weight_norm"
    for hook in getattr(layer, "_forward_pre_hooks", {}).values():
        if isinstance(hook, _WeightNorm) and hook.name == name:
            raise RuntimeError(f"{api}(): the parameter {name!r} already has weight_norm")
    _check_layer(api, layer, name)
    w = layer._parameters[name]
    if dim is None:
        dim = -1
    elif not -w.ndim <= dim < w.ndim:
        raise ValueError(
            f"{api}(): argument 'dim' ({dim}) must be in [{-w.ndim}, {w.ndim}) "
            f"for the {w.ndim}-D parameter {name!r}, or None"
        )
    else:
        dim %= w.ndim
    fn = _WeightNorm(name, dim)
    with no_grad():
        g_value = _norm_except(w, dim)
    del layer._parameters[name]
    v = layer.create_parameter(list(w.shape), dtype=w.dtype)
    g = layer.create_parameter(list(g_value.shape), dtype=w.dtype)
    with no_grad():
        _C.set_value_with_tensor_(v, w, [], [], [], [])
        _C.set_value_with_tensor_(g, g_value, [], [], [], [])
    layer.add_parameter(name + "_v", v)
    layer.add_parameter(name + "_g", g)
    layer.register_buffer(name, fn.compute(layer), persistable=False)
    layer.register_forward_pre_hook(fn)
    return layer


def remove_weight_norm(layer: Layer, name: str = "weight") -> Layer:
    """Undoes weight_norm: layer.<name> is a plain parameter again, holding the current
    g * v / ||v||. Returns the layer."""
    api = "remove_weight_norm"
    for key, hook in list(layer._forward_pre_hooks.items()):
        if isinstance(hook, _WeightNorm) and hook.name == name:
            with no_grad():
                w = hook.compute(layer)
            del layer._forward_pre_hooks[key]
            del layer._parameters[name + "_g"]
            del layer._parameters[name + "_v"]
            layer._buffers.pop(name, None)
            layer._non_persistable_buffer_names_set.discard(name)
            p = layer.create_parameter(list(w.shape), dtype=w.dtype)
            with no_grad():
                _C.set_value_with_tensor_(p, w, [], [], [], [])
            layer.add_parameter(name, p)
            return layer
    raise ValueError(f"{api}(): weight_norm was not applied to {name!r} of {type(layer).__name__}")


def _normalize(t, eps):
    return t / _C.maximum(_C.sqrt(_C.sum(t * t)), _C.full([], eps, t.dtype))


class _SpectralNorm:
    def __init__(self, name, n_power_iterations, dim, eps):
        self.name, self.iters, self.dim, self.eps = name, n_power_iterations, dim, eps

    def matrix(self, w):
        if self.dim != 0:
            w = _C.transpose(w, [self.dim] + [d for d in range(w.ndim) if d != self.dim])
        return _C.reshape(w, [w.shape[0], -1])

    def compute(self, layer, power_iteration):
        w = getattr(layer, self.name + "_orig")
        u = getattr(layer, self.name + "_u")
        v = getattr(layer, self.name + "_v")
        mat = self.matrix(w)
        if power_iteration:
            with no_grad():
                for _ in range(self.iters):
                    nv = _normalize(_C.matmul(u, mat), self.eps)
                    nu = _normalize(_C.matmul(mat, nv), self.eps)
                    _C.set_value_with_tensor_(v, nv, [], [], [], [])
                    _C.set_value_with_tensor_(u, nu, [], [], [], [])
            u, v = _C.assign(u), _C.assign(v)
        sigma = _C.sum(u * _C.matmul(mat, v))
        return w / sigma

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.compute(layer, layer.training))


def spectral_norm(
    layer: Layer,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Layer:
    """Divides layer.<name> by its spectral norm (estimated by n_power_iterations of power
    iteration per forward in training mode) before every forward. dim: the dim that becomes
    the matrix's rows (default 1 for transposed convolutions, else 0). Returns the layer."""
    api = "spectral_norm"
    for hook in getattr(layer, "_forward_pre_hooks", {}).values():
        if isinstance(hook, _SpectralNorm) and hook.name == name:
            raise RuntimeError(f"{api}(): the parameter {name!r} already has spectral_norm")
    _check_layer(api, layer, name)
    if (
        isinstance(n_power_iterations, bool)
        or not isinstance(n_power_iterations, int)
        or n_power_iterations <= 0
    ):
        raise ValueError(
            f"{api}(): argument 'n_power_iterations' must be a positive int, but "
            f"got {n_power_iterations!r}"
        )
    w = layer._parameters[name]
    if dim is None:
        dim = 1 if isinstance(layer, (Conv1DTranspose, Conv2DTranspose, Conv3DTranspose)) else 0
    if not -w.ndim <= dim < w.ndim:
        raise ValueError(
            f"{api}(): argument 'dim' ({dim}) must be in [{-w.ndim}, {w.ndim}) "
            f"for the {w.ndim}-D parameter {name!r}"
        )
    fn = _SpectralNorm(name, n_power_iterations, dim % w.ndim, float(eps))
    with no_grad():
        h, rest = fn.matrix(w).shape
        u = _normalize(randn([h], dtype=w.dtype), fn.eps)
        v = _normalize(randn([rest], dtype=w.dtype), fn.eps)
    del layer._parameters[name]
    layer.add_parameter(name + "_orig", w)
    layer.register_buffer(name, _C.scale(w, 1.0), persistable=False)
    layer.register_buffer(name + "_u", u)
    layer.register_buffer(name + "_v", v)
    layer.register_forward_pre_hook(fn)
    return layer
